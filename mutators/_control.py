"""Control mutators: a control tool (`read_tool_result`) appears or disappears out of turn.

Only the host/fitting entry may make a control eligible. A hook that injects one, or a stage that
drops an eligible one, changes the surface as surely as any business tool would.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import Tool
from ._base import Edit, Example, Kind, Mutator, one_of
from ._delete import without
from ._fixtures import READ_TOOL_RESULT, SEARCH, WEB_READ, WEB_SEARCH


class Inject(Mutator):
    """An ineligible control from the host's catalogue appended, as a hook would add it."""

    kind = Kind.CONTROL
    variant = "inject"
    examples = (
        Example(
            aim=Tool("read_tool_result"),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, WEB_READ, READ_TOOL_RESULT),
            controls=(READ_TOOL_RESULT,),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        return one_of(rng, [Tool(control.name) for control in scenario.contract.ineligible_controls])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, Tool)
        controls = edit.scenario.contract.ineligible_controls
        descriptor = next((control for control in controls if control.name == aim.name), None)
        if descriptor is None:
            raise ValueError(f"{self.key()}: {aim!r} names no ineligible control of the scenario")
        return edit.with_tools([*edit.tools, edit.fmt.build(descriptor)])


class Remove(Mutator):
    """An eligible control dropped, so the model loses the way back to a stored result."""

    kind = Kind.CONTROL
    variant = "remove"
    examples = (
        Example(
            aim=Tool("read_tool_result"),
            before=(WEB_SEARCH, WEB_READ, READ_TOOL_RESULT),
            after=(WEB_SEARCH, WEB_READ),
            controls=(READ_TOOL_RESULT,),
            eligible_controls=("read_tool_result",),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        contract = scenario.contract
        # Catalogue order, never the order of the eligible-names set (it varies with hash seeds).
        return one_of(
            rng, [Tool(control.name) for control in contract.controls if control.name in contract.eligible_controls]
        )

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return without(edit, self.aim_of(edit, Tool).name)


MUTATORS: tuple[Mutator, ...] = (Inject(), Remove())
