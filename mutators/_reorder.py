"""Reorder mutators: the same tools, in another order. Tool order is part of parity.

Positions refer to the live tool list, which holds the admitted surface (admitted tools, then
eligible controls). On a one-tool surface `reverse` and `rotate` still yield a target: it
changes nothing, and the harness must report that case as `equivalent`, not drop it.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._base import Edit, Example, Kind, MutationNotApplicable, Mutator
from ._fixtures import HOLDINGS, PROFILE, SEARCH, WEB_READ, WEB_SEARCH


class Swap(Mutator):
    """Two tools trade places; the target reads `i<->j`."""

    kind = Kind.REORDER
    variant = "swap"
    examples = (
        Example(
            target="0<->3",
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(WEB_READ, PROFILE, WEB_SEARCH, SEARCH),
        ),
    )

    def targets(self, scenario: Scenario, rng: random.Random) -> Iterable[str]:
        count = len(scenario.surface)
        if count < 2:
            return ()
        first, second = sorted(rng.sample(range(count), 2))
        return (f"{first}<->{second}",)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        first, sep, second = edit.target.partition("<->")
        if not sep or not first.isdigit() or not second.isdigit():
            raise ValueError(f"{edit.target=} must look like i<->j")
        i, j = int(first), int(second)
        if max(i, j) >= len(edit.tools):
            raise MutationNotApplicable(f"{edit.target} is past the {len(edit.tools)} live tools")
        tools = list(edit.tools)
        tools[i], tools[j] = tools[j], tools[i]
        return edit.with_tools(tools)


class Reverse(Mutator):
    """The whole list reversed."""

    kind = Kind.REORDER
    variant = "reverse"
    examples = (
        Example(target="reverse", before=(SEARCH, PROFILE, HOLDINGS), after=(HOLDINGS, PROFILE, SEARCH)),
        # Equivalent: one tool reversed is the same surface.
        Example(target="reverse", before=(WEB_SEARCH,), after=(WEB_SEARCH,)),
    )

    def targets(self, scenario: Scenario, rng: random.Random) -> Iterable[str]:
        return ("reverse",) if scenario.surface else ()

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        if edit.target != "reverse":
            raise ValueError(f"{edit.target=} must be 'reverse'")
        return edit.with_tools(edit.tools[::-1])


class Rotate(Mutator):
    """The list rotated left by k (the first k tools move to the end); the target reads `rotate+k`."""

    kind = Kind.REORDER
    variant = "rotate"
    examples = (
        Example(
            target="rotate+2",
            before=(SEARCH, PROFILE, WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, WEB_READ, SEARCH, PROFILE),
        ),
        Example(target="rotate+1", before=(HOLDINGS,), after=(HOLDINGS,)),
    )

    def targets(self, scenario: Scenario, rng: random.Random) -> Iterable[str]:
        count = len(scenario.surface)
        if not count:
            return ()
        # k in 1..count-1 always moves something; a single tool gets k=1, which moves nothing.
        return (f"rotate+{rng.randint(1, max(1, count - 1))}",)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        steps = edit.target.removeprefix("rotate+")
        if steps == edit.target or not steps.isdigit():
            raise ValueError(f"{edit.target=} must look like rotate+k")
        if not edit.tools:
            raise MutationNotApplicable("no live tools to rotate")
        k = int(steps) % len(edit.tools)
        return edit.with_tools(edit.tools[k:] + edit.tools[:k])


MUTATORS: tuple[Mutator, ...] = (Swap(), Reverse(), Rotate())
