"""Near-miss text: for every string the contract compares, a change each lossy comparison cannot see.

The contract compares names, descriptions, every string inside an input schema, the capability
summary of an entry request and each identity field of an owner fact byte for byte. A host that
compares any of them loosely — folded case, normalised Unicode, trimmed or split whitespace,
dropped zero-width characters, a prefix, a suffix, a last path segment, all but the last
character — lets through exactly the change its comparison erases. For each comparison in
`Lossy` these mutators make one such change (`near_miss`), so a surviving case names what the
host's comparison is blind to: `…/rename.replace:near_miss:market__web_read:name~nfkc`.

The changes are tried at the last boundary before each model call (`Reach.LAST`): a comparison
is the host's, not a stage's, and its final check is the one that must see the change.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolsurface.contract._facts import FactKind, OwnerFact
from toolsurface.contract._lossy import Lossy
from toolsurface.scenarios import Scenario

from ._aims import ClaimText, FactField, FieldText, Text
from ._base import Edit, Example, Kind, MutationNotApplicable, Mutator, Reach, one_of, shown_admitted
from ._entry import _DOCUMENT, _PORTFOLIO, _summary_message, restated
from ._facts import _RecordsFact, _web_shown
from ._fixtures import PROFILE, SEARCH, WEB_READ, WEB_SEARCH, WEB_TOOLS
from ._pointer import join, resolve, split_last
from ._testing import BINDING

#: The comparisons text can be compared by (`loose_equality` and `falsy` compare values of any type).
TEXT_COMPARISONS = tuple(lossy for lossy in Lossy if lossy not in (Lossy.LOOSE_EQUALITY, Lossy.FALSY))


def _prose(text: str) -> bool:
    return " " in text


def _at_first(text: str, wanted: Callable[[str], bool], change: Callable[[str], str]) -> str | None:
    index = next((i for i, char in enumerate(text) if char.isascii() and wanted(char)), None)
    return None if index is None else text[:index] + change(text[index]) + text[index + 1 :]


def _next_alnum(char: str) -> str:
    for alphabet in ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        if char in alphabet:
            return alphabet[(alphabet.index(char) + 1) % len(alphabet)]
    return char


def _last_alnum_changed(text: str) -> str | None:
    index = next((i for i in range(len(text) - 1, 0, -1) if text[i].isascii() and text[i].isalnum()), None)
    return None if index is None else text[:index] + _next_alnum(text[index]) + text[index + 1 :]


def _first_segment_changed(text: str) -> str | None:
    for separator in ("__", "/", ":", "."):
        head, found, rest = text.partition(separator)
        if found and head and rest:
            return f"{head}2{separator}{rest}"
    return None


_MAKERS: dict[Lossy, Callable[[str], str | None]] = {
    # The first ASCII letter in the other case: `market__web_read` → `Market__web_read`.
    Lossy.CASEFOLD: lambda text: _at_first(text, str.isalpha, str.swapcase),
    # The first ASCII letter or digit in its full-width form, which NFKC folds back (U+FF4D for `m`).
    Lossy.NFKC: lambda text: _at_first(text, str.isalnum, lambda char: chr(ord(char) + 0xFEE0)),
    Lossy.STRIP: lambda text: f"{text} ",
    # A space turned into a no-break space, as text copied from a rendered page carries.
    Lossy.COLLAPSE: lambda text: text.replace(" ", "\u00a0", 1) if _prose(text) else None,
    # A zero-width space after the first character.
    Lossy.ZERO_WIDTH: lambda text: f"{text[:1]}\u200b{text[1:]}" if text else None,
    Lossy.PREFIX: lambda text: f"{text} (updated)" if _prose(text) else f"{text}_v2",
    Lossy.SUFFIX: lambda text: f"Updated: {text}" if _prose(text) else f"proxy__{text}",
    Lossy.LAST_SEGMENT: _first_segment_changed,
    Lossy.HEAD: _last_alnum_changed,
}


@functools.lru_cache(maxsize=8192)
def near_miss(text: str, lossy: Lossy) -> str | None:
    """`text` changed so that `lossy` takes it for the original; None where no such change is made."""
    maker = _MAKERS.get(lossy)
    made = maker(text) if maker else None
    return made if made is not None and made != text and lossy.same(text, made) else None


class _NearMissText(Mutator):
    """One string of one admitted tool changed, for each comparison, where the rng picks it."""

    reach = Reach.LAST

    @abstractmethod
    def places(self, tool: Any) -> Iterator[tuple[str, str]]:
        """`(place, text)` of every string this mutator can change in a tool descriptor."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Text]:
        taken = {tool.name for tool in scenario.surface}
        texts = [(tool.name, place, text) for tool in shown_admitted(scenario) for place, text in self.places(tool)]
        found: list[Text] = []
        for lossy in TEXT_COMPARISONS:
            options = [
                (tool, place)
                for tool, place, text in texts
                if (made := near_miss(text, lossy)) is not None and not (place == "name" and made in taken)
            ]
            found += (Text(*picked, lossy) for picked in one_of(rng, options))
        return tuple(found)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim, fmt = self.aim_of(edit, Text), edit.fmt

        def change(tool: Any) -> None:
            if aim.place == "name":
                fmt.set_name(tool, _missed(fmt.get_name(tool), aim))
            elif aim.place == "description":
                fmt.set_description(tool, _missed(fmt.get_description(tool), aim))
            else:
                at, key = split_last(aim.place)
                schema = fmt.get_schema(tool)
                holder, made = resolve(schema, at), _missed(resolve(schema, aim.place, str), aim)
                if isinstance(holder, list):
                    holder[int(key)] = made
                else:
                    holder[key] = made

        return edit.edit_tool(aim.tool, change)


def _missed(text: str, aim: Text) -> str:
    made = near_miss(text, aim.lossy)
    if made is None:
        raise MutationNotApplicable(f"{aim.place} of {aim.tool!r} has nothing a {aim.lossy} comparison could miss")
    return made


class NearMissName(_NearMissText):
    """An admitted tool's name changed in a way one lossy comparison cannot see."""

    kind = Kind.RENAME
    variant = "near_miss"
    examples = (
        Example(
            aim=Text("market__web_read", "name", Lossy.NFKC),
            before=(WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, {**WEB_READ, "name": "\uff4darket__web_read"}),
        ),
    )

    def places(self, tool: Any) -> Iterator[tuple[str, str]]:
        yield "name", tool.name


class NearMissDescription(_NearMissText):
    """An admitted tool's description changed in a way one lossy comparison cannot see."""

    kind = Kind.DESCRIPTION
    variant = "near_miss"
    examples = (
        Example(
            aim=Text("market__search_instruments", "description", Lossy.CASEFOLD),
            before=(SEARCH, PROFILE),
            after=({**SEARCH, "description": "s" + SEARCH["description"][1:]}, PROFILE),
        ),
    )

    def places(self, tool: Any) -> Iterator[tuple[str, str]]:
        yield "description", tool.description


class NearMissSchema(_NearMissText):
    """A string inside an admitted tool's input schema (a description, an enum value, a pattern, a
    required name…) changed in a way one lossy comparison cannot see."""

    kind = Kind.SCHEMA
    variant = "near_miss"
    examples = (
        Example(
            aim=Text("market__search_instruments", "/properties/asset_class/enum/0", Lossy.ZERO_WIDTH),
            before=(SEARCH,),
            after=(
                {
                    **SEARCH,
                    "input_schema": {
                        **SEARCH["input_schema"],
                        "properties": {
                            **SEARCH["input_schema"]["properties"],
                            "asset_class": {"type": "string", "enum": ["e\u200btf", "stock", "bond", "fund"]},
                        },
                    },
                },
            ),
        ),
    )

    def places(self, tool: Any) -> Iterator[tuple[str, str]]:
        yield from _strings(tool.input_schema, "")


def _strings(value: Any, at: str) -> Iterator[tuple[str, str]]:
    """Every string value in a JSON document, with its pointer, keys in sorted order: a schema's
    key order is no part of it, so the pick must not depend on it (a host's recording may sort them)."""
    if isinstance(value, str):
        if at:
            yield at, value
    elif isinstance(value, dict):
        for key, child in sorted(value.items()):
            yield from _strings(child, join(at, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, join(at, index))


class NearMissFact(_RecordsFact):
    """A search-budget fact from its owner whose one identity field (or its owner's name) differs from
    the real one only in a way a lossy comparison cannot see: it must be refused trust."""

    variant = "near_miss_fact"
    reach = Reach.LAST
    takes = FieldText
    examples = (
        Example(
            aim=FieldText(FactField.SCOPE, Lossy.CASEFOLD),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(
                OwnerFact(
                    FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", dataclasses.replace(BINDING, scope="Research")
                ),
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[FieldText]:
        if not _web_shown(scenario):
            return ()
        values = {field: _real(scenario, field) for field in FactField}
        return tuple(
            FieldText(field, lossy)
            for field in FactField
            for lossy in TEXT_COMPARISONS
            if near_miss(values[field], lossy)
        )

    def fact(self, scenario: Scenario, aim: FieldText) -> OwnerFact:
        budget, binding = FactKind.SEARCH_BUDGET_EXHAUSTED, scenario.binding
        made = near_miss(_real(scenario, aim.field), aim.lossy)
        if made is None:
            raise ValueError(f"{aim}: nothing a {aim.lossy} comparison could miss in {scenario.id}")
        if aim.field is FactField.OWNER:
            return OwnerFact(budget, made, binding)
        return OwnerFact(budget, budget.producer, dataclasses.replace(binding, **{aim.field.value: made}))


def _real(scenario: Scenario, field: FactField) -> str:
    """The value a search-budget fact of this request holds in `field`: its producer, or the binding's."""
    budget = FactKind.SEARCH_BUDGET_EXHAUSTED
    return budget.producer if field is FactField.OWNER else str(getattr(scenario.binding, field.value))


class NearMissSummary(Mutator):
    """One capability's line of an entry request's summary changed in a way one lossy comparison
    cannot see."""

    kind = Kind.ENTRY
    variant = "near_miss"
    reach = Reach.LAST
    examples = (
        Example(
            aim=ClaimText("document", Lossy.STRIP),
            before=(),
            after=(),
            capabilities=(_PORTFOLIO, _DOCUMENT),
            messages_before=(_summary_message(_PORTFOLIO, _DOCUMENT),),
            messages_after=(
                {
                    "role": "system",
                    "content": _summary_message(_PORTFOLIO, _DOCUMENT)["content"] + " ",
                },
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[ClaimText]:
        found: list[ClaimText] = []
        for lossy in TEXT_COMPARISONS:
            options = [
                ClaimText(capability.id, lossy)
                for capability in scenario.contract.capabilities
                if near_miss(str(capability), lossy) is not None
            ]
            found += one_of(rng, options)
        return tuple(found)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, ClaimText)
        capability = next((c for c in edit.scenario.contract.capabilities if c.id == aim.capability), None)
        if capability is None:
            raise ValueError(f"{self.key()}: {aim!r} names no capability of the scenario's contract")
        made = near_miss(str(capability), aim.lossy)
        assert made is not None, "an aim is only made where the comparison can miss a change"
        return restated(edit, str(capability), made)


#: The near misses on a tool's own strings, which the explorer draws aims for anywhere.
TEXT_MUTATORS: tuple[_NearMissText, ...] = (NearMissName(), NearMissDescription(), NearMissSchema())

MUTATORS: tuple[Mutator, ...] = (
    NearMissName(),
    NearMissDescription(),
    NearMissSchema(),
    NearMissFact(),
    NearMissSummary(),
)
