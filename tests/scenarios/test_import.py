import json

import pytest
from hypothesis import given, settings

from toolsurface.mutators._strategies import surfaces
from toolsurface.scenarios import ScenarioError, import_file, import_scenario, parse, scenario_id_for


def openai_body(tools, responses=False):
    if responses:
        return {"input": "Compare two funds.", "tools": [{"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema} for t in tools]}
    listed = [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}} for t in tools]
    return {"model": "m", "messages": [{"role": "user", "content": "Compare two funds."}], "tools": listed}


def anthropic_body(tools):
    listed = [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]
    return {"model": "m", "system": "You are a research agent.", "messages": [{"role": "user", "content": "Compare two funds."}], "tools": listed}


def mcp_response(tools):
    listed = [{"name": t.name, "description": t.description, "inputSchema": t.input_schema} for t in tools]
    return {"jsonrpc": "2.0", "id": 1, "result": {"tools": listed}}


BODIES = {"openai": openai_body, "anthropic": anthropic_body, "mcp": mcp_response}


# Each example is a full load (every input schema checked as a schema): fewer examples, same reach.
@pytest.mark.parametrize("kind", sorted(BODIES))
@settings(max_examples=25)
@given(tools=surfaces())
def test_the_skeleton_loads_and_admits_exactly_the_logged_tools(kind, tools):
    skeleton = import_scenario(kind, BODIES[kind](tools), "log.json", "imported")
    scenario = parse(skeleton)
    assert scenario.contract.admitted == tools
    assert scenario.tool_format == kind and [stage.kind.value for stage in scenario.stages] == ["seal"]


@settings(max_examples=25)
@given(tools=surfaces())
def test_a_responses_api_body_is_an_openai_log_too(tools):
    assert parse(import_scenario("openai", openai_body(tools, responses=True), "log.json", "x")).contract.admitted == tools


def test_messages_keep_roles_and_spell_out_calls_and_results():
    body = {
        "messages": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "Compare"}, {"type": "text", "text": "VWRL and SSAC."}]},
            {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "web", "arguments": '{"q": "VWRL"}'}}]},
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
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "3 results"}]}]},
        ],
        "tools": [{"name": "web", "description": "Search.", "input_schema": {"type": "object"}}],
    }
    assert import_scenario("anthropic", anthropic, "log.json", "x")["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": '[tool_call web] {"q":"VWRL"}'},
        {"role": "tool", "content": "3 results"},
    ]


TOOL = {"type": "function", "function": {"name": "web", "description": "Search.", "parameters": {"type": "object"}}}


@pytest.mark.parametrize(
    ("kind", "body", "problem"),
    [
        ("openai", {"messages": [], "tools": [{"type": "function", "function": {"name": "a b", "description": "d"}}]},
         "log.json:$.tools[0].function.name: 'a b' is not a tool name a scenario accepts"),
        ("openai", {"messages": [], "tools": [{"type": "function", "function": {"name": "web"}}]},
         "log.json:$.tools[0].function.description: tool 'web' has no description"),
        ("openai", {"messages": [], "tools": [{"type": "web_search"}]}, "log.json:$.tools[0].type: 'web_search' is a built-in tool"),
        ("openai", {"messages": [], "tools": [TOOL, TOOL]}, "log.json:$.tools[1]: tool 'web' is listed twice"),
        ("openai", {"messages": [{"role": "robot", "content": "x"}], "tools": [TOOL]}, "log.json:$.messages[0].role: 'robot' is not a chat role"),
        ("openai", {"messages": [], "tools": []}, "log.json:$: the log lists no tools"),
        ("anthropic", {"messages": [], "tools": [{"name": "t", "description": "d", "input_schema": {"type": "array"}}]},
         "log.json:$.tools[0].input_schema.type: tool 't' takes 'array' arguments"),
        ("anthropic", {"messages": [], "tools": [{"type": "web_search_20250305", "name": "web_search"}]}, "log.json:$.tools[0].type: 'web_search_20250305' is a server tool"),
        ("mcp", {"jsonrpc": "2.0", "id": 1, "error": {"code": -1}}, "log.json:$.error: the response is a JSON-RPC error"),
        ("mcp", {"result": {"items": []}}, "log.json:$.result: expected a tools/list result with 'tools'"),
        ("mcp", [1], "log.json:$: expected an MCP tools/list response, found list"),
    ],
)  # fmt: skip
def test_a_log_that_cannot_be_a_scenario_is_one_line_naming_the_path(kind, body, problem):
    with pytest.raises(ScenarioError) as raised:
        import_scenario(kind, body, "log.json", "x")
    (line,) = raised.value.problems
    assert line.startswith(problem)


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
