"""The wire form is the surface: wire fields are recorded, built, snapshotted, compared and named,
and hosts that change what goes on the wire after their check fail the default matrix naming it."""

import re

import pytest

from toolsurface.contract._canonical import capture, snapshot_of
from toolsurface.contract._diff import WireChanged, diff_snapshots
from toolsurface.contract._formats import FORMATS, LOGICAL, MCP, OPENAI
from toolsurface.harness._oracles import NOT_CARRIED
from toolsurface.harness._plan import plan
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.scenarios import (
    ScenarioError,
    ToolDescriptor,
    import_scenario,
    load,
    parse,
)

SPEC = "tests.fixtures.wire_hosts:{}"
ANNOTATED = "etf-compare-main-mcp-annotated"
SCHEMA = {"type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}
HINTS = {"readOnlyHint": True, "openWorldHint": False}


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    # The wire hosts make one model call per request: the recordings of several are not theirs. The
    # wire cases, and the legitimate ones every dispatching recording has, show what each host sends.
    return tuple(
        c for c in plan([s for s in scenarios if s.model_calls == 1], seed=0) if c.mutation.kind in ("wire", "legit")
    )


def test_a_tool_without_wire_fields_snapshots_exactly_as_before():
    plain = ToolDescriptor.of("p", "Profile.", SCHEMA)
    assert plain.wire_json == b"" and plain == ToolDescriptor.of("p", "Profile.", SCHEMA, {"strict": None})
    for fmt in FORMATS.values():
        assert (
            snapshot_of([plain], fmt).raw
            == b'[["p","Profile.",{"properties":{"symbol":{"type":"string"}},"required":["symbol"],"type":"object"}]]'
        )
        assert capture([fmt.build(plain)], fmt).raw == snapshot_of([plain]).raw


def test_each_format_builds_snapshots_and_compares_the_wire_fields_it_has(scenarios):
    annotated = next(s for s in scenarios if s.id == ANNOTATED)
    for fmt in FORMATS.values():
        assert capture([fmt.build(d) for d in annotated.surface], fmt) == snapshot_of(annotated.surface, fmt)
    tool = MCP.build(annotated.surface[0])
    assert tool["title"] == "Search instruments" and tool["outputSchema"]["required"] == ["instruments"]
    # OpenAI has no place for MCP's fields: its snapshot is the three fields alone.
    assert snapshot_of(annotated.surface, OPENAI) == snapshot_of(
        [ToolDescriptor(d.name, d.description, d.schema_json) for d in annotated.surface]
    )
    assert snapshot_of(annotated.surface, MCP) != snapshot_of(annotated.surface, OPENAI)


def test_the_diff_names_the_wire_field_and_the_place_inside_it():
    before = ToolDescriptor.of("x", "X.", SCHEMA, {"strict": True, "annotations": HINTS})
    after = ToolDescriptor.of("x", "X.", SCHEMA, {"strict": False, "annotations": {**HINTS, "readOnlyHint": False}})
    changes = diff_snapshots(snapshot_of([before]), snapshot_of([after]))
    assert changes == (WireChanged("x", "annotations", "/readOnlyHint"), WireChanged("x", "strict"))
    assert [str(change) for change in changes] == [
        "annotations of 'x' changed at /readOnlyHint (true → false)",
        "strict of 'x' changed (true → false)",
    ]
    dropped = diff_snapshots(
        snapshot_of([before]), snapshot_of([ToolDescriptor.of("x", "X.", SCHEMA, {"strict": True})])
    )
    assert [str(change) for change in dropped] == ["annotations of 'x' changed (removed)"]
    # A false or empty field where there was none reads as none to a host that tests its truth.
    falsy = diff_snapshots(
        snapshot_of([after]),
        snapshot_of(
            [
                ToolDescriptor.of(
                    "x", "X.", SCHEMA, {"strict": False, "annotations": {**HINTS, "readOnlyHint": False}, "title": ""}
                )
            ]
        ),
    )
    assert [str(change) for change in falsy] == [
        "title of 'x' changed (added: \"\": invisible where false or empty counts as absent)"
    ]


def test_a_scenario_records_only_the_wire_fields_its_format_has(scenarios):
    document = dict(next(s for s in scenarios if s.id == ANNOTATED).document)
    tools = [{**tool, "strict": True} for tool in document["contract"]["admitted"]]
    with pytest.raises(ScenarioError) as error:
        parse({**document, "contract": {**document["contract"], "admitted": tools}})
    assert (
        error.value.problems[0]
        == "<scenario>:$.contract.admitted[0].strict: the mcp tool format has no 'strict' field (its wire "
        "fields: title, annotations, output_schema)"
    )


def test_importers_keep_the_wire_fields_of_each_format():
    listed = {
        "name": "fx__quote",
        "description": "Quote.",
        "inputSchema": SCHEMA,
        "title": "FX quote",
        "annotations": HINTS,
        "outputSchema": {"type": "object", "properties": {"rate": {"type": "number"}}},
    }
    mcp = parse(import_scenario("mcp", {"result": {"tools": [listed]}}, "log.json", "imported"))
    assert mcp.contract.admitted[0].wire == {
        "title": "FX quote",
        "annotations": HINTS,
        "output_schema": listed["outputSchema"],
    }
    function = {"name": "fx__quote", "description": "Quote.", "parameters": SCHEMA, "strict": True}
    chat = import_scenario(
        "openai", {"messages": [], "tools": [{"type": "function", "function": function}]}, "log.json", "imported"
    )
    responses = import_scenario(
        "openai", {"input": "hi", "tools": [{"type": "function", **function}]}, "log.json", "imported"
    )
    anthropic = import_scenario(
        "anthropic",
        {
            "messages": [],
            "tools": [{"name": "fx__quote", "description": "Quote.", "input_schema": SCHEMA, "strict": False}],
        },
        "log.json",
        "imported",
    )
    assert [body["contract"]["admitted"][0]["strict"] for body in (chat, responses, anthropic)] == [True, True, False]
    with pytest.raises(ScenarioError, match=r"\$\.tools\[0\]\.function\.strict: expected true or false, found str"):
        import_scenario(
            "openai",
            {"messages": [], "tools": [{"type": "function", "function": {**function, "strict": "yes"}}]},
            "log.json",
            "x",
        )


def failures(scenarios, cases, host):
    runner = Runner(scenarios, load_target(SPEC.format(host)))
    return {case.id: record.verdict for case in cases if not (record := runner.run_case(case)).verdict.kind.ok}


def changes(scenarios, cases, host):
    """Per failing case, every change its evidence holds: a reason names the first few."""
    runner = Runner(scenarios, load_target(SPEC.format(host)))
    return {case.id: record.evidence.diff for case in cases if not (record := runner.run_case(case)).verdict.kind.ok}


@pytest.fixture(scope="module")
def checked(scenarios, cases):
    """What the plain host that checks everything it sends fails anyway (it ignores facts and capacity)."""
    return failures(scenarios, cases, "CheckedHost")


def test_a_host_that_checks_what_it_sends_kills_every_wire_case(checked, cases):
    wire = [case for case in cases if case.mutation.kind == "wire"]
    assert wire and not any(case.id in checked for case in wire)


def test_strict_conversion_after_the_check_fails_with_the_rewrite_named(scenarios, cases, checked):
    extra = {
        key: verdict for key, verdict in failures(scenarios, cases, "StrictAfterCheck").items() if key not in checked
    }
    assert extra and all(verdict.kind is VerdictKind.SURVIVED for verdict in extra.values())
    named = r"dispatched a surface that differs from the expected one: (changed \d+ [^,]*, e\.g\. )?schema of "
    assert all(re.match(named, verdict.reason) for verdict in extra.values())
    reasons = " ".join(verdict.reason for verdict in extra.values())
    assert "/required" in reasons
    # Where the format has `strict`, the conversion turning it on is in the evidence too.
    held = changes(scenarios, cases, "StrictAfterCheck")
    openai = [line for k in extra if k.startswith("etf-compare-main-openai/") for line in held[k]]
    assert any(line.startswith("strict of 'market__search_instruments' changed") for line in openai)


def test_dropping_annotations_after_the_check_fails_with_the_field_named(scenarios, cases, checked):
    extra = {
        key: verdict for key, verdict in failures(scenarios, cases, "DropsAnnotations").items() if key not in checked
    }
    assert extra and all(key.startswith(f"{ANNOTATED}/") for key in extra)
    assert all("annotations of 'market__search_instruments' changed" in verdict.reason for verdict in extra.values())


def test_a_format_without_a_field_makes_its_cases_equivalent_on_that_target(scenarios, cases, checked):
    runner = Runner(scenarios, load_target(SPEC.format("OpenAIWire")))
    annotation = next(c for c in cases if c.scenario == ANNOTATED and c.mutation.variant == "annotation")
    record = runner.run_case(annotation)
    assert record.verdict.kind is VerdictKind.EQUIVALENT
    assert (
        record.verdict.reason
        == f"{NOT_CARRIED}the target's tool format has no 'annotations', so a change to it cannot reach its wire"
    )
    assert failures(scenarios, cases, "OpenAIWire").keys() == checked.keys()
    assert LOGICAL.carries("annotations") and not OPENAI.carries("annotations")
