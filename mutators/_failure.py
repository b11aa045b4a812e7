"""Failure mutators: nothing in the request changes, but the model provider fails its model call.

How a request ends is part of the contract: it is settled once however it ends. A provider that
fails (a 503, a dropped connection) ends the request there, and the reservation must be settled
once, as `failed` or `dispatched` (which is the host's call: whether a failing call reached the
provider it cannot always tell) — never left open, never twice, never recorded as a refusal. The
change is made on the harness's gateway (`Edit.provider`, which is `ports.gateway`): from the
case's model call on, it fails every call, as a provider that is down does, so a host that retries
gets nothing through either.

A request that never makes a model call (one its recording ends in a capacity result) gets no case.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import RequestOutcome, Scenario

from ._aims import Request
from ._base import Delivery, Edit, Example, Kind, Must, Mutator, Reach
from ._fixtures import PROFILE, SEARCH


class ProviderFails(Mutator):
    """The model provider fails the next model call and every one after it."""

    kind = Kind.FAILURE
    variant = "provider"
    must = Must.FAIL
    deliveries = (Delivery.REPLACE,)
    # Right before each model call: the failure is the call's, whatever prepared it.
    reach = Reach.LAST
    examples = (Example(aim=Request(), before=(SEARCH, PROFILE), after=(SEARCH, PROFILE)),)

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Request]:
        return () if scenario.outcome is RequestOutcome.CAPACITY else (Request(),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        self.aim_of(edit, Request)
        if edit.provider is not None:
            edit.provider.fail()
        return edit.tools, edit.messages


MUTATORS: tuple[Mutator, ...] = (ProviderFails(),)
