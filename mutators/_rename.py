"""Rename mutators: an admitted tool is offered under a name nobody admitted.

Each variant derives the new name from the old one alone, so both deliveries and every tool
format make the same change, and the aim needs to carry only the tool's name.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import Cut, Tool
from ._base import Edit, Example, Kind, Mutator, one_of, shown_admitted
from ._fixtures import HOLDINGS, LONG_NAME, PROFILE, SEARCH, WEB_READ, WEB_SEARCH

#: Where hosts cut names: the providers' 64 characters, and 48 — what a host that prefixes a
#: 16-character server namespace (`mcp__marketdata__`) leaves of them.
NAME_CUTS = (64, 48)

#: Latin letters and the Cyrillic letters that render the same in most fonts.
LOOKALIKES = {"a": "\u0430", "e": "\u0435", "o": "\u043e", "c": "\u0441", "p": "\u0440", "x": "\u0445"}


class _Rename(Mutator):
    """Rename one admitted tool, picked by the rng among those the variant can change."""

    kind = Kind.RENAME

    @staticmethod
    @abstractmethod
    def renamed(name: str) -> str:
        """The new name; equal to `name` when this variant cannot change it (then it is no aim)."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        taken = {tool.name for tool in scenario.surface}
        names = [tool.name for tool in shown_admitted(scenario)]
        # A new name that is already taken would make a duplicate, which is `add.duplicate`'s case.
        return one_of(rng, [Tool(name) for name in names if self.renamed(name) not in taken])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        name = self.aim_of(edit, Tool).name
        return edit.edit_tool(name, lambda tool: edit.fmt.set_name(tool, self.renamed(name)))


class Suffix(_Rename):
    """A version suffix, as when a server re-registers a tool after an upgrade."""

    variant = "suffix"
    examples = (
        Example(
            aim=Tool("market__get_instrument_profile"),
            before=(SEARCH, PROFILE),
            after=(SEARCH, {**PROFILE, "name": "market__get_instrument_profile_v2"}),
        ),
    )

    @staticmethod
    def renamed(name: str) -> str:
        return f"{name}_v2"


class Case(_Rename):
    """One letter's case flipped (the first lower-case ASCII letter, else the first upper-case)."""

    variant = "case"
    examples = (
        Example(
            aim=Tool("market__web_search"),
            before=(WEB_SEARCH,),
            after=({**WEB_SEARCH, "name": "Market__web_search"},),
        ),
    )

    @staticmethod
    def renamed(name: str) -> str:
        for wanted in (str.islower, str.isupper):
            for index, char in enumerate(name):
                if char.isascii() and wanted(char):
                    return name[:index] + char.swapcase() + name[index + 1 :]
        return name


class Lookalike(_Rename):
    """The first letter that has a Cyrillic look-alike swapped for it: same glyphs, other name."""

    variant = "lookalike"
    examples = (
        Example(
            aim=Tool("portfolio__get_holdings"),
            before=(HOLDINGS, WEB_READ),
            # The leading `p` is now U+0440 CYRILLIC SMALL LETTER ER.
            after=({**HOLDINGS, "name": "\u0440ortfolio__get_holdings"}, WEB_READ),
        ),
    )

    @staticmethod
    def renamed(name: str) -> str:
        for index, char in enumerate(name):
            if char in LOOKALIKES:
                return name[:index] + LOOKALIKES[char] + name[index + 1 :]
        return name


class Whitespace(_Rename):
    """A trailing space, invisible in logs and most diffs."""

    variant = "whitespace"
    examples = (
        Example(
            aim=Tool("market__search_instruments"),
            before=(SEARCH, WEB_READ),
            after=({**SEARCH, "name": "market__search_instruments "}, WEB_READ),
        ),
    )

    @staticmethod
    def renamed(name: str) -> str:
        return f"{name} "


class Truncate(Mutator):
    """A name cut to a length limit, only where it is longer than the cut (the aim reads `name~64`)."""

    kind = Kind.RENAME
    variant = "truncate"
    examples = (
        Example(
            aim=Cut("research_library__search_broker_notes_by_sector_region_and_date", 48),
            before=(SEARCH, LONG_NAME),
            after=(SEARCH, {**LONG_NAME, "name": "research_library__search_broker_notes_by_sector_"}),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Cut]:
        taken = {tool.name for tool in scenario.surface}
        names = [tool.name for tool in shown_admitted(scenario)]
        return one_of(
            rng, [Cut(name, cut) for name in names for cut in NAME_CUTS if len(name) > cut and name[:cut] not in taken]
        )

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, Cut)
        return edit.edit_tool(aim.name, lambda tool: edit.fmt.set_name(tool, aim.name[: aim.length]))


MUTATORS: tuple[Mutator, ...] = (Suffix(), Case(), Lookalike(), Whitespace(), Truncate())
