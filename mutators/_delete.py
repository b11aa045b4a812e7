"""Delete mutators: an admitted tool disappears from the request (first, middle or last)."""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import Tool
from ._base import Edit, Example, Kind, Mutator
from ._fixtures import PROFILE, READ_TOOL_RESULT, SEARCH, WEB_READ, WEB_SEARCH


def without(edit: Edit, name: str) -> tuple[list[Any], list[dict[str, Any]]]:
    """The live tools minus the first one called `name`."""
    tools = list(edit.tools)
    del tools[edit.index_of(name)]
    return edit.with_tools(tools)


class _Delete(Mutator):
    """Drop the tool at one position of the admitted surface; the aim is the tool by name."""

    kind = Kind.DELETE

    @staticmethod
    @abstractmethod
    def position(count: int) -> int:
        """Which of `count` tools to drop."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        # The position is fixed by the variant, so the rng has nothing to choose.
        surface = scenario.surface
        return (Tool(surface[self.position(len(surface))].name),) if surface else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return without(edit, self.aim_of(edit, Tool).name)


class First(_Delete):
    """Drop the first tool."""

    variant = "first"
    examples = (Example(aim=Tool("market__search_instruments"), before=(SEARCH, PROFILE), after=(PROFILE,)),)

    @staticmethod
    def position(count: int) -> int:
        return 0


class Middle(_Delete):
    """Drop the tool at index `len // 2`, the one a top-N cut-off or a bad splice loses."""

    variant = "middle"
    examples = (
        Example(
            aim=Tool("market__web_search"),
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(SEARCH, PROFILE, WEB_READ),
        ),
        Example(aim=Tool("market__web_search"), before=(WEB_SEARCH,), after=()),
    )

    @staticmethod
    def position(count: int) -> int:
        return count // 2


class Last(_Delete):
    """Drop the last tool, the one a top-N context fitter drops first."""

    variant = "last"
    examples = (
        Example(
            aim=Tool("read_tool_result"),
            before=(SEARCH, WEB_READ, READ_TOOL_RESULT),
            after=(SEARCH, WEB_READ),
            controls=(READ_TOOL_RESULT,),
            eligible_controls=("read_tool_result",),
        ),
    )

    @staticmethod
    def position(count: int) -> int:
        return count - 1


MUTATORS: tuple[Mutator, ...] = (First(), Middle(), Last())
