import pytest

from toolsurface.contract._formats import FORMATS
from toolsurface.scenarios import ToolDescriptor

DESCRIPTOR = ToolDescriptor.of(
    "market__web_search",
    "Search the public web.",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)

SHAPES = {
    "logical": {
        "name": "market__web_search",
        "description": "Search the public web.",
        "input_schema": DESCRIPTOR.input_schema,
    },
    "anthropic": {
        "name": "market__web_search",
        "description": "Search the public web.",
        "input_schema": DESCRIPTOR.input_schema,
    },
    "mcp": {
        "name": "market__web_search",
        "description": "Search the public web.",
        "inputSchema": DESCRIPTOR.input_schema,
    },
    "openai": {
        "type": "function",
        "function": {
            "name": "market__web_search",
            "description": "Search the public web.",
            "parameters": DESCRIPTOR.input_schema,
        },
    },
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_build_gives_the_provider_shape(name):
    assert FORMATS[name].build(DESCRIPTOR) == SHAPES[name]


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_edits_land_on_the_live_object(name):
    fmt = FORMATS[name]
    tool = fmt.build(DESCRIPTOR)
    schema = fmt.get_schema(tool)
    schema["properties"]["query"]["type"] = "integer"  # through the live nested dict
    fmt.set_name(tool, "renamed")
    fmt.set_description(tool, "changed")
    assert fmt.logical(tool) == ["renamed", "changed", schema]
    assert fmt.get_schema(tool)["properties"]["query"]["type"] == "integer"


def test_build_never_shares_the_recorded_schema():
    first, second = FORMATS["logical"].build(DESCRIPTOR), FORMATS["logical"].build(DESCRIPTOR)
    first["input_schema"]["properties"]["query"]["type"] = "integer"
    assert second["input_schema"]["properties"]["query"]["type"] == "string"
    assert DESCRIPTOR.input_schema["properties"]["query"]["type"] == "string"
