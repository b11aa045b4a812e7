"""Delete mutators: an admitted tool disappears from the request (first, middle or last)."""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._base import Edit, Example, Kind, Mutator
from ._fixtures import PROFILE, READ_TOOL_RESULT, SEARCH, WEB_READ, WEB_SEARCH


def without(edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
    """The live tools minus the one the edit targets by name."""
    tools = list(edit.tools)
    del tools[edit.index_of(edit.target)]
    return edit.with_tools(tools)


class _Delete(Mutator):
    """Drop the tool at one position of the admitted surface; the target is its name."""

    kind = Kind.DELETE

    @staticmethod
    @abstractmethod
    def position(count: int) -> int:
        """Which of `count` tools to drop."""

    def targets(self, scenario: Scenario, rng: random.Random) -> Iterable[str]:
        # The position is fixed by the variant, so the rng has nothing to choose.
        surface = scenario.surface
        return (surface[self.position(len(surface))].name,) if surface else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return without(edit)


class First(_Delete):
    """Drop the first tool."""

    variant = "first"
    examples = (Example(target="market__search_instruments", before=(SEARCH, PROFILE), after=(PROFILE,)),)

    @staticmethod
    def position(count: int) -> int:
        return 0


class Middle(_Delete):
    """Drop the tool at index `len // 2`, the one a top-N cut-off or a bad splice loses."""

    variant = "middle"
    examples = (
        Example(
            target="market__web_search",
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(SEARCH, PROFILE, WEB_READ),
        ),
        Example(target="market__web_search", before=(WEB_SEARCH,), after=()),
    )

    @staticmethod
    def position(count: int) -> int:
        return count // 2


class Last(_Delete):
    """Drop the last tool, the one a top-N context fitter drops first."""

    variant = "last"
    examples = (
        Example(
            target="read_tool_result",
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
