import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fixtures.json_edits import edits
from toolsurface.mutators._strategies import surfaces
from toolsurface.scenarios import (
    IMPORT_KINDS,
    ScenarioError,
    import_file,
    import_log,
    import_scenario,
    parse,
    scenario_id_for,
)


def described(tool):
    """A tool's description as a log holds it: left out when it has none, as OpenAI and MCP allow."""
    return {"description": tool.description} if tool.description else {}


def openai_body(tools, responses=False):
    if responses:
        return {
            "input": "Compare two funds.",
            "tools": [
                {"type": "function", "name": t.name, **described(t), "parameters": t.input_schema} for t in tools
            ],
        }
    listed = [
        {"type": "function", "function": {"name": t.name, **described(t), "parameters": t.input_schema}} for t in tools
    ]
    return {"model": "m", "messages": [{"role": "user", "content": "Compare two funds."}], "tools": listed}


def anthropic_body(tools):
    listed = [{"name": t.name, **described(t), "input_schema": t.input_schema} for t in tools]
    return {
        "model": "m",
        "system": "You are a research agent.",
        "messages": [{"role": "user", "content": "Compare two funds."}],
        "tools": listed,
    }


def mcp_response(tools):
    listed = [{"name": t.name, **described(t), "inputSchema": t.input_schema} for t in tools]
    return {"jsonrpc": "2.0", "id": 1, "result": {"tools": listed}}


BODIES = {"openai": openai_body, "anthropic": anthropic_body, "mcp": mcp_response}


@st.composite
def logged_surfaces(draw):
    """Admitted surfaces in which some tools were sent without a description."""
    tools = draw(surfaces())
    bare = draw(st.lists(st.booleans(), min_size=len(tools), max_size=len(tools)))
    return tuple(
        dataclasses.replace(tool, description="") if drop else tool for tool, drop in zip(tools, bare, strict=True)
    )


# Each example is a full load (every input schema checked as a schema): fewer examples, same reach.
@pytest.mark.parametrize("kind", sorted(BODIES))
@settings(max_examples=25)
@given(tools=logged_surfaces())
def test_the_skeleton_loads_and_admits_exactly_the_logged_tools(kind, tools):
    skeleton = import_scenario(kind, BODIES[kind](tools), "log.json", "imported")
    scenario = parse(skeleton)
    assert scenario.contract.admitted == tools
    assert scenario.tool_format == kind and [stage.kind.value for stage in scenario.stages] == ["seal"]


@settings(max_examples=25)
@given(tools=logged_surfaces())
def test_a_responses_api_body_is_an_openai_log_too(tools):
    assert (
        parse(import_scenario("openai", openai_body(tools, responses=True), "log.json", "x")).contract.admitted == tools
    )


def test_messages_keep_roles_and_spell_out_calls_and_results():
    body = {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {
                "role": "user",
                "content": [{"type": "text", "text": "Compare"}, {"type": "text", "text": "VWRL and SSAC."}],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"type": "function", "function": {"name": "web", "arguments": '{"q": "VWRL"}'}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "3 results"},
        ],
        "tools": [TOOL],
    }
    messages = import_scenario("openai", body, "log.json", "x")["messages"]
    assert messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Compare\nVWRL and SSAC."},
        {"role": "assistant", "content": '[tool_call web] {"q": "VWRL"}'},
        {"role": "tool", "content": "3 results"},
    ]
    anthropic = {
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "web", "input": {"q": "VWRL"}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "3 results"}]}
                ],
            },
        ],
        "tools": [{"name": "web", "description": "Search.", "input_schema": {"type": "object"}}],
    }
    assert import_scenario("anthropic", anthropic, "log.json", "x")["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": '[tool_call web] {"q":"VWRL"}'},
        {"role": "tool", "content": "3 results"},
    ]


TOOL = {"type": "function", "function": {"name": "web", "description": "Search.", "parameters": {"type": "object"}}}
RESPONSES_TOOL = {"type": "function", "name": "web", "description": "Search.", "parameters": {"type": "object"}}
ANTHROPIC_TOOL = {"name": "web", "description": "Search.", "input_schema": {"type": "object"}}


def test_a_tool_without_a_description_is_admitted_with_an_empty_one():
    chat = {
        "messages": [],
        "tools": [{"type": "function", "function": {"name": "web", "parameters": {"type": "object"}}}],
    }
    responses = {"input": "hi", "tools": [{"type": "function", "name": "web"}]}
    functions = {
        "messages": [],
        "functions": [{"name": "web", "parameters": {"type": "object"}}],
    }  # the deprecated form
    mcp = {"tools": [{"name": "web", "inputSchema": {"type": "object"}}]}
    for kind, body in (("openai", chat), ("openai", responses), ("openai", functions), ("mcp", mcp)):
        skeleton = import_scenario(kind, body, "log.json", "x")
        assert skeleton["contract"]["admitted"][0]["description"] == ""
        ((name, description),) = [(tool.name, tool.description) for tool in parse(skeleton).contract.admitted]
        assert (name, description) == ("web", "")


@pytest.mark.parametrize(
    ("kind", "body", "notes"),
    [
        (
            "openai",
            {
                "input": "hi",
                "tools": [
                    {"type": "web_search_preview"},
                    RESPONSES_TOOL,
                    {"type": "file_search", "vector_store_ids": ["vs_1"]},
                ],
            },
            [
                "kept out of the contract: 2 built-in tools: web_search_preview, file_search (each a provider "
                "tool the host does not admit)"
            ],
        ),
        (
            "openai",
            {"input": "hi", "tools": [RESPONSES_TOOL, {"type": "custom", "name": "sql", "format": {"type": "text"}}]},
            ["kept out of the contract: 1 custom tool: sql (free-form input, no JSON Schema for a scenario to record)"],
        ),
        (
            "anthropic",
            {
                "messages": [],
                "tools": [
                    {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
                    ANTHROPIC_TOOL,
                    {"type": "bash_20250124", "name": "bash"},
                ],
            },
            [
                "kept out of the contract: 2 server tools: web_search (web_search_20250305), bash "
                "(bash_20250124) (each a provider tool the host does not admit)"
            ],
        ),
    ],
)
def test_provider_tools_are_kept_out_of_the_contract_and_named(kind, body, notes):
    imported = import_log(kind, [("log.json", body)], "x")
    (skeleton,) = imported.scenarios
    assert [tool.name for tool in parse(skeleton).contract.admitted] == ["web"]
    assert list(imported.notes) == notes
    kept = notes[0].split(": ")[2].rpartition(" (")[0]
    assert skeleton["description"].endswith(f"Kept out of the contract: {kept}.")


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (
            {"messages": [], "tools": [TOOL]},
            "log.json:$.tools[0]: this is an OpenAI Chat Completions body (a tool of type 'function' with a "
            "nested 'function'); import it with `toolsurface import openai`",
        ),
        (
            {"messages": [], "functions": [{"name": "web", "parameters": {"type": "object"}}]},
            "log.json:$.functions[0]: this is an OpenAI Chat Completions body (a function in the deprecated "
            "'functions' list); import it with `toolsurface import openai`",
        ),
        (
            {"input": "hi", "tools": [RESPONSES_TOOL]},
            "log.json:$.tools[0]: this is an OpenAI Responses body (a function tool with its name at the "
            "top level); import it with `toolsurface import openai`",
        ),
        (
            {"input": "hi", "tools": [{"type": "web_search_preview"}]},
            "log.json:$.tools[0].type: this is an OpenAI Responses body ('web_search_preview' is an OpenAI "
            "built-in tool); import it with `toolsurface import openai`",
        ),
        (
            {"messages": [], "tools": [ANTHROPIC_TOOL]},
            "log.json:$.tools[0]: this is an Anthropic Messages body (a tool with an 'input_schema'); "
            "import it with `toolsurface import anthropic`",
        ),
        (
            {"messages": [], "tools": [{"type": "text_editor_20250124", "name": "str_replace_editor"}]},
            "log.json:$.tools[0].type: this is an Anthropic Messages body ('text_editor_20250124' is an "
            "Anthropic server tool); import it with `toolsurface import anthropic`",
        ),
        (
            {"result": {"tools": [{"name": "web", "inputSchema": {"type": "object"}}]}},
            "log.json:$.result.tools: this is an MCP tools/list response (a JSON-RPC result with tools); "
            "import it with `toolsurface import mcp`",
        ),
        (
            {"tools": [{"name": "web", "inputSchema": {"type": "object"}}]},
            "log.json:$.tools[0]: this is an MCP tools/list response (a tool with an 'inputSchema'); import "
            "it with `toolsurface import mcp`",
        ),
        (
            {"resourceSpans": []},
            "log.json:$.resourceSpans: this is an OTLP trace export; import it with `toolsurface import otel`",
        ),
    ],
)
def test_a_log_of_another_kind_is_named_with_the_command_that_imports_it(body, line):
    own = line.rpartition("toolsurface import ")[2].rstrip("`")
    for kind in IMPORT_KINDS:
        if kind == own:
            continue
        with pytest.raises(ScenarioError) as raised:
            import_log(kind, [("log.json", body)], "x")
        assert raised.value.problems == (line,), kind


@settings(max_examples=10)
@given(tools=logged_surfaces(), responses=st.booleans())
def test_every_body_is_told_apart_from_the_other_kinds(tools, responses):
    bodies = {"openai": openai_body(tools, responses), "anthropic": anthropic_body(tools), "mcp": mcp_response(tools)}
    for own, body in bodies.items():
        for kind in IMPORT_KINDS:
            if kind != own:
                with pytest.raises(ScenarioError) as raised:
                    import_log(kind, [("log.json", body)], "x")
                assert raised.value.problems[0].endswith(f"import it with `toolsurface import {own}`")


@pytest.mark.parametrize(
    ("kind", "body", "problem"),
    [
        (
            "openai",
            {"messages": [], "tools": [{"type": "function", "function": {"name": "a b", "description": "d"}}]},
            "log.json:$.tools[0].function.name: 'a b' is not a tool name a scenario accepts",
        ),
        (
            "openai",
            {"messages": [], "tools": [{"type": "function", "function": {"name": "web", "description": ["Search."]}}]},
            "log.json:$.tools[0].function.description: tool 'web' has a description that is not a string (list)",
        ),
        (
            "openai",
            {"input": "hi", "tools": [{"type": "web_search_preview"}]},
            "log.json:$: the log lists no function tools (kept out: web_search_preview): a research "
            "scenario admits at least one",
        ),
        ("openai", {"messages": [], "tools": [TOOL, TOOL]}, "log.json:$.tools[1]: tool 'web' is listed twice"),
        (
            "openai",
            {"messages": [{"role": "robot", "content": "x"}], "tools": [TOOL]},
            "log.json:$.messages[0].role: 'robot' is not a chat role",
        ),
        (
            "openai",
            {"messages": [], "tools": []},
            "log.json:$: the log lists no function tools: a research scenario admits at least one",
        ),
        (
            "anthropic",
            {"messages": [], "tools": [{"name": "t", "description": "d", "input_schema": {"type": "array"}}]},
            "log.json:$.tools[0].input_schema.type: tool 't' takes 'array' arguments",
        ),
        (
            "anthropic",
            {"messages": [], "tools": [{"type": "web_search_20250305", "name": "web_search"}]},
            "log.json:$: the log lists no function tools (kept out: web_search (web_search_20250305))",
        ),
        (
            "mcp",
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -1}},
            "log.json:$.error: the response is a JSON-RPC error",
        ),
        ("mcp", {"result": {"items": []}}, "log.json:$.result: expected a tools/list result with 'tools'"),
        ("mcp", [1], "log.json:$: expected an MCP tools/list response, found list"),
    ],
)
def test_a_log_that_cannot_be_a_scenario_is_one_line_naming_the_path(kind, body, problem):
    with pytest.raises(ScenarioError) as raised:
        import_scenario(kind, body, "log.json", "x")
    (line,) = raised.value.problems
    assert line.startswith(problem)


def nested(depth):
    """A JSON object `depth` levels deep: orjson reads up to 1024 levels, but writes only 254."""
    value = {}
    for _ in range(depth):
        value = {"a": value}
    return value


CALL = {
    "role": "assistant",
    "tool_calls": [{"id": "c", "type": "function", "function": {"name": "web", "arguments": nested(500)}}],
}
PART = {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "web", "input": nested(500)}]}
ITEM = {"type": "function_call", "name": "web", "arguments": nested(500)}


@pytest.mark.parametrize(
    ("kind", "body", "problem"),
    [
        (
            "openai",
            {"messages": [CALL], "tools": [TOOL]},
            "log.json:$.messages[0].tool_calls[0].function.arguments: nested more than 254 levels deep",
        ),
        (
            "anthropic",
            {"messages": [PART], "tools": [ANTHROPIC_TOOL]},
            "log.json:$.messages[0].content[0].input: nested more than 254 levels deep",
        ),
        (
            "openai",
            {"input": [ITEM], "tools": [RESPONSES_TOOL]},
            "log.json:$.input[0]: nested more than 254 levels deep",
        ),
        (
            "openai",
            {
                "messages": [],
                "tools": [
                    {**TOOL, "function": {**TOOL["function"], "parameters": {"type": "object", "x": nested(500)}}}
                ],
            },
            "log.json:$.tools[0].function.parameters: nested more than 250 levels deep",
        ),
    ],
)
def test_arguments_nested_deeper_than_a_scenario_can_hold_are_one_line_naming_the_path(kind, body, problem):
    with pytest.raises(ScenarioError) as raised:
        import_scenario(kind, body, "log.json", "x")
    (line,) = raised.value.problems
    assert line.startswith(problem), line


def test_a_file_that_is_not_json_names_its_line_and_column(tmp_path):
    path = tmp_path / "log.json"
    path.write_text('{"tools": [\n  oops]}')
    with pytest.raises(ScenarioError) as raised:
        import_file("openai", path)
    assert raised.value.problems[0].startswith(f"{path}:2:3: invalid JSON")


def test_the_id_comes_from_the_file_name(tmp_path):
    path = tmp_path / "Chat Request 2026-11-05.json"
    path.write_text(json.dumps({"messages": [], "tools": [TOOL]}))
    assert import_file("openai", path)["id"] == scenario_id_for(path.stem) == "chat-request-2026-11-05"


LOGS = {
    "openai": {
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c", "type": "function", "function": {"name": "web", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c", "content": "r"},
        ],
        "tools": [
            {**TOOL, "function": {**TOOL["function"], "strict": True}},
            {"type": "custom", "custom": {"name": "sql"}},
        ],
    },
    "responses": {
        "input": [{"role": "user", "content": "hi"}, {"type": "function_call", "name": "web"}],
        "tools": [RESPONSES_TOOL, {"type": "web_search_preview"}],
    },
    "anthropic": {
        "system": [{"type": "text", "text": "s"}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "r"}]}],
            }
        ],
        "tools": [ANTHROPIC_TOOL, {"type": "web_search_20250305", "name": "web_search"}],
    },
    "mcp": {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "tools": [
                {"name": "web", "title": "W", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}
            ]
        },
    },
}


@pytest.mark.parametrize("log", sorted(LOGS))
@settings(max_examples=60)
@given(data=st.data())
def test_any_edit_of_a_log_imports_or_is_one_line_per_problem_whatever_kind_it_is_read_as(log, data):
    document = data.draw(edits(LOGS[log]))
    for kind in IMPORT_KINDS:
        try:
            result = import_log(kind, [("log.json", document)], "x")
        except ScenarioError as error:
            assert error.problems and all(line.startswith("log.json") and "\n" not in line for line in error.problems)
        else:
            assert all(parse(skeleton) for skeleton in result.scenarios)
