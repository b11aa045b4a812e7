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

from ._aims import Tool
from ._base import Edit, Example, Kind, Mutator, one_of, shown_admitted
from ._fixtures import HOLDINGS, PROFILE, SEARCH, WEB_READ, WEB_SEARCH

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


MUTATORS: tuple[Mutator, ...] = (Suffix(), Case(), Lookalike(), Whitespace())
