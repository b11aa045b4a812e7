"""Legitimate changes: what the guard must let through. They are the GREEN controls.

None of them changes the canonical tool surface. A guard that refuses one of them is falsely
rejecting: comparing message counts, or schema bytes instead of canonical JSON.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from toolsurface.contract._formats import ToolDescriptor
from toolsurface.contract._json import dumps
from toolsurface.scenarios import Scenario

from ._aims import Messages, Request, Tool
from ._base import Delivery, Edit, Example, Kind, Must, Mutator, Reach, one_of, shown_admitted
from ._fixtures import CONVERSATION, PROFILE, SEARCH, WEB_READ, WEB_SEARCH

#: What a context fitter keeps: the first message, a summary, and this many of the latest.
KEEP_LATEST = 2
#: Messages an evidence stage appends.
EVIDENCE: tuple[dict[str, str], ...] = (
    {"role": "user", "content": "Evidence [1] (issuer factsheet): VWCE ongoing charge 0.22%."},
    {"role": "user", "content": "Evidence [2] (issuer factsheet): IWDA ongoing charge 0.20%."},
)


def _summary(dropped: int) -> dict[str, str]:
    return {
        "role": "user",
        "content": f"Summary of {dropped} earlier messages: fee comparison of two funds in progress.",
    }


class Compress(Mutator):
    """Messages compressed to the first one, one summary, and the latest two."""

    kind = Kind.LEGITIMATE
    variant = "compress"
    must = Must.DISPATCH
    examples = (
        Example(
            aim=Messages(),
            before=(SEARCH, PROFILE),
            after=(SEARCH, PROFILE),
            messages_before=CONVERSATION,
            messages_after=(
                CONVERSATION[0],
                {"role": "user", "content": "Summary of 2 earlier messages: fee comparison of two funds in progress."},
                CONVERSATION[3],
                CONVERSATION[4],
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Messages]:
        # With fewer messages there is nothing between the first and the latest to summarise. An
        # entry request's capability summary is one of them: it opens the messages a stage sees.
        return (Messages(),) if len(scenario.request_messages) > KEEP_LATEST + 1 else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        self.aim_of(edit, Messages)
        messages = edit.messages
        dropped = len(messages) - 1 - KEEP_LATEST
        if dropped < 1:
            # A context fit at an earlier stage already left no more than this fitter keeps. The
            # case still runs: a legitimate change that happens to change nothing must pass too.
            return edit.with_messages(list(messages))
        return edit.with_messages([messages[0], _summary(dropped), *messages[-KEEP_LATEST:]])


class Evidence(Mutator):
    """Two evidence messages appended, as the evidence stage does."""

    kind = Kind.LEGITIMATE
    variant = "evidence"
    must = Must.DISPATCH
    examples = (
        Example(
            aim=Messages(),
            before=(WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, WEB_READ),
            messages_before=CONVERSATION[:2],
            messages_after=(*CONVERSATION[:2], *EVIDENCE),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Messages]:
        return (Messages(),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        self.aim_of(edit, Messages)
        return edit.with_messages([*edit.messages, *(dict(message) for message in EVIDENCE)])


def reverse_keys(node: Any) -> None:
    """Reverse the key order of every object in `node`, in place: same JSON value, other bytes."""
    if isinstance(node, dict):
        for value in node.values():
            reverse_keys(value)
        items = list(node.items())
        # Clear and refill rather than rebuild, so every holder of this very dict sees the new order.
        node.clear()
        node.update(reversed(items))
    elif isinstance(node, list):
        for item in node:
            reverse_keys(item)


class KeyOrder(Mutator):
    """One tool's input schema with its key order reversed at every level."""

    kind = Kind.LEGITIMATE
    variant = "key_order"
    must = Must.DISPATCH
    examples = (Example(aim=Tool("market__search_instruments"), before=(SEARCH, WEB_READ), after=(SEARCH, WEB_READ)),)

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        return one_of(rng, [Tool(tool.name) for tool in shown_admitted(scenario) if _reorderable(tool)])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return edit.edit_tool(self.aim_of(edit, Tool).name, lambda tool: reverse_keys(edit.fmt.get_schema(tool)))


def _reorderable(tool: ToolDescriptor) -> bool:
    """Whether reversing the key order changes the recorded bytes (some object has two keys)."""
    schema = tool.input_schema
    reverse_keys(schema)
    return dumps(schema) != tool.schema_json


class Unchanged(Mutator):
    """Nothing changed: the request as recorded must end as its recording says, a dispatch or a
    capacity result. On a scenario derived at a limit's edge, as the limit set there says."""

    kind = Kind.LEGITIMATE
    variant = "unchanged"
    must = Must.DISPATCH
    deliveries = (Delivery.REPLACE,)
    # At the first boundary, so that a request that ends otherwise than its recording says, at its
    # context fit or after, fails the case rather than never reaching it.
    reach = Reach.FIRST
    at_edges = frozenset({-1, 0, 1})
    examples = (Example(aim=Request(), before=(SEARCH, PROFILE), after=(SEARCH, PROFILE)),)

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Request]:
        return (Request(),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        self.aim_of(edit, Request)
        return edit.tools, edit.messages


MUTATORS: tuple[Mutator, ...] = (Compress(), Evidence(), KeyOrder(), Unchanged())
