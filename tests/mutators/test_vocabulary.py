"""The JSON Schema vocabulary read from jsonschema's metaschemas, and the keyword edits made of it."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from toolsurface.contract._canonical import canonical_json
from toolsurface.contract._lossy import Lossy
from toolsurface.mutators._keywords import places
from toolsurface.mutators._vocabulary import DEFAULT_DRAFT, NOT_ADDED, Op, Shape, edit, subschemas, vocabulary
from toolsurface.scenarios import load

DRAFT_7 = "http://json-schema.org/draft-07/schema"


def test_the_2020_12_vocabulary_is_every_keyword_of_every_vocabulary_with_its_shape() -> None:
    shapes = vocabulary()
    # From the core, applicator, unevaluated, validation, meta-data, format and content vocabularies.
    for keyword in ("$ref", "$defs", "prefixItems", "unevaluatedProperties", "dependentRequired", "deprecated"):
        assert keyword in shapes
    assert shapes["properties"] is Shape.SCHEMA_MAP and shapes["anyOf"] is Shape.SCHEMA_ARRAY
    assert shapes["items"] is Shape.SCHEMA and shapes["not"] is Shape.SCHEMA
    assert shapes["maxLength"] is Shape.COUNT and shapes["minimum"] is Shape.NUMBER
    assert shapes["type"] is Shape.TYPE and shapes["enum"] is Shape.VALUES and shapes["required"] is Shape.STRINGS
    assert shapes["const"] is Shape.ANY and shapes["uniqueItems"] is Shape.BOOLEAN
    assert set(NOT_ADDED) <= set(shapes)


def test_an_older_draft_is_read_from_its_own_metaschema() -> None:
    shapes = vocabulary(DRAFT_7)
    assert "definitions" in shapes and "prefixItems" not in shapes and "$defs" not in shapes
    assert shapes["items"] is Shape.SCHEMA  # a schema or a list of them
    with pytest.raises(ValueError, match="not a JSON Schema draft"):
        vocabulary("https://example.com/no-such-draft")


def test_subschemas_are_walked_where_the_metaschema_says_schemas_are() -> None:
    schema = {
        "type": "object",
        "properties": {"type": {"type": "string"}, "tags": {"type": "array", "items": {"enum": ["a"]}}},
        "anyOf": [{"required": ["type"]}],
        "$defs": {"x": {"not": {"type": "null"}}},
    }
    found = [at for at, _ in subschemas(schema, vocabulary())]
    assert found == [
        "",
        "/properties/type",
        "/properties/tags",
        "/properties/tags/items",
        "/anyOf/0",
        "/$defs/x",
        "/$defs/x/not",
    ]


@pytest.mark.parametrize(
    ("shape", "op", "keyword", "value", "node", "made"),
    [
        (Shape.COUNT, Op.LOOSEN, "maxLength", 5, {}, 6),
        (Shape.COUNT, Op.LOOSEN, "minLength", 0, {}, None),
        (Shape.COUNT, Op.TIGHTEN, "minItems", 1, {}, 2),
        (Shape.NUMBER, Op.LOOSEN, "minimum", 0, {}, -1),
        (Shape.NUMBER, Op.TIGHTEN, "multipleOf", 2, {}, 4),
        (Shape.TYPE, Op.LOOSEN, "type", "string", {}, ["string", "null"]),
        (Shape.TYPE, Op.RETYPE, "type", "string", {}, ["string"]),
        (Shape.SCHEMA, Op.RETYPE, "items", {}, {}, True),
        (Shape.BOOLEAN, Op.RETYPE, "uniqueItems", True, {}, 1),
        (Shape.NUMBER, Op.RETYPE, "maximum", 50, {}, 50.0),
        (Shape.STRINGS, Op.TIGHTEN, "required", ["a"], {"properties": {"a": {}, "b": {}}}, ["a", "b"]),
        (Shape.STRING, Op.CHANGE, "pattern", "^[a-z]+$", {}, "[a-z]+"),
        (Shape.VALUES, Op.LOOSEN, "enum", [1, 2], {}, [1, 2, 3]),
    ],
)
def test_each_edit_makes_the_documented_value(shape, op, keyword, value, node, made) -> None:
    assert edit(shape, op, keyword, value, node) == made
    if made is not None:
        assert canonical_json(made) != canonical_json(value)


@given(st.one_of(st.integers(-5, 5), st.booleans(), st.floats(-5, 5).filter(float.is_integer)))
def test_a_retyped_number_or_flag_is_equal_to_python_and_different_to_json(value) -> None:
    made = edit(Shape.ANY, Op.RETYPE, "default", value, {})
    assert made == value and canonical_json(made) != canonical_json(value)
    assert Lossy.LOOSE_EQUALITY.same(value, made)


def test_a_keyword_is_added_only_where_jsonschema_says_it_bears_on_the_node_or_annotates() -> None:
    schema = {
        "type": "object",
        "properties": {"n": {"type": "integer"}, "s": {"type": "string"}},
    }
    added = {pointer for keyword, pointer in places(schema)[Op.ADD]}
    assert "/properties/s/maxLength" in added and "/properties/n/maxLength" not in added
    assert "/properties/n/maximum" in added and "/properties/s/maximum" not in added
    assert "/properties/n/description" in added and "/properties/s/description" in added
    assert not any(pointer.endswith(("/$id", "/$ref", "/$schema")) for pointer in added)


def test_recorded_schemas_are_valid_and_each_place_an_edit_applies_names_its_keyword() -> None:
    for scenario in load()[:6]:
        for tool in scenario.contract.surface:
            validator_for(tool.input_schema, default=validator_for({"$schema": DEFAULT_DRAFT})).check_schema(
                tool.input_schema
            )
            for op, found in places(tool.input_schema).items():
                assert all(pointer.rsplit("/", 1)[-1] == keyword for keyword, pointer in found), op
