"""Legitimate changes: compress, evidence, key_order."""

import random

import orjson
import pytest

from toolsurface.contract._formats import OPENAI
from toolsurface.mutators import Delivery, Edit, Messages, Tool, by_key
from toolsurface.mutators._fixtures import CONVERSATION, HOLDINGS, SEARCH
from toolsurface.mutators._legitimate import reverse_keys
from toolsurface.mutators._testing import descriptor, live_tools, minimal_scenario
from toolsurface.scenarios import ToolDescriptor


def test_compress_aims_only_at_a_conversation_it_can_shorten() -> None:
    compress = by_key("legit.compress")
    assert list(compress.aims(minimal_scenario([], messages=CONVERSATION[:3]), random.Random(0))) == []
    assert list(compress.aims(minimal_scenario([], messages=CONVERSATION[:4]), random.Random(0))) == [Messages()]


@pytest.mark.parametrize("delivery", list(Delivery))
def test_compress_after_an_earlier_context_fit_changes_nothing(delivery: Delivery) -> None:
    # Planned on the full conversation, applied where a fitting stage already kept only three.
    scenario = minimal_scenario([], messages=CONVERSATION)
    messages = [dict(m) for m in CONVERSATION[:3]]
    _, new_messages = by_key("legit.compress").apply(Edit([], messages, OPENAI, delivery, Messages(), scenario))
    assert new_messages == list(CONVERSATION[:3])
    assert (new_messages is messages) is (delivery is Delivery.IN_PLACE)


@pytest.mark.parametrize("delivery", list(Delivery))
def test_evidence_appends_two_messages_and_leaves_the_tools_alone(delivery: Delivery) -> None:
    scenario = minimal_scenario([descriptor(SEARCH)], messages=CONVERSATION[:1])
    tools = live_tools(scenario.contract.surface, OPENAI)
    messages = [dict(CONVERSATION[0])]
    new_tools, new_messages = by_key("legit.evidence").apply(
        Edit(tools, messages, OPENAI, delivery, Messages(), scenario)
    )
    assert new_tools is tools
    assert len(new_messages) == 3 and new_messages[0] == CONVERSATION[0]
    assert all(message["content"].startswith("Evidence [") for message in new_messages[1:])


def test_reverse_keys_reorders_every_level_in_place() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y"]}, "b": {"type": "integer"}}}
    nested = schema["properties"]
    reverse_keys(schema)
    assert schema["properties"] is nested
    assert list(schema) == ["properties", "type"]
    assert list(nested) == ["b", "a"] and list(nested["a"]) == ["enum", "type"]
    assert nested["a"]["enum"] == ["x", "y"]  # array order is meaning, never touched


def test_key_order_in_place_rewrites_the_live_dicts_without_replacing_them() -> None:
    scenario = minimal_scenario([descriptor(HOLDINGS)])
    tools = live_tools(scenario.contract.surface, OPENAI)
    live = OPENAI.get_schema(tools[0])
    definitions = live["$defs"]
    by_key("legit.key_order").apply(Edit(tools, [], OPENAI, Delivery.IN_PLACE, Tool(HOLDINGS["name"]), scenario))
    assert OPENAI.get_schema(tools[0]) is live and live["$defs"] is definitions
    assert orjson.dumps(live) != orjson.dumps(HOLDINGS["input_schema"])
    assert orjson.dumps(live, option=orjson.OPT_SORT_KEYS) == orjson.dumps(
        HOLDINGS["input_schema"], option=orjson.OPT_SORT_KEYS
    )


def test_key_order_skips_schemas_whose_bytes_it_cannot_change() -> None:
    flat = ToolDescriptor.of("fx__rates", "Current FX rates.", {"type": "object"})
    scenario = minimal_scenario([flat, descriptor(SEARCH)])
    aims = {aim for seed in range(30) for aim in by_key("legit.key_order").aims(scenario, random.Random(seed))}
    assert aims == {Tool(SEARCH["name"])}
