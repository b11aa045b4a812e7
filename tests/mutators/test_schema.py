"""Schema mutators: add_property, remove_property, type, required, enum, additional_properties, defs."""

import random

import pytest

from toolsurface.contract._formats import LOGICAL, MCP, OPENAI
from toolsurface.mutators import (
    Delivery,
    Edit,
    MutationNotApplicable,
    SchemaPath,
    by_key,
)
from toolsurface.mutators._fixtures import HOLDINGS, PROFILE, SEARCH
from toolsurface.mutators._schema import Enum, Required, Type
from toolsurface.mutators._testing import descriptor, live_tools, minimal_scenario
from toolsurface.scenarios import ToolDescriptor

SCHEMA_KEYS = [
    "schema.add_property",
    "schema.remove_property",
    "schema.type",
    "schema.required",
    "schema.enum",
    "schema.additional_properties",
    "schema.defs",
]


def _aims(key: str, *tools: dict) -> set[str]:
    """The aims as the text case ids carry, which is what a reader of these tests checks against."""
    scenario = minimal_scenario(map(descriptor, tools))
    return {str(aim) for seed in range(200) for aim in by_key(key).aims(scenario, random.Random(seed))}


def _tool(schema: dict) -> ToolDescriptor:
    return ToolDescriptor.of("market__get_quotes", "Quote the last traded price.", schema)


@pytest.mark.parametrize("fmt", [LOGICAL, OPENAI, MCP])
@pytest.mark.parametrize("key", SCHEMA_KEYS)
def test_in_place_reaches_a_baseline_that_shares_the_schema_and_replace_does_not(key: str, fmt) -> None:
    scenario = minimal_scenario([descriptor(SEARCH), descriptor(HOLDINGS)])
    (aim,) = by_key(key).aims(scenario, random.Random(7))
    for delivery, reaches in ((Delivery.REPLACE, False), (Delivery.IN_PLACE, True)):
        tools = live_tools(scenario.contract.surface, fmt)
        # The defect this models: an "expected" list holding the very schema dicts it compares.
        shared_baseline = [fmt.get_schema(tool) for tool in tools]
        recorded = [tool.input_schema for tool in scenario.contract.surface]
        by_key(key).apply(Edit(tools, [], fmt, delivery, aim, scenario))
        assert (shared_baseline != recorded) is reaches, (delivery, aim)


def test_schema_aims_name_the_place_edited() -> None:
    assert _aims("schema.type", PROFILE) == {
        "market__get_instrument_profile:/type",
        "market__get_instrument_profile:/properties/symbol/type",
        "market__get_instrument_profile:/properties/sections/type",
        "market__get_instrument_profile:/properties/sections/items/type",
    }
    assert _aims("schema.enum", SEARCH, PROFILE) == {
        "market__search_instruments:/properties/asset_class/enum/-",
        "market__get_instrument_profile:/properties/sections/items/enum/-",
    }
    assert _aims("schema.required", SEARCH) == {
        "market__search_instruments:/required/0",
        "market__search_instruments:/required/-",
    }


def test_defs_and_enum_need_something_to_edit() -> None:
    assert _aims("schema.defs", SEARCH, PROFILE) == set()
    assert _aims("schema.defs", HOLDINGS) == {"portfolio__get_holdings:/$defs/AccountRef/description"}
    assert _aims("schema.enum", HOLDINGS) == set()


def test_pointers_escape_property_names() -> None:
    schema = {"type": "object", "properties": {"price/earnings": {"type": "number"}}}
    scenario = minimal_scenario([_tool(schema)])
    assert _aims(
        "schema.remove_property", {"name": "market__get_quotes", "description": "x", "input_schema": schema}
    ) == {"market__get_quotes:/properties/price~1earnings"}
    tools = live_tools(scenario.contract.surface, LOGICAL)
    aim = SchemaPath("market__get_quotes", "/properties/price~1earnings/type")
    by_key("schema.type").apply(Edit(tools, [], LOGICAL, Delivery.IN_PLACE, aim, scenario))
    assert tools[0]["input_schema"]["properties"]["price/earnings"] == {"type": "string"}


def test_type_string_becomes_integer_and_anything_else_string() -> None:
    schema = {
        "type": "object",
        "properties": {
            "symbol": {"type": "string"},
            "limit": {"type": "integer"},
            "note": {"type": ["string", "null"]},
        },
    }
    for place in Type().places(schema):
        Type().change(schema, place)
    assert schema == {
        "type": "string",
        "properties": {"symbol": {"type": "integer"}, "limit": {"type": "string"}, "note": {"type": "string"}},
    }


def test_type_skips_nodes_without_a_type_keyword() -> None:
    schema = {"type": "object", "properties": {"account": {"$ref": "#/$defs/AccountRef"}, "raw": {"type": 3}}}
    assert list(Type().places(schema)) == ["/type"]


def test_required_adds_the_alphabetically_first_optional_property_whatever_the_key_order() -> None:
    forward = {"type": "object", "properties": {"b": {}, "a": {}, "c": {}}, "required": ["c"]}
    backward = {"type": "object", "properties": {"c": {}, "a": {}, "b": {}}, "required": ["c"]}
    for schema in (forward, backward):
        Required().change(schema, "/required/-")
        assert schema["required"] == ["c", "a"]
    bare = {"type": "object", "properties": {"symbol": {}}}
    Required().change(bare, "/required/-")
    assert bare["required"] == ["symbol"]


def test_required_cannot_add_when_everything_is_required() -> None:
    schema = {"type": "object", "properties": {"symbol": {}}, "required": ["symbol"]}
    with pytest.raises(MutationNotApplicable, match="already required"):
        Required().change(schema, "/required/-")
    assert schema["required"] == ["symbol"]


@pytest.mark.parametrize(
    ("values", "added"),
    [
        (["etf", "stock"], "unlisted"),
        (["unlisted", "unlisted_2"], "unlisted_3"),
        ([1, 5, 3], 6),
        ([True, False], "unlisted"),
    ],
)
def test_enum_adds_a_value_it_did_not_accept(values: list, added) -> None:
    schema = {"enum": list(values)}
    Enum().change(schema, "/enum/-")
    assert schema["enum"] == [*values, added]


def test_an_edit_whose_place_is_gone_is_not_applicable_and_changes_nothing() -> None:
    scenario = minimal_scenario([descriptor(PROFILE)])
    tools = live_tools(scenario.contract.surface, MCP)
    del MCP.get_schema(tools[0])["properties"]["symbol"]  # an earlier stage dropped it
    before = MCP.get_schema(tools[0]).copy()
    with pytest.raises(MutationNotApplicable, match="/properties/symbol"):
        by_key("schema.type").apply(
            Edit(tools, [], MCP, Delivery.IN_PLACE, SchemaPath(PROFILE["name"], "/properties/symbol/type"), scenario)
        )
    assert MCP.get_schema(tools[0]) == before
