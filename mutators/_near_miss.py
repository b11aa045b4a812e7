"""Near-miss mutators: a text that reads the same, or normalizes to the same, but is not the same.

A host that compares tools after `str.casefold()`, Unicode NFKC, stripping whitespace or dropping
zero-width characters takes each of these for the admitted text and lets it through; a guard that
compares the exact text refuses it. The plan never holds them (they are not in `MUTATORS`): the
explorer (`harness/_explore.py`) draws their aims, so that what it finds is beyond the catalogue.
One mutator per text a tool has, each taking a `NearText` aim: its name, its description, or a
string inside its input schema.
"""

from __future__ import annotations

import random
import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import Form, NearText
from ._base import Edit, Example, Kind, MutationNotApplicable, Mutator, one_of, shown_admitted
from ._fixtures import PROFILE, SEARCH, WEB_SEARCH
from ._pointer import join, resolve, schema_nodes, split_last

_LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02"}
_LIGATURE = re.compile("|".join(_LIGATURES))
#: Where a namespace ends in a tool name: MCP servers' `__`, dotted and path-like names.
_SEGMENT = re.compile(r"__|\.|/")


def _nth(positions: list[int], at: int, form: Form) -> int:
    if not positions:
        raise MutationNotApplicable(f"the text has no place for a {form} near miss")
    return positions[at % len(positions)]


def near_miss(text: str, form: Form, at: int) -> str:
    """`text` changed by `form` at its `at`-th candidate place (counted round); never `text` itself."""
    changed = _FORMS[form](text, at, form)
    if changed == text:
        raise MutationNotApplicable(f"a {form} near miss leaves {text!r} as it is")
    return changed


def _case(text: str, at: int, form: Form) -> str:
    index = _nth([i for i, char in enumerate(text) if char.swapcase() != char and len(char.swapcase()) == 1], at, form)
    return text[:index] + text[index].swapcase() + text[index + 1 :]


def _fullwidth(text: str, at: int, form: Form) -> str:
    index = _nth([i for i, char in enumerate(text) if char.isascii() and char.isalnum()], at, form)
    return text[:index] + chr(ord(text[index]) + 0xFEE0) + text[index + 1 :]


def _ligature(text: str, at: int, form: Form) -> str:
    found = list(_LIGATURE.finditer(text))
    match = found[_nth(list(range(len(found))), at, form)]
    return text[: match.start()] + _LIGATURES[match.group()] + text[match.end() :]


def _no_break(text: str, at: int, form: Form) -> str:
    index = _nth([i for i, char in enumerate(text) if char == " "], at, form)
    return text[:index] + "\u00a0" + text[index + 1 :]


def _zero_width(text: str, at: int, form: Form) -> str:
    index = at % (len(text) + 1)
    return text[:index] + "\u200b" + text[index:]


def _whitespace(text: str, at: int, form: Form) -> str:
    # Three kinds, in turn: trailing, leading, and a space doubled inside (trailing where there is none).
    if at % 3 == 0 or " " not in text:
        return f"{text} "
    return f" {text}" if at % 3 == 1 else text.replace(" ", "  ", 1)


def _prefix(text: str, at: int, form: Form) -> str:
    return f"_{text}"


def _suffix(text: str, at: int, form: Form) -> str:
    return f"{text}_"


def _segment(text: str, at: int, form: Form) -> str:
    first = _SEGMENT.search(text)
    if first is None or first.end() == len(text):
        raise MutationNotApplicable(f"{text!r} has no namespace segment to drop")
    return text[first.end() :]


_FORMS: dict[Form, Callable[[str, int, Form], str]] = {
    Form.CASE: _case,
    Form.FULLWIDTH: _fullwidth,
    Form.LIGATURE: _ligature,
    Form.NO_BREAK: _no_break,
    Form.ZERO_WIDTH: _zero_width,
    Form.WHITESPACE: _whitespace,
    Form.PREFIX: _prefix,
    Form.SUFFIX: _suffix,
    Form.SEGMENT: _segment,
}


def schema_strings(schema: dict[str, Any]) -> Iterator[str]:
    """Pointers to the strings a schema tells the model: descriptions, titles and enum values."""
    for at, node in schema_nodes(schema):
        for key in ("description", "title"):
            if isinstance(node.get(key), str):
                yield join(at, key)
        for index, value in enumerate(node.get("enum") or ()):
            if isinstance(value, str):
                yield join(at, "enum", index)


class _NearMiss(Mutator):
    """Change one text of one admitted tool by a near miss."""

    def places(self, tool: Any) -> Iterable[str]:
        """The places this mutator changes in a recorded tool."""
        return (self.place,)

    place = "name"

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[NearText]:
        options = [(tool, place) for tool in shown_admitted(scenario) for place in self.places(tool)]
        picked = one_of(rng, options)
        # The first place of a form: the explorer draws `at` itself (`harness/_explore.py`).
        return [NearText(tool.name, place, rng.choice(list(Form)), 0) for tool, place in picked]

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, NearText)
        return edit.edit_tool(aim.tool, lambda tool: self.change(edit, tool, aim))

    @abstractmethod
    def change(self, edit: Edit, tool: Any, aim: NearText) -> None:
        """Make the near miss in the live `tool`."""


class Name(_NearMiss):
    """A tool's name as a near miss: a full-width first letter, a trailing space, its namespace dropped."""

    kind = Kind.RENAME
    variant = "near_miss"
    examples = (
        Example(
            aim=NearText("market__web_search", "name", Form.FULLWIDTH, 0),
            before=(WEB_SEARCH,),
            after=({**WEB_SEARCH, "name": "\uff4darket__web_search"},),
        ),
        Example(
            aim=NearText("market__web_search", "name", Form.SEGMENT, 0),
            before=(SEARCH, WEB_SEARCH),
            after=(SEARCH, {**WEB_SEARCH, "name": "web_search"}),
        ),
    )

    def change(self, edit: Edit, tool: Any, aim: NearText) -> None:
        edit.fmt.set_name(tool, near_miss(edit.fmt.get_name(tool), aim.form, aim.at))


class Description(_NearMiss):
    """A tool's description as a near miss: one letter's case, a ligature, a no-break space."""

    kind = Kind.DESCRIPTION
    variant = "near_miss"
    place = "description"
    examples = (
        Example(
            aim=NearText("market__get_instrument_profile", "description", Form.LIGATURE, 0),
            before=(PROFILE,),
            after=({**PROFILE, "description": PROFILE["description"].replace("fi", "\ufb01", 1)},),
        ),
    )

    def change(self, edit: Edit, tool: Any, aim: NearText) -> None:
        edit.fmt.set_description(tool, near_miss(edit.fmt.get_description(tool), aim.form, aim.at))


class SchemaText(_NearMiss):
    """A string inside a tool's input schema (a description, a title, an enum value) as a near miss."""

    kind = Kind.SCHEMA
    variant = "near_miss"
    examples = (
        Example(
            aim=NearText("market__search_instruments", "/properties/query/description", Form.CASE, 0),
            before=(SEARCH,),
            after=(
                {
                    **SEARCH,
                    "input_schema": {
                        **SEARCH["input_schema"],
                        "properties": {
                            **SEARCH["input_schema"]["properties"],
                            "query": {
                                **SEARCH["input_schema"]["properties"]["query"],
                                "description": "name, ticker or ISIN to look for.",
                            },
                        },
                    },
                },
            ),
        ),
    )

    def places(self, tool: Any) -> Iterable[str]:
        return schema_strings(tool.input_schema)

    def change(self, edit: Edit, tool: Any, aim: NearText) -> None:
        parent, key = split_last(aim.place)
        node = resolve(edit.fmt.get_schema(tool), parent)
        index: Any = int(key) if isinstance(node, list) and key.isdigit() else key
        text = node[index] if isinstance(node, dict | list) and _holds(node, index) else None
        if not isinstance(text, str):
            raise MutationNotApplicable(f"no string at {aim.place!r} in the live input schema")
        node[index] = near_miss(text, aim.form, aim.at)


def _holds(node: dict[str, Any] | list[Any], index: Any) -> bool:
    return index in node if isinstance(node, dict) else isinstance(index, int) and index < len(node)


#: One of each, in the order the explorer offers them.
MUTATORS: tuple[_NearMiss, ...] = (Name(), Description(), SchemaText())
