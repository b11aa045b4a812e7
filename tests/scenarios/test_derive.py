"""Scenarios derived from an agent's own tools: each loads, admits the tools as given, and has the
shape its name says."""

import json

import jsonschema
import pytest
from hypothesis import given, settings

from toolsurface.mutators._strategies import surfaces
from toolsurface.scenarios import RequestOutcome, derive, derived
from toolsurface.scenarios._derive import example


def _logical(surface):
    return [tool.as_logical() for tool in surface]


@settings(max_examples=60, deadline=None)
@given(surfaces(max_size=6))
def test_every_derived_scenario_loads_and_admits_the_tools_in_order(surface):
    tools = _logical(surface)
    loaded = {scenario.id: scenario for scenario in derived(tools, "langchain:myapp:build")}
    expected = {"own-request", "own-tool-loop", "own-over-budget"} | (
        {"own-over-tool-limit"} if len(tools) > 1 else set()
    )
    assert set(loaded) == expected
    for scenario in loaded.values():
        assert [tool.as_logical() for tool in scenario.contract.surface] == tools
        assert scenario.contract.facts == ()  # which tools an owner governs is the agent's to say
    assert loaded["own-request"].outcome is RequestOutcome.DISPATCHED
    assert loaded["own-over-budget"].outcome is RequestOutcome.CAPACITY
    loop = loaded["own-tool-loop"]
    assert loop.model_calls == 1 + min(2, len(tools))
    assert [step.calls[0].name for step in loop.steps] == [tool["name"] for tool in tools[:2]]
    if len(tools) > 1:
        limit = loaded["own-over-tool-limit"]
        assert limit.outcome is RequestOutcome.CAPACITY and limit.fit.max_tools == len(tools) - 1


@settings(max_examples=60, deadline=None)
@given(surfaces(max_size=4))
def test_a_tool_call_s_arguments_are_what_its_schema_takes(surface):
    for tool in _logical(surface):
        schema = tool["input_schema"]
        if "pattern" in json.dumps(schema):
            continue  # a pattern is not matched (the module says so)
        jsonschema.Draft202012Validator(schema).validate(example(schema, schema))


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (
            {"type": "object", "properties": {"q": {"type": "string", "minLength": 12}}, "required": ["q"]},
            {"q": "examplexxxxx"},
        ),
        ({"type": "integer", "exclusiveMinimum": 3}, 4),
        ({"$ref": "#/$defs/kind", "$defs": {"kind": {"enum": ["pdf", "html"]}}}, "pdf"),
        ({"type": ["null", "boolean"]}, False),
        ({"type": "array", "items": {"type": "string", "format": "uri"}, "minItems": 1}, ["https://example.com"]),
        ({"type": "string", "examples": ["src_4f2a"], "pattern": "^src_"}, "src_4f2a"),
    ],
)
def test_an_example_is_built_from_the_schema_s_own_words(schema, value):
    assert example(schema, schema) == value


def test_an_agent_without_tools_has_nothing_to_derive():
    with pytest.raises(ValueError, match="registers no tools"):
        derive([], "langchain:myapp:build")
