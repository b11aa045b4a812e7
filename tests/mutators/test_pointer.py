"""JSON Pointers into input schemas."""

import pytest

from toolsurface.mutators import MutationNotApplicable
from toolsurface.mutators._pointer import (
    join,
    resolve,
    schema_nodes,
    split_last,
    tokens,
)


def test_join_escapes_and_tokens_unescape() -> None:
    pointer = join("/properties", "price/earnings", "a~b", 0)
    assert pointer == "/properties/price~1earnings/a~0b/0"
    assert tokens(pointer) == ["properties", "price/earnings", "a~b", "0"]
    assert tokens("") == []


def test_tokens_rejects_a_relative_pointer() -> None:
    with pytest.raises(ValueError, match="pointer='properties'"):
        tokens("properties")


def test_split_last_gives_the_parent_and_the_key() -> None:
    assert split_last("/properties/price~1earnings") == ("/properties", "price/earnings")
    with pytest.raises(ValueError):
        split_last("")


def test_resolve_returns_the_live_object() -> None:
    schema = {"properties": {"sections": {"type": "array", "items": [{"enum": ["fees"]}]}}}
    assert resolve(schema, "/properties/sections/items/0") is schema["properties"]["sections"]["items"][0]
    assert resolve(schema, "") is schema


@pytest.mark.parametrize(
    "pointer", ["/properties/symbol", "/properties/sections/items/1", "/properties/sections/type/x"]
)
def test_resolve_names_what_is_missing(pointer: str) -> None:
    schema = {"properties": {"sections": {"type": "array", "items": [{}]}}}
    with pytest.raises(MutationNotApplicable, match=pointer):
        resolve(schema, pointer)


def test_schema_nodes_walks_schema_positions_only() -> None:
    schema = {
        "type": "object",
        "properties": {
            # A property named like keywords must be walked as a property, not as a keyword.
            "type": {"type": "string"},
            "items": {"type": "array", "items": {"type": "integer"}},
        },
        "anyOf": [{"required": ["type"]}],
        "$defs": {"Money": {"type": "number"}},
        "enum": [{"type": "not-a-schema"}],
    }
    assert [pointer for pointer, _ in schema_nodes(schema)] == [
        "",
        "/properties/type",
        "/properties/items",
        "/properties/items/items",
        "/anyOf/0",
        "/$defs/Money",
    ]


def test_resolve_checks_the_kind_it_was_asked_for() -> None:
    schema = {"required": ["symbol"]}
    assert resolve(schema, "/required", list) == ["symbol"]
    with pytest.raises(MutationNotApplicable, match="/required is not a JSON dict"):
        resolve(schema, "/required", dict)
