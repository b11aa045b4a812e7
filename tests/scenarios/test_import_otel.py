import json

import pytest

pytest.importorskip(
    "opentelemetry.sdk", reason="these tests write span exports with the OpenTelemetry SDK: pip install -e '.[dev]'"
)

from google.protobuf.json_format import MessageToDict
from hypothesis import given, settings
from opentelemetry.exporter.otlp.proto.common._internal import _encode_value

from tests.fixtures.json_edits import edits
from tests.fixtures.otel_export import chat_span, otlp_json, record, semconv_tools
from toolsurface.mutators._strategies import surfaces
from toolsurface.scenarios import ScenarioError, import_log, import_log_file, parse

SEARCH = {
    "type": "function",
    "name": "market__web_search",
    "description": "Search the web.",
    "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
}
QUOTE = {"type": "function", "name": "fx__quote", "parameters": {"type": "object"}}  # sent without a description
MESSAGES = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Compare two funds."},
    {"role": "assistant", "content": '[tool_call market__web_search] {"q":"VWRL"}'},
    {"role": "tool", "content": "3 results"},
]
SEMCONV_MESSAGES = [
    {"role": "user", "parts": [{"type": "text", "content": "Compare two funds."}]},
    {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": "c1", "name": "market__web_search", "arguments": {"q": "VWRL"}}],
    },
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "3 results"}]},
]
CURRENT = {
    "gen_ai.tool.definitions": json.dumps([SEARCH, QUOTE]),
    "gen_ai.system_instructions": json.dumps([{"type": "text", "content": "Be brief."}]),
    "gen_ai.input.messages": json.dumps(SEMCONV_MESSAGES),
}


def hex_id(number, size):
    return format(number, f"0{2 * size}x")


def imported(spans, hex_ids=True):
    return import_log("otel", [("export.json", otlp_json(spans, hex_ids))], "export")


def test_a_span_the_sdk_exported_is_a_scenario_named_by_its_trace_and_span():
    def calls(tracer):
        with tracer.start_as_current_span("invoke_agent research") as agent:
            agent.set_attributes(
                {"gen_ai.operation.name": "invoke_agent", "gen_ai.tool.definitions": CURRENT["gen_ai.tool.definitions"]}
            )
            chat_span(tracer, {**CURRENT, "gen_ai.conversation.id": "conv_42"})

    chat, agent = sorted(record(calls), key=lambda span: span.name)
    result = imported([agent, chat])
    (skeleton,) = result.scenarios  # the agent span lists the agent's tools, but only the chat span is a model call
    span_id, trace_id = hex_id(chat.context.span_id, 8), hex_id(chat.context.trace_id, 16)
    assert skeleton["id"] == f"export-{span_id}"
    assert skeleton["identity"] == {
        "run": trace_id,
        "scope": "conv_42",
        "invocation": hex_id(agent.context.span_id, 8),
        "connection": "conn_imported",
        "request": span_id,
    }
    scenario = parse(skeleton)
    assert [(tool.name, tool.description, tool.input_schema) for tool in scenario.contract.admitted] == [
        ("market__web_search", "Search the web.", SEARCH["parameters"]),
        ("fx__quote", "", {"type": "object"}),
    ]
    assert skeleton["messages"] == MESSAGES and scenario.tool_format == "openai"
    assert result.notes == ()
    assert imported([agent, chat], hex_ids=False) == result  # the protobuf JSON mapping's base64 ids read the same


@settings(max_examples=10, deadline=None)
@given(tools=surfaces())
def test_the_tools_a_span_recorded_are_the_admitted_contract(tools):
    spans = record(lambda tracer: chat_span(tracer, {"gen_ai.tool.definitions": semconv_tools(tools)}))
    (skeleton,) = imported(spans).scenarios
    assert parse(skeleton).contract.admitted == tools


def openllmetry(tracer):
    """OpenLLMetry's attributes: no operation name, indexed functions and prompts."""
    attributes = {
        "llm.request.type": "chat",
        "gen_ai.system": "OpenAI",
        "llm.request.functions.0.name": "market__web_search",
        "llm.request.functions.0.description": "Search the web.",
        "llm.request.functions.0.parameters": json.dumps(SEARCH["parameters"]),
        "llm.request.functions.1.name": "fx__quote",
        "llm.request.functions.1.parameters": json.dumps({"type": "object"}),
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Be brief.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "Compare two funds.",
        "gen_ai.prompt.2.role": "assistant",
        "gen_ai.prompt.2.tool_calls.0.name": "market__web_search",
        "gen_ai.prompt.2.tool_calls.0.arguments": '{"q":"VWRL"}',
        "gen_ai.prompt.3.role": "tool",
        "gen_ai.prompt.3.content": "3 results",
    }
    with tracer.start_as_current_span("openai.chat") as span:
        span.set_attributes(attributes)


def message_events(tracer):
    """The older conventions: nested OpenAI tool definitions, one span event per message."""
    nested = json.dumps(
        [
            {"type": "function", "function": {key: value for key, value in tool.items() if key != "type"}}
            for tool in (SEARCH, QUOTE)
        ]
    )
    call = {"id": "c1", "type": "function", "function": {"name": "market__web_search", "arguments": '{"q":"VWRL"}'}}
    events = [
        ("gen_ai.system.message", {"gen_ai.event.content": json.dumps({"content": "Be brief."})}),
        ("gen_ai.user.message", {"content": "Compare two funds."}),
        ("gen_ai.assistant.message", {"gen_ai.event.content": json.dumps({"tool_calls": [call]})}),
        ("gen_ai.tool.message", {"gen_ai.event.content": json.dumps({"content": "3 results", "id": "c1"})}),
        (
            "gen_ai.choice",
            {"gen_ai.event.content": json.dumps({"message": {"content": "Done."}})},
        ),  # the reply: not a message sent
    ]
    chat_span(tracer, {"gen_ai.tool.definitions": nested}, events=events)


def prompt_event(tracer):
    """The first conventions: one `gen_ai.content.prompt` event holding the messages as OpenAI sent them."""
    call = {"type": "function", "function": {"name": "market__web_search", "arguments": '{"q":"VWRL"}'}}
    prompt = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Compare two funds."},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "content": "3 results"},
    ]
    chat_span(
        tracer,
        {"gen_ai.tool.definitions": CURRENT["gen_ai.tool.definitions"]},
        events=[("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(prompt)})],
    )


def structured(document):
    """The current attributes recorded structured (arrays of maps), as the conventions prefer where an SDK can."""
    for attribute in document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]:
        if attribute["key"] in CURRENT:
            attribute["value"] = MessageToDict(_encode_value(json.loads(attribute["value"]["stringValue"])))
    return document


@pytest.mark.parametrize(
    ("calls", "edit"),
    [
        (lambda tracer: chat_span(tracer, CURRENT), structured),
        (openllmetry, None),
        (message_events, None),
        (prompt_event, None),
    ],
    ids=["structured", "openllmetry", "message-events", "prompt-event"],
)
def test_each_version_instrumentations_emit_reads_as_the_same_call(calls, edit):
    document = otlp_json(record(calls))
    (skeleton,) = import_log("otel", [("export.json", edit(document) if edit else document)], "export").scenarios
    tools = [(tool.name, tool.description, tool.input_schema) for tool in parse(skeleton).contract.admitted]
    assert tools == [
        ("market__web_search", "Search the web.", SEARCH["parameters"]),
        ("fx__quote", "", {"type": "object"}),
    ]
    assert skeleton["messages"] == MESSAGES


def test_the_spans_pydantic_ai_instrumentation_emits_import_as_its_model_calls():
    pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'")
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import FunctionModel
    from pydantic_ai.models.instrumented import (
        InstrumentationSettings,
        InstrumentedModel,
    )

    def reply(messages, info):
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("fx__quote", {"pair": "EURUSD"}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("1.08")])

    def run(tracer_provider):
        agent = Agent(
            InstrumentedModel(FunctionModel(reply), InstrumentationSettings(tracer_provider=tracer_provider)),
            instructions="Be brief.",
        )

        @agent.tool_plain
        def fx__quote(pair: str) -> str:
            """Quote a currency pair."""
            return "1.08"

        @agent.tool_plain
        def fx__history(pair: str, days: int = 7) -> str:  # no docstring: sent without a description
            return "[]"

        agent.run_sync("Quote EUR in USD.")

    spans = record(run, provider=True)
    agent_span = next(span for span in spans if span.attributes.get("gen_ai.operation.name") == "invoke_agent")
    first, second = imported(spans).scenarios  # the two model calls; the tool and agent spans are not
    tools = [
        (tool.name, tool.description, sorted(tool.input_schema["properties"]))
        for tool in parse(second).contract.admitted
    ]
    assert tools == [("fx__quote", "Quote a currency pair.", ["pair"]), ("fx__history", "", ["days", "pair"])]
    assert (
        first["messages"]
        == second["messages"][:2]
        == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Quote EUR in USD."}]
    )
    assert second["messages"][2:] == [
        {"role": "assistant", "content": '[tool_call fx__quote] {"pair":"EURUSD"}'},
        {"role": "tool", "content": "1.08"},
    ]
    assert first["identity"]["run"] == second["identity"]["run"] == hex_id(agent_span.context.trace_id, 16)
    assert first["identity"]["invocation"] == second["identity"]["invocation"] == hex_id(agent_span.context.span_id, 8)


def test_a_model_call_without_tools_is_one_line_naming_the_attribute_it_lacks():
    def calls(tracer):
        chat_span(tracer, CURRENT, name="chat with tools")
        chat_span(tracer, {}, name="chat without")
        chat_span(
            tracer, {"gen_ai.tool.definitions": json.dumps([{"type": "web_search_preview"}])}, name="chat built-in only"
        )
        with tracer.start_as_current_span("openai.chat") as span:
            span.set_attributes(
                {"llm.request.type": "chat", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "hi"}
            )
        with tracer.start_as_current_span("execute_tool market__web_search") as span:
            span.set_attributes({"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "market__web_search"})

    spans = record(calls)
    ids = {span.name: hex_id(span.context.span_id, 8) for span in spans}
    result = imported(spans)
    assert [skeleton["identity"]["request"] for skeleton in result.scenarios] == [ids["chat with tools"]]
    assert [note for note in result.notes if note.endswith("skipped")] == [
        f"span {ids['chat without']} (chat without) has no gen_ai.tool.definitions: skipped",
        f"span {ids['chat built-in only']} (chat built-in only) lists no function tools (only "
        "web_search_preview): skipped",
        f"span {ids['openai.chat']} (openai.chat) has no llm.request.functions.*: skipped",
    ]


def test_an_export_without_a_model_call_with_tools_is_an_error_that_says_why():
    spans = record(lambda tracer: chat_span(tracer, {}, name="chat bare"))
    with pytest.raises(ScenarioError) as raised:
        imported(spans)
    span_id = hex_id(spans[0].context.span_id, 8)
    assert raised.value.problems == (
        f"span {span_id} (chat bare) has no gen_ai.tool.definitions: skipped",
        "export.json: no model-call span (chat, generate_content, text_completion) with tools among its 1 spans",
    )


def test_notes_name_the_tools_kept_out_and_what_the_span_did_not_record():
    definitions = json.dumps(
        [{"type": "web_search_preview"}, {"type": "function", "name": "fx__quote", "description": "Quote."}]
    )
    spans = record(lambda tracer: chat_span(tracer, {"gen_ai.tool.definitions": definitions}))
    named = f"span {hex_id(spans[0].context.span_id, 8)} (chat gpt-4o)"
    result = imported(spans)
    assert result.notes == (
        f"{named}: kept out of the contract: 1 built-in tool: web_search_preview (a provider tool the "
        "host does not admit)",
        f"{named}: 1 tool without recorded parameters (fx__quote): recorded as taking none",
        f"{named} recorded no messages (no gen_ai.input.messages): a placeholder user message stands in",
    )
    assert result.scenarios[0]["description"].endswith("Kept out of the contract: web_search_preview.")


def with_attribute(key, value):
    """A one-span export whose attribute `key` holds `value`, and the JSON path of that attribute."""
    document = otlp_json(record(lambda tracer: chat_span(tracer, CURRENT)))
    attributes = document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"]
    index = next(i for i, attribute in enumerate(attributes) if attribute["key"] == key)
    attributes[index]["value"] = {"stringValue": value}
    return document, f"export.json:$.resourceSpans[0].scopeSpans[0].spans[0].attributes[{index}]"


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("gen_ai.tool.definitions", "[{", "gen_ai.tool.definitions: not JSON: "),
        (
            "gen_ai.tool.definitions",
            json.dumps([SEARCH, SEARCH]),
            "gen_ai.tool.definitions[1]: tool 'market__web_search' is listed twice",
        ),
        (
            "gen_ai.tool.definitions",
            json.dumps([{"type": "function", "name": "a b"}]),
            "gen_ai.tool.definitions[0].name: 'a b' is not a tool name",
        ),
        (
            "gen_ai.tool.definitions",
            json.dumps({"tools": []}),
            "gen_ai.tool.definitions: expected a list of tool definitions, found dict",
        ),
        (
            "gen_ai.input.messages",
            json.dumps([{"role": "robot", "parts": []}]),
            "gen_ai.input.messages[0].role: 'robot' is not a chat role",
        ),
    ],
)
def test_an_attribute_that_cannot_be_read_is_one_line_naming_the_file_the_attribute_and_the_path_inside(
    key, value, problem
):
    document, path = with_attribute(key, value)
    with pytest.raises(ScenarioError) as raised:
        import_log("otel", [("export.json", document)], "export")
    (line,) = raised.value.problems
    assert line.startswith(f"{path}: {problem}")


def test_a_malformed_export_is_one_line_naming_the_json_path():
    document = otlp_json(record(lambda tracer: chat_span(tracer, CURRENT)))
    document["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["spanId"] = "xyz"
    with pytest.raises(ScenarioError) as raised:
        import_log("otel", [("export.json", document)], "export")
    assert raised.value.problems == (
        "export.json:$.resourceSpans[0].scopeSpans[0].spans[0].spanId: expected a 8-byte id as 16 hex "
        "digits (or base64), found 'xyz'",
    )
    with pytest.raises(ScenarioError) as raised:
        import_log("otel", [("export.json", {"spans": []})], "export")
    assert raised.value.problems == ("export.json:$: expected an OTLP trace export with 'resourceSpans'",)


def test_json_lines_are_one_export_per_line_and_a_span_read_twice_is_named(tmp_path):
    first, second = (otlp_json(record(lambda tracer: chat_span(tracer, CURRENT))) for _ in range(2))
    path = tmp_path / "traces.jsonl"
    path.write_text(f"{json.dumps(first)}\n\n{json.dumps(second)}\n")
    assert len(import_log_file("otel", path, "traces").scenarios) == 2
    path.write_text(f"{json.dumps(first)}\n{json.dumps(first)}\n")
    with pytest.raises(ScenarioError) as raised:
        import_log_file("otel", path)
    (line,) = raised.value.problems
    assert line.startswith(f"{path}:2: span ") and line.endswith(f"(chat gpt-4o) appears twice (also in {path}:1)")
    path.write_text(f"{json.dumps(first)}\n{{oops\n")
    with pytest.raises(ScenarioError) as raised:
        import_log_file("otel", path)
    assert raised.value.problems == (
        f"{path}:2:2: invalid JSON (read as JSON Lines): unexpected character, expected a string key",
    )
    path.write_text(json.dumps(first, indent=2)[:-2])  # one document, cut short: not read as lines
    with pytest.raises(ScenarioError) as raised:
        import_log_file("otel", path)
    ((line,),) = [raised.value.problems]
    assert line.startswith(f"{path}:") and ": invalid JSON: " in line


def test_the_id_is_the_prefix_and_the_span_id_within_the_scenario_id_limit():
    spans = record(lambda tracer: chat_span(tracer, CURRENT))
    (skeleton,) = import_log("otel", [("export.json", otlp_json(spans))], "x" * 80).scenarios
    assert skeleton["id"] == f"{'x' * 47}-{hex_id(spans[0].context.span_id, 8)}" and len(skeleton["id"]) == 64


# Built once, its tools and messages structured so that an edit can land inside them: every example
# edits a copy of the same export.
EXPORT = structured(
    otlp_json(
        record(
            lambda tracer: chat_span(
                tracer,
                {**CURRENT, "llm.request.functions.0.name": "fx__quote"},
                events=[("gen_ai.user.message", {"content": "hi"})],
            )
        )
    )
)


@settings(max_examples=200, deadline=None)
@given(document=edits(EXPORT))
def test_any_edit_of_an_export_imports_or_is_one_line_per_problem(document):
    try:
        result = import_log("otel", [("export.json", document)], "export")
    except ScenarioError as error:
        assert error.problems and all(
            line.startswith(("export.json", "span ")) and "\n" not in line for line in error.problems
        )
    else:
        assert all(parse(skeleton) for skeleton in result.scenarios)
