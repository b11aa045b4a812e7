"""Schema mutators: an admitted tool's input schema changes somewhere inside.

The aim is a `SchemaPath(tool, pointer)` of the place the edit lands. Each variant lists the places it
can edit in every admitted schema and the rng picks one. With `in_place` the edit lands on the
live nested dict `fmt.get_schema(tool)` returns, so it reaches every holder of that dict, which is
how a shared-reference baseline goes blind.
"""

from __future__ import annotations

import itertools
import random
from abc import abstractmethod
from collections.abc import Container, Iterable, Iterator
from typing import Any

from toolsurface.scenarios import Scenario

from ._aims import SchemaPath
from ._base import (
    Edit,
    Example,
    Kind,
    MutationNotApplicable,
    Mutator,
    one_of,
    shown_admitted,
)
from ._fixtures import HOLDINGS, PROFILE, SEARCH, WEB_READ
from ._pointer import join, resolve, schema_nodes, split_last

#: What `add_property` adds: an argument no research tool should take.
NEW_PROPERTY = {"type": "string", "description": "Brokerage account to act on."}
#: What `defs` appends to a shared definition's description.
DEFS_NOTE = "Deprecated: any free-text account name is accepted."

_P = PROFILE["input_schema"]
_S = SEARCH["input_schema"]
_H = HOLDINGS["input_schema"]


def _is_object(node: dict[str, Any]) -> bool:
    return node.get("type") == "object" or isinstance(node.get("properties"), dict)


def _fresh(word: str, taken: Container[Any]) -> str:
    """`word`, or `word_2`, `word_3`… whichever is first not taken."""
    candidates = itertools.chain((word,), (f"{word}_{i}" for i in itertools.count(2)))
    return next(candidate for candidate in candidates if candidate not in taken)


class _SchemaEdit(Mutator):
    """Edit one place in one admitted tool's input schema."""

    kind = Kind.SCHEMA

    @abstractmethod
    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        """Pointers of every place this variant can edit in `schema`, in document order."""

    @abstractmethod
    def change(self, schema: dict[str, Any], pointer: str) -> None:
        """Edit the live `schema` at `pointer`, in place."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[SchemaPath]:
        tools = shown_admitted(scenario)
        return one_of(rng, [SchemaPath(tool.name, place) for tool in tools for place in self.places(tool.input_schema)])

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, SchemaPath)
        return edit.edit_tool(aim.tool, lambda tool: self.change(edit.fmt.get_schema(tool), aim.pointer))


class AddProperty(_SchemaEdit):
    """A new optional property on an object schema."""

    variant = "add_property"
    examples = (
        Example(
            aim=SchemaPath("market__get_instrument_profile", "/properties/account_id"),
            before=(SEARCH, PROFILE),
            after=(
                SEARCH,
                {**PROFILE, "input_schema": {**_P, "properties": {**_P["properties"], "account_id": NEW_PROPERTY}}},
            ),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        for at, node in schema_nodes(schema):
            if _is_object(node):
                taken = node.get("properties") or {}
                name = _fresh("account_id", taken)
                yield join(at, "properties", name)

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        properties_at, name = split_last(pointer)
        node = resolve(schema, split_last(properties_at)[0], dict)
        properties = node.get("properties", {})
        if not isinstance(properties, dict) or name in properties:
            raise MutationNotApplicable(f"{pointer} cannot be added to the live input schema")
        node.setdefault("properties", properties)[name] = dict(NEW_PROPERTY)


class RemoveProperty(_SchemaEdit):
    """A property gone (its `required` entry, if any, left behind)."""

    variant = "remove_property"
    examples = (
        Example(
            aim=SchemaPath("market__get_instrument_profile", "/properties/sections"),
            before=(PROFILE,),
            after=({**PROFILE, "input_schema": {**_P, "properties": {"symbol": _P["properties"]["symbol"]}}},),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        for at, node in schema_nodes(schema):
            if isinstance(node.get("properties"), dict):
                yield from (join(at, "properties", name) for name in node["properties"])

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        properties_at, name = split_last(pointer)
        properties = resolve(schema, properties_at, dict)
        if name not in properties:
            raise MutationNotApplicable(f"nothing at {pointer!r} in the live input schema")
        del properties[name]


class Type(_SchemaEdit):
    """A `type` keyword changed: `string` becomes `integer`; any other type or list of types, `string`."""

    variant = "type"
    examples = (
        Example(
            aim=SchemaPath("market__get_instrument_profile", "/properties/symbol/type"),
            before=(PROFILE, WEB_READ),
            after=(
                {
                    **PROFILE,
                    "input_schema": {
                        **_P,
                        "properties": {
                            **_P["properties"],
                            "symbol": {"type": "integer", "description": "Ticker or ISIN."},
                        },
                    },
                },
                WEB_READ,
            ),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        yield from (join(at, "type") for at, node in schema_nodes(schema) if isinstance(node.get("type"), (str, list)))

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        node_at, key = split_last(pointer)
        node = resolve(schema, node_at, dict)
        if not isinstance(node.get(key), (str, list)):
            raise MutationNotApplicable(f"no type at {pointer!r} in the live input schema")
        node[key] = "integer" if node[key] == "string" else "string"


class Required(_SchemaEdit):
    """A `required` entry dropped (`/required/i`) or one more property required (`/required/-`)."""

    variant = "required"
    examples = (
        Example(
            aim=SchemaPath("market__get_instrument_profile", "/required/0"),
            before=(PROFILE,),
            after=({**PROFILE, "input_schema": {**_P, "required": []}},),
        ),
        # Appends the alphabetically first property not yet required.
        Example(
            aim=SchemaPath("market__search_instruments", "/required/-"),
            before=(SEARCH,),
            after=({**SEARCH, "input_schema": {**_S, "required": ["query", "asset_class"]}},),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        for at, node in schema_nodes(schema):
            required = node.get("required", [])
            if not isinstance(required, list):
                continue
            yield from (join(at, "required", index) for index in range(len(required)))
            if _optional(node):
                yield join(at, "required", "-")

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        required_at, token = split_last(pointer)
        node = resolve(schema, split_last(required_at)[0], dict)
        required = node.get("required", [])
        if not isinstance(required, list):
            raise MutationNotApplicable(f"{required_at} is not a JSON list in the live input schema")
        if token == "-":
            optional = _optional(node)
            if not optional:
                raise MutationNotApplicable(f"every property at {required_at} is already required")
            node.setdefault("required", required).append(optional[0])
        elif token.isdigit() and int(token) < len(required):
            del required[int(token)]
        else:
            raise MutationNotApplicable(f"nothing at {pointer!r} in the live input schema")


def _optional(node: dict[str, Any]) -> list[str]:
    """Property names not yet required, sorted so the pick ignores key order."""
    properties = node.get("properties")
    required = node.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        return []
    return sorted(name for name in properties if name not in required)


class Enum(_SchemaEdit):
    """One more value accepted by an existing `enum`."""

    variant = "enum"
    examples = (
        Example(
            aim=SchemaPath("market__search_instruments", "/properties/asset_class/enum/-"),
            before=(SEARCH, WEB_READ),
            after=(
                {
                    **SEARCH,
                    "input_schema": {
                        **_S,
                        "properties": {
                            **_S["properties"],
                            "asset_class": {"type": "string", "enum": ["etf", "stock", "bond", "fund", "unlisted"]},
                        },
                    },
                },
                WEB_READ,
            ),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        yield from (join(at, "enum", "-") for at, node in schema_nodes(schema) if isinstance(node.get("enum"), list))

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        values = resolve(schema, split_last(pointer)[0], list)
        if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            values.append(max(values) + 1)
        else:
            values.append(_fresh("unlisted", values))


class AdditionalProperties(_SchemaEdit):
    """`additionalProperties` flipped: `false` becomes `true`; anything else (or nothing) becomes `false`."""

    variant = "additional_properties"
    examples = (
        Example(
            aim=SchemaPath("market__get_instrument_profile", "/additionalProperties"),
            before=(PROFILE,),
            after=({**PROFILE, "input_schema": {**_P, "additionalProperties": True}},),
        ),
        Example(
            aim=SchemaPath("market__web_read", "/additionalProperties"),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, {**WEB_READ, "input_schema": {**WEB_READ["input_schema"], "additionalProperties": False}}),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        yield from (join(at, "additionalProperties") for at, node in schema_nodes(schema) if _is_object(node))

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        node_at, key = split_last(pointer)
        node = resolve(schema, node_at, dict)
        node[key] = node.get(key) is False


class Defs(_SchemaEdit):
    """A shared definition under `$defs` (or `definitions`) reworded: one edit, every `$ref` changed."""

    variant = "defs"
    examples = (
        Example(
            aim=SchemaPath("portfolio__get_holdings", "/$defs/AccountRef/description"),
            before=(SEARCH, HOLDINGS),
            after=(
                SEARCH,
                {
                    **HOLDINGS,
                    "input_schema": {
                        **_H,
                        "$defs": {
                            "AccountRef": {
                                **_H["$defs"]["AccountRef"],
                                "description": f"Account id as shown in the portfolio. {DEFS_NOTE}",
                            }
                        },
                    },
                },
            ),
        ),
    )

    def places(self, schema: dict[str, Any]) -> Iterator[str]:
        for at, node in schema_nodes(schema):
            for keyword in ("$defs", "definitions"):
                definitions = node.get(keyword)
                if isinstance(definitions, dict):
                    yield from (
                        join(at, keyword, name, "description") for name, d in definitions.items() if isinstance(d, dict)
                    )

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        node_at, key = split_last(pointer)
        node = resolve(schema, node_at, dict)
        old = node.get(key)
        node[key] = f"{old} {DEFS_NOTE}" if isinstance(old, str) and old else DEFS_NOTE


MUTATORS: tuple[Mutator, ...] = (
    AddProperty(),
    RemoveProperty(),
    Type(),
    Required(),
    Enum(),
    AdditionalProperties(),
    Defs(),
)
