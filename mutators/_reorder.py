"""Reorder mutators: the same tools, in another order. Tool order is part of parity.

Positions refer to the live tool list, which holds the admitted surface (admitted tools, then
eligible controls). On a one-tool surface `reverse` and `rotate` still yield an aim: it
changes nothing, and the harness must report that case as `equivalent`, not drop it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

# Qualified: the aims share their names with the mutators that take them.
from . import _aims
from ._base import (
    Edit,
    Example,
    Kind,
    MutationNotApplicable,
    Mutator,
    one_of,
    shown_admitted,
)
from ._fixtures import HOLDINGS, PROFILE, SEARCH, SHELF, WEB_READ, WEB_SEARCH


class Swap(Mutator):
    """Two tools trade places; the aim reads `i<->j`."""

    kind = Kind.REORDER
    variant = "swap"
    examples = (
        Example(
            aim=_aims.Swap(0, 3),
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(WEB_READ, PROFILE, WEB_SEARCH, SEARCH),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[_aims.Swap]:
        count = len(scenario.surface)
        if count < 2:
            return ()
        first, second = sorted(rng.sample(range(count), 2))
        return (_aims.Swap(first, second),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, _aims.Swap)
        i, j = aim.first, aim.second
        if max(i, j) >= len(edit.tools):
            raise MutationNotApplicable(f"{aim} is past the {len(edit.tools)} live tools")
        tools = list(edit.tools)
        tools[i], tools[j] = tools[j], tools[i]
        return edit.with_tools(tools)


class Reverse(Mutator):
    """The whole list reversed."""

    kind = Kind.REORDER
    variant = "reverse"
    examples = (
        Example(aim=_aims.Reverse(), before=(SEARCH, PROFILE, HOLDINGS), after=(HOLDINGS, PROFILE, SEARCH)),
        # Equivalent: one tool reversed is the same surface.
        Example(aim=_aims.Reverse(), before=(WEB_SEARCH,), after=(WEB_SEARCH,)),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[_aims.Reverse]:
        return (_aims.Reverse(),) if scenario.surface else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        self.aim_of(edit, _aims.Reverse)
        return edit.with_tools(edit.tools[::-1])


class Rotate(Mutator):
    """The list rotated left by k (the first k tools move to the end); the aim reads `rotate+k`."""

    kind = Kind.REORDER
    variant = "rotate"
    examples = (
        Example(
            aim=_aims.Rotate(2),
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, WEB_READ, SEARCH, PROFILE),
        ),
        Example(aim=_aims.Rotate(1), before=(HOLDINGS,), after=(HOLDINGS,)),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[_aims.Rotate]:
        count = len(scenario.surface)
        if not count:
            return ()
        # k in 1..count-1 always moves something; a single tool gets k=1, which moves nothing.
        return (_aims.Rotate(rng.randint(1, max(1, count - 1))),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        steps = self.aim_of(edit, _aims.Rotate).by
        if not edit.tools:
            raise MutationNotApplicable("no live tools to rotate")
        k = steps % len(edit.tools)
        return edit.with_tools(edit.tools[k:] + edit.tools[:k])


class Select(Mutator):
    """A tool selector that keeps every tool yet moves its `always_include` tool to the end, as
    LangChain's `LLMToolSelectorMiddleware` does; selectors run on long lists (more than 8 tools)."""

    kind = Kind.REORDER
    variant = "select"
    examples = (
        Example(
            aim=_aims.Tool("market__get_sector_snapshot_01"),
            before=SHELF[:9],
            after=(SHELF[0], *SHELF[2:9], SHELF[1]),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[_aims.Tool]:
        surface = scenario.surface
        if len(surface) <= 8:
            return ()
        # The last tool moved to the end stays where it is: no aim.
        return one_of(
            rng, [_aims.Tool(tool.name) for tool in shown_admitted(scenario) if tool.name != surface[-1].name]
        )

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        index = edit.index_of(self.aim_of(edit, _aims.Tool).name)
        return edit.with_tools(edit.tools[:index] + edit.tools[index + 1 :] + [edit.tools[index]])


MUTATORS: tuple[Mutator, ...] = (Swap(), Reverse(), Rotate(), Select())
