"""The bundled scenarios load, and between them cover what the harness needs to discriminate.

Each coverage test reads the loaded values, so deleting or editing the file that provides a piece
of coverage fails the test that names it.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolsurface import scenarios
from toolsurface.contract._json import dumps
from toolsurface.harness._capacity import compress, estimate_tokens
from toolsurface.mutators._conversion import StripTitles
from toolsurface.scenarios import (
    RECORDED_KINDS,
    FactKind,
    Lane,
    Mode,
    RequestOutcome,
    Scenario,
    StageKind,
    ToolDescriptor,
)

SCENARIOS = scenarios.load()
BY_ID = {s.id: s for s in SCENARIOS}
CONTROL = "read_tool_result"
FORMATS = {"logical", "openai", "anthropic", "mcp"}
#: Stages a full research recording goes through (hook and publication are optional).
CORE_STAGES = {
    StageKind.REVALIDATE,
    StageKind.CONTEXT_FIT,
    StageKind.EVIDENCE,
    StageKind.ASYNC_PREP,
    StageKind.SEAL,
}


def kinds(scenario: Scenario) -> list[StageKind]:
    return [stage.kind for stage in scenario.stages]


def eligible(scenario: Scenario) -> bool:
    return CONTROL in scenario.contract.eligible_controls


def all_tools(scenario: Scenario) -> Iterator[ToolDescriptor]:
    contract = scenario.contract
    yield from (*contract.admitted, *contract.controls, *contract.admitted_elsewhere)


def pointer(document: Any, path: str) -> Any:
    for part in path.strip("/").split("/"):
        document = document[int(part) if isinstance(document, list) else part]
    return document


def refs(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("$ref"), str):
            yield schema["$ref"]
        for value in schema.values():
            yield from refs(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from refs(value)


# -- the set -------------------------------------------------------------------------------------


def test_bundled_set_loads_with_distinct_ids_one_per_file():
    assert len(SCENARIOS) >= 8
    assert len(BY_ID) == len(SCENARIOS)
    files = sorted(scenarios.bundled_dir().glob("*.json"))
    assert [Path(s.source) for s in SCENARIOS] == files
    # A file is named after its scenario, so a case id leads straight to the file.
    assert all(Path(s.source).stem == s.id for s in SCENARIOS)


def test_bundled_load_is_deterministic():
    assert scenarios.load() == SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_description_is_one_sentence(scenario: Scenario):
    text = scenario.description
    assert text[0].isupper() and text.endswith(".")
    assert ". " not in text and "\n" not in text


# -- lanes, hooks, formats, controls -------------------------------------------------------------


def test_main_and_child_lanes_with_at_least_three_children():
    lanes = Counter(s.lane for s in SCENARIOS)
    assert lanes[Lane.MAIN] >= 1
    assert lanes[Lane.CHILD] >= 3


def test_children_have_their_own_identity():
    mains = [s.identity for s in SCENARIOS if s.lane is Lane.MAIN]
    for child in (s for s in SCENARIOS if s.lane is Lane.CHILD):
        for main in mains:
            assert child.identity.invocation != main.invocation, child.id
            assert child.identity.request != main.request, child.id
            assert child.identity.scope != main.scope, child.id


def test_every_child_records_its_parent_a_main_request_of_the_same_run():
    mains = {s.binding for s in SCENARIOS if s.lane is Lane.MAIN}
    for child in (s for s in SCENARIOS if s.lane is Lane.CHILD):
        parent, ours = child.identity.parent, child.binding
        assert parent in mains, child.id
        assert parent.run == ours.run and ours.scope.startswith(parent.scope + "/"), child.id
        assert ours.invocation.startswith(parent.invocation + "."), child.id


def test_identities_look_recorded_and_requests_are_unique():
    requests = [s.identity.request for s in SCENARIOS]
    assert len(set(requests)) == len(requests)
    for s in SCENARIOS:
        assert re.fullmatch(r"run_\d{4}_\d{2}_\d{2}_[a-z]", s.identity.run), s.id
        assert s.identity.scope.startswith("scope:research/" if s.mode is Mode.RESEARCH else "scope:entry"), s.id
        assert s.identity.invocation.startswith("inv_"), s.id
        assert s.identity.connection.startswith("conn_"), s.id
        assert re.fullmatch(rf"req_{s.lane.value}_\d{{4}}", s.identity.request), s.id


def test_hook_and_no_hook_paths_at_least_three_each():
    hooked = Counter(s.hooks for s in SCENARIOS)
    assert hooked[True] >= 3
    assert hooked[False] >= 3
    for s in SCENARIOS:
        assert s.hooks == (kinds(s)[0] is StageKind.HOOK), s.id


def test_every_tool_format_is_used():
    assert {s.tool_format for s in SCENARIOS} == FORMATS


def test_every_lane_hook_and_control_combination_is_recorded():
    # Each defect the harness hunts can hide on one path only; every path needs a recording.
    seen = {(s.lane, s.hooks, eligible(s)) for s in SCENARIOS}
    assert seen == set(itertools.product(Lane, (True, False), (True, False)))


def test_control_is_catalogued_everywhere_and_eligible_only_somewhere():
    for s in SCENARIOS:
        assert [c.name for c in s.contract.controls] == [CONTROL], s.id
    assert {eligible(s) for s in SCENARIOS} == {True, False}


def test_exactly_one_single_tool_surface_a_child_reading_a_page():
    # Owner facts may narrow a surface to one tool; this is about what was admitted.
    singles = [s for s in SCENARIOS if len(s.contract.surface) == 1]
    assert len(singles) == 1
    (single,) = singles
    assert single.lane is Lane.CHILD
    assert [t.name for t in single.contract.surface] == ["market__web_read"]
    assert not eligible(single)


def test_admitted_elsewhere_is_recorded_in_most_and_never_admitted_here():
    with_others = [s for s in SCENARIOS if len(s.contract.admitted_elsewhere) >= 2]
    assert len(with_others) > len(SCENARIOS) / 2
    for s in SCENARIOS:
        here = {t.name for t in (*s.contract.admitted, *s.contract.controls)}
        assert here.isdisjoint(t.name for t in s.contract.admitted_elsewhere), s.id


# -- stages --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_stages_run_in_pipeline_order_and_end_with_seal(scenario: Scenario):
    order = list(RECORDED_KINDS)
    indexes = [order.index(kind) for kind in kinds(scenario)]
    assert indexes == sorted(set(indexes))
    assert kinds(scenario)[-1] is StageKind.SEAL


def test_stage_lists_mostly_complete_with_some_variation():
    complete = [s for s in SCENARIOS if set(kinds(s)) >= CORE_STAGES]
    assert len(complete) > len(SCENARIOS) / 2
    assert any(StageKind.EVIDENCE not in kinds(s) for s in SCENARIOS)
    assert sum(StageKind.PUBLICATION in kinds(s) for s in SCENARIOS) >= 2
    assert len({tuple(kinds(s)) for s in SCENARIOS}) >= 4


def having(kind: StageKind) -> list[Scenario]:
    return [s for s in SCENARIOS if s.stage(kind) is not None]


def fitted_tokens(scenario: Scenario, compressed: bool = True) -> int:
    """The request's tokens at context fitting: its expected tools and its (compressed) messages."""
    fit = scenario.stage(StageKind.CONTEXT_FIT)
    messages = [m.as_dict() for m in scenario.request_messages]
    if compressed:
        messages = compress(messages, fit.keep_messages)
    return estimate_tokens([t.as_logical() for t in scenario.surface]) + estimate_tokens(messages)


@pytest.mark.parametrize("scenario", having(StageKind.CONTEXT_FIT), ids=lambda s: s.id)
def test_context_fit_compresses_and_fits_every_tool_unless_recorded_over_capacity(scenario: Scenario):
    fit = scenario.stage(StageKind.CONTEXT_FIT)
    assert isinstance(fit.keep_messages, int) and isinstance(fit.budget_tokens, int)
    # Compression must actually drop something, or the legitimate change tests nothing.
    assert len(scenario.request_messages) >= fit.keep_messages + 1
    # Once compressed, the request holds every tool, exactly when it is not recorded as a capacity
    # result: a fitter that drops tools is wrong, never forced.
    fits = fitted_tokens(scenario) <= fit.budget_tokens and (
        fit.max_tools is None or len(scenario.surface) <= fit.max_tools
    )
    assert fits == (scenario.outcome is RequestOutcome.DISPATCHED)


def test_one_budget_holds_the_tools_only_after_compression():
    """Where a fitter that sizes tools before compressing would drop some (topn-drop's flaw)."""
    tight = [
        s.id
        for s in having(StageKind.CONTEXT_FIT)
        if fitted_tokens(s, compressed=False) > s.stage(StageKind.CONTEXT_FIT).budget_tokens >= fitted_tokens(s)
    ]
    assert tight == ["etf-compare-main-openai"]


def test_main_research_recordings_are_long_enough_to_compress_twice():
    mains = [s for s in SCENARIOS if s.lane is Lane.MAIN and s.mode is Mode.RESEARCH]
    assert len(mains) >= 5
    # The fitter and the `legit.compress` mutation both need a middle to summarise.
    assert all(len(s.messages) >= s.stage(StageKind.CONTEXT_FIT).keep_messages - 1 >= 3 for s in mains)


@pytest.mark.parametrize("scenario", having(StageKind.EVIDENCE), ids=lambda s: s.id)
def test_evidence_adds_two_source_messages(scenario: Scenario):
    evidence = scenario.stage(StageKind.EVIDENCE)
    assert len(evidence.add_messages) == 2
    for message in evidence.add_messages:
        assert message.role in {"tool", "user"}
        assert "[evidence" in message.content


@pytest.mark.parametrize("scenario", having(StageKind.ASYNC_PREP), ids=lambda s: s.id)
def test_async_prep_attaches_traced_metadata(scenario: Scenario):
    metadata = scenario.stage(StageKind.ASYNC_PREP).metadata
    assert set(metadata["trace"]) >= {"trace_id", "span"}
    assert len(metadata) >= 2


def test_one_hooked_pipeline_is_synchronous():
    """Where the legacy path's hook check does settle its refusals, so RED shows more than one flaw."""
    assert "etf-performance-main-anthropic" in [
        s.id for s in SCENARIOS if s.hooks and s.stage(StageKind.ASYNC_PREP) is None
    ]


def test_publications_in_at_least_three_and_only_with_a_publication_stage():
    published = [s for s in SCENARIOS if s.publication is not None]
    assert len(published) >= 3
    for s in SCENARIOS:
        assert (s.publication is not None) == (StageKind.PUBLICATION in kinds(s)), s.id
    assert all(s.publication.body.strip() for s in published)


# -- messages ------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.id)
def test_conversation_is_a_recorded_tool_loop(scenario: Scenario):
    roles = [m.role for m in scenario.messages]
    assert roles[:2] == ["system", "user"]
    if scenario.mode is Mode.ENTRY:
        # An entry turn routes; it has no research tools to call.
        assert "tool" not in roles and "[tool_call" not in str(scenario.messages)
        return
    assert "assistant" in roles and "tool" in roles
    # Recorded calls only ever name a tool this request could see.
    text = "\n".join(m.content for m in scenario.messages)
    called = set(re.findall(r"\[tool_call (\S+)\]", text))
    assert called
    assert called <= {t.name for t in scenario.contract.surface}


# -- tools ---------------------------------------------------------------------------------------


def test_a_tool_reads_the_same_in_every_file():
    # The titles an MCP SDK generates into a schema aside (etf-compare-main-mcp-annotated has them).
    seen: dict[str, dict] = {}
    for s in SCENARIOS:
        for tool in all_tools(s):
            schema = tool.input_schema
            StripTitles.rewrite(schema)
            first = seen.setdefault(tool.name, {"description": tool.description, "schema": schema})
            assert tool.description == first["description"], (s.id, tool.name)
            assert dumps(schema) == dumps(first["schema"]), (s.id, tool.name)
    assert {
        "market__search_instruments",
        "market__get_instrument_profile",
        "market__web_search",
        "market__web_read",
        "portfolio__get_holdings",
        "market__get_price_history",
        CONTROL,
    } <= set(seen)


def test_documented_case_target_exists():
    # docs: schema.in_place:...:market__get_instrument_profile:/properties/symbol/type
    profiles = [
        tool for s in SCENARIOS for tool in s.contract.admitted if tool.name == "market__get_instrument_profile"
    ]
    assert profiles
    assert all(pointer(t.input_schema, "/properties/symbol/type") == "string" for t in profiles)


def unique_tools() -> list[ToolDescriptor]:
    return list({t.name: t for s in SCENARIOS for t in all_tools(s)}.values())


@pytest.mark.parametrize("tool", unique_tools(), ids=lambda t: t.name)
def test_tool_is_realistic(tool: ToolDescriptor):
    sentences = [part for part in re.split(r"(?<=[.:;])\s+(?=[A-Z])", tool.description) if part]
    # Real listings carry some descriptions of several KB, in paragraphs; the rest are short.
    assert 1 <= len(sentences) <= 4 or (len(tool.description) > 1024 and "\n\n" in tool.description)
    assert 500 <= len(tool.schema_json) <= 2048
    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    for ref in refs(schema):
        assert ref.startswith("#/$defs/")
        pointer(schema, ref[1:])  # resolves, or raises KeyError


def test_several_tools_use_defs_and_refs():
    with_refs = [t.name for t in unique_tools() if "$defs" in t.input_schema and any(refs(t.input_schema))]
    assert len(with_refs) >= 3


def subschemas(schema: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every schema nested below the top one (properties, items, $defs, oneOf...)."""
    for key, value in schema.items():
        children = value.values() if key in ("properties", "$defs") else value if key == "oneOf" else [value]
        for child in children:
            if isinstance(child, dict) and key in ("properties", "$defs", "items", "oneOf"):
                yield child
                yield from subschemas(child)


def test_schemas_use_nested_objects_arrays_enums_and_required():
    def count(predicate) -> int:
        return sum(any(map(predicate, subschemas(t.input_schema))) for t in unique_tools())

    assert count(lambda sub: sub.get("type") == "object" and "properties" in sub) >= 3
    assert count(lambda sub: sub.get("type") == "array") >= 3
    assert count(lambda sub: "enum" in sub) >= 3
    assert count(lambda sub: sub.get("additionalProperties") is False and "required" in sub) >= 3


# -- who may narrow the surface, recovery, capacity, checkpoints, entry ---------------------------


def narrowed(scenario: Scenario) -> set[str]:
    return {t.name for t in scenario.contract.surface} - {t.name for t in scenario.surface}


def test_a_trusted_budget_fact_hides_search_and_keeps_read_for_its_source_refs():
    trusted = [
        s
        for s in SCENARIOS
        if any(
            f.kind is FactKind.SEARCH_BUDGET_EXHAUSTED and scenarios.rule(f, s.binding, s.contract.web_tools).trusted
            for f in s.contract.facts
        )
    ]
    # One recorded before the pipeline, the others arriving mid-run: all have arrived by the last dispatch.
    arriving = sorted(any(f.arrives for f in s.contract.facts) for s in trusted)
    assert arriving.count(False) == 1 and arriving.count(True) >= 1
    for budget in trusted:
        assert narrowed(budget) == {budget.contract.web_tools.search}
    (budget,) = [s for s in trusted if not any(f.arrives for f in s.contract.facts)]
    web = budget.contract.web_tools
    assert narrowed(budget) == {web.search}
    fact = next(f for f in budget.contract.facts if f.kind is FactKind.SEARCH_BUDGET_EXHAUSTED)
    assert fact.source_refs and all(ref in str(budget.messages) for ref in fact.source_refs)


def test_a_trusted_deadline_fact_hides_both_web_tools_on_a_child():
    deadline = [
        s
        for s in SCENARIOS
        if s.contract.web_tools and narrowed(s) == {s.contract.web_tools.search, s.contract.web_tools.read}
    ]
    assert [s.lane for s in deadline] == [Lane.CHILD]


def test_facts_bound_to_someone_else_are_recorded_and_ignored():
    # Each fact-bearing recording also holds a sibling request's fact, which must change nothing.
    with_facts = [s for s in SCENARIOS if s.contract.facts]
    assert len(with_facts) >= 2
    for s in with_facts:
        ignored = [r for r in scenarios.rulings(s.contract.facts, s.binding, s.contract.web_tools) if not r.trusted]
        assert ignored and all("not this request's" in r.ignored_because for r in ignored), s.id


def test_every_recording_with_both_web_tools_names_them():
    for s in SCENARIOS:
        names = {t.name for t in s.contract.admitted}
        assert (s.contract.web_tools is not None) == ({"market__web_search", "market__web_read"} <= names), s.id


def test_one_recording_resumes_from_its_sealed_receipt_over_diagnostic_tool_results():
    from toolsurface.harness._reference._careless import diagnostic_hides

    (recovery,) = having(StageKind.RECOVER)
    assert recovery.stage(StageKind.RECOVER).receipt.startswith("rcpt_")
    assert not recovery.contract.facts and not narrowed(recovery)
    # The transcript carries diagnostics a re-parsing recovery would take for the web gateway's word.
    assert diagnostic_hides([m.as_dict() for m in recovery.messages], recovery.contract.web_tools)


def test_no_other_transcript_looks_like_availability():
    from toolsurface.harness._reference._careless import diagnostic_hides

    live = [s for s in SCENARIOS if s.stage(StageKind.RECOVER) is None]
    assert all(not diagnostic_hides([m.as_dict() for m in s.messages], s.contract.web_tools) for s in live)


def test_two_recordings_are_over_capacity_and_offer_only_the_points_before_fitting():
    over = [s for s in SCENARIOS if s.outcome is RequestOutcome.CAPACITY]
    assert [s.id for s in over] == ["desk-research-main-openai-over-tool-limit", "holdings-review-main-over-capacity"]
    assert all(s.hooks and s.points == ("hook", "post_revalidation") for s in over)


def test_one_owner_revalidation_rebuilds_the_tools_after_hooks_ran():
    rebuilt = [s for s in SCENARIOS if (stage := s.stage(StageKind.REVALIDATE)) is not None and stage.rebuild]
    assert [s.hooks for s in rebuilt] == [True]


def test_one_entry_request_states_access_only_and_carries_no_research_tools():
    (entry,) = [s for s in SCENARIOS if s.mode is Mode.ENTRY]
    assert entry.contract.admitted == () and entry.contract.admitted_elsewhere
    assert {c.access.value for c in entry.contract.capabilities} == {"accessible", "reference approved", "not granted"}
    assert entry.request_messages[0].content == entry.contract.summary
