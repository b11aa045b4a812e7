"""Delete mutators: admitted tools disappear from the request — one (first, middle or last), or
many at once, as a cap on the list's length or a tool selector drops them."""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import Keep, Selection, Tool
from ._base import (
    Edit,
    Example,
    Kind,
    MutationNotApplicable,
    Mutator,
    one_of,
    shown_admitted,
)
from ._fixtures import (
    LONG_NAME,
    PROFILE,
    READ_TOOL_RESULT,
    SEARCH,
    SHELF,
    WEB_READ,
    WEB_SEARCH,
)

#: Caps real hosts put on the list: Cursor's 40 tools, and OpenAI's 128 tools per request.
CAPS = (40, 128)
#: How many tools a selector is configured to keep (`max_tools`); it runs only on longer lists.
SELECTOR_KEEPS = (8, 16, 32)


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


class Cap(Mutator):
    """Keep the first N tools and drop the rest, as a host capping its list does: N is Cursor's 40,
    OpenAI's 128, or the limit the scenario's context fit states, wherever the surface is longer."""

    kind = Kind.DELETE
    variant = "cap"
    examples = (Example(aim=Keep(40), before=SHELF, after=SHELF[:40]),)

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Keep]:
        fit = scenario.fit
        stated = () if fit is None or fit.max_tools is None else (fit.max_tools,)
        caps = sorted({*CAPS, *stated})
        return one_of(rng, [Keep(cap) for cap in caps if cap < len(scenario.surface)])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        count = self.aim_of(edit, Keep).count
        if len(edit.tools) <= count:
            raise MutationNotApplicable(f"only {len(edit.tools)} live tools; a cap of {count} drops none")
        return edit.with_tools(edit.tools[:count])


def selected(edit: Edit, aim: Selection) -> list[Any]:
    """What a tool selector hands on: `aim.keep` tools in their listed order (the always-included
    one aside), then the always-included tool at the end."""
    index = edit.index_of(aim.always)
    rest = edit.tools[:index] + edit.tools[index + 1 :]
    return [*rest[: aim.keep], edit.tools[index]]


class Select(Mutator):
    """A selector keeps `max_tools` of a long list and moves its `always_include` tool to the end
    (LangChain's `LLMToolSelectorMiddleware`): tools dropped and one moved at once."""

    kind = Kind.DELETE
    variant = "select"
    examples = (
        Example(
            aim=Selection(8, "market__get_sector_snapshot_02"),
            before=(*SHELF[:10], LONG_NAME),
            after=(*SHELF[:2], *SHELF[3:9], SHELF[2]),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Selection]:
        count = len(scenario.surface)
        names = [tool.name for tool in shown_admitted(scenario)]
        return one_of(rng, [Selection(keep, name) for keep in SELECTOR_KEEPS if keep + 1 < count for name in names])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        return edit.with_tools(selected(edit, self.aim_of(edit, Selection)))


MUTATORS: tuple[Mutator, ...] = (First(), Middle(), Last(), Cap(), Select())
