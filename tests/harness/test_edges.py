"""Every limit a recording declares, at its edge: derived scenarios where the request's measure is
the limit − 1, the limit and the limit + 1, planned with few cases, and judged so that a host that
leaves any one tool out of its count, or counts any one twice, fails one of them."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.contract._guard import Capacity, estimate_tokens
from toolsurface.harness._capacity import counted, judged_on
from toolsurface.harness._edges import edges_of, with_edges
from toolsurface.harness._mcp import McpCatalogue
from toolsurface.harness._plan import plan
from toolsurface.mutators import Kind
from toolsurface.mutators._strategies import scenarios_for, surfaces
from toolsurface.scenarios import Edge, Limit, RequestOutcome, Stage, StageKind, load

#: Over its recorded max_tools (140 tools for 128), so its token budget never decides.
OVER_LIMIT = "desk-research-main-openai-over-tool-limit"
#: What each offset must end in: one under the limit and at it the request fits; one over, it does not.
ENDS = {-1: RequestOutcome.DISPATCHED, 0: RequestOutcome.DISPATCHED, 1: RequestOutcome.CAPACITY}


@pytest.fixture(scope="module")
def recorded():
    return load()


@pytest.fixture(scope="module")
def derived(recorded):
    return with_edges(recorded)[len(recorded) :]


def fit_of(scenario):
    return next(stage for stage in scenario.stages if stage.budget_tokens is not None)


def test_each_declared_limit_gets_three_edges_named_by_the_limit_and_the_offset(recorded, derived):
    by_source = {}
    for scenario in derived:
        by_source.setdefault(scenario.edge.source, []).append(str(scenario.edge))
        assert scenario.id == f"{scenario.edge.source}@{scenario.edge}"
    by_id = {scenario.id: scenario for scenario in recorded}
    for source, edges in by_source.items():
        scenario = by_id[source]
        # A request over one fit limit has no edge of the other: that one never decides.
        limits = [] if source == OVER_LIMIT else [Limit.BUDGET_TOKENS]
        if fit_of(scenario).max_tools is not None:
            limits.insert(0, Limit.MAX_TOOLS)
        if scenario.mcp is not None and scenario.mcp.page_size is not None:
            limits.append(Limit.PAGE_SIZE)
        # Messages appended after the fit: a host may count at the fit or as sent; only one over do both agree.
        fit = fit_of(scenario)
        grows = any(
            s.add_messages or s.kind.value == "publication" for s in scenario.stages[scenario.stages.index(fit) :]
        )
        offsets = {limit: (1,) if limit is Limit.BUDGET_TOKENS and grows else (-1, 0, 1) for limit in limits}
        assert edges == [
            f"{limit}{offset:+d}" if offset else str(limit) for limit in limits for offset in offsets[limit]
        ]
    assert f"{OVER_LIMIT}@max_tools" in {s.id for s in derived}
    assert {"web-read-child-single-tool@budget_tokens+1", "holdings-review-main-no-evidence@budget_tokens-1"} <= {
        s.id for s in derived
    }
    assert "web-read-child-single-tool@budget_tokens" not in {s.id for s in derived}


def test_a_request_of_several_calls_or_with_facts_arriving_mid_request_gets_no_fit_edge(recorded):
    by_id = {scenario.id: scenario for scenario in recorded}
    assert by_id["etf-compare-main-tool-loop"].model_calls > 1
    assert edges_of(by_id["etf-compare-main-tool-loop"]) == ()
    late = by_id["etf-compare-main-late-budget"]
    assert late.surface != late.narrowed_by((), 0)
    assert edges_of(late) == ()


def test_the_limit_is_set_at_the_measure_a_host_counts_and_the_outcome_follows(derived):
    for scenario in (s for s in derived if s.edge.limit is not Limit.PAGE_SIZE):
        tools, fitted = counted(scenario)
        fit = fit_of(scenario)
        measure = (
            len(tools)
            if scenario.edge.limit is Limit.MAX_TOOLS
            else (sum(map(estimate_tokens, tools)) + estimate_tokens(fitted))
        )
        assert measure == scenario.edge.measure
        assert getattr(fit, scenario.edge.limit.value) == measure - scenario.edge.offset
        over = Capacity(fit.budget_tokens, fit.max_tools).exceeded(tools, fitted) is not None
        assert (
            scenario.outcome
            is ENDS[scenario.edge.offset]
            is (RequestOutcome.CAPACITY if over else RequestOutcome.DISPATCHED)
        )
        assert scenario.edge.said in scenario.description


def test_a_page_size_edge_puts_the_last_tool_the_request_needs_on_the_next_page(derived):
    pages = [s for s in derived if s.edge.limit is Limit.PAGE_SIZE]
    assert [s.edge.offset for s in pages] == [-1, 0, 1]
    for scenario in pages:
        needed = {tool.name for tool in scenario.contract.surface}
        first = McpCatalogue(scenario).list_tools()
        on_first = needed <= {tool.name for tool in first.tools}
        assert scenario.mcp.page_size == scenario.edge.measure - scenario.edge.offset
        assert on_first is (scenario.edge.offset < 1)
        assert scenario.outcome is RequestOutcome.DISPATCHED


def test_an_edge_is_planned_with_the_unchanged_request_and_at_the_limit_the_added_tool(derived):
    cases = plan(derived, 0)
    assert cases
    by_scenario = {}
    for case in cases:
        by_scenario.setdefault(case.scenario, set()).add(case.mutation.kind)
        assert case.mutation.kind in (Kind.LEGITIMATE, Kind.ADD)
        assert case.mutation.mutator == "legit.unchanged" or case.mutation.kind is Kind.ADD
    for scenario in derived:
        kinds = by_scenario.get(scenario.id, set())
        if scenario.edge.offset == 0:
            assert kinds == {Kind.LEGITIMATE, Kind.ADD}, scenario.id
        else:
            assert kinds <= {Kind.LEGITIMATE}, scenario.id
    # One unchanged case per edge, at its first boundary, so that what the fit decides after it is
    # judged; the added tool at the last, where the final check sees it.
    unchanged = [case for case in cases if case.mutation.mutator == "legit.unchanged"]
    assert len({case.scenario for case in unchanged}) == len(unchanged) == len(derived)
    by_id = {scenario.id: scenario for scenario in derived}
    for case in cases:
        offered = by_id[case.scenario].checkpoints
        assert case.boundary == (offered[0] if case.mutation.kind is Kind.LEGITIMATE else offered[-1])


def test_a_target_counting_otherwise_is_judged_by_its_own_count_at_a_budget_edge(derived):
    over = next(s for s in derived if s.edge.limit is Limit.BUDGET_TOKENS and s.edge.offset == 1)
    under = next(s for s in derived if s.edge.limit is Limit.BUDGET_TOKENS and s.edge.offset == -1)
    assert judged_on(None, over).outcome is RequestOutcome.CAPACITY
    assert judged_on(lambda value: 0, over).outcome is RequestOutcome.DISPATCHED
    assert judged_on(lambda value: 10 * estimate_tokens(value), under).outcome is RequestOutcome.CAPACITY
    # A tool-count edge is the same count for every target.
    tools = next(s for s in derived if s.edge.limit is Limit.MAX_TOOLS and s.edge.offset == 1)
    assert judged_on(lambda value: 0, tools).outcome is RequestOutcome.CAPACITY


@st.composite
def fitted_scenarios(draw):
    """A generated single-call scenario with a context fit and, maybe, a tool limit, in any tool format."""
    scenario = draw(surfaces(min_size=1, max_size=6).flatmap(scenarios_for))
    fit = Stage(StageKind.CONTEXT_FIT, keep_messages=draw(st.integers(3, 6)), budget_tokens=10**6,
                max_tools=draw(st.sampled_from([None, 128])))  # fmt: skip
    fmt = draw(st.sampled_from(["logical", "openai", "anthropic", "mcp"]))
    return dataclasses.replace(scenario, stages=(fit, Stage(StageKind.SEAL)), tool_format=fmt)


@settings(max_examples=100, deadline=None)
@given(fitted_scenarios(), st.data())
def test_a_count_that_leaves_out_or_repeats_any_one_tool_is_wrong_at_an_edge(scenario, data):
    tools, fitted = counted(scenario)
    edges = {(s.edge.limit, s.edge.offset): fit_of(s) for s in edges_of(scenario)}
    limits = {Limit.BUDGET_TOKENS} | ({Limit.MAX_TOOLS} if fit_of(scenario).max_tools is not None and tools else set())
    assert {limit for limit, _ in edges} == limits
    if not tools:
        return
    left_out = data.draw(st.integers(0, len(tools) - 1))
    fewer, more = tools[:left_out] + tools[left_out + 1 :], [*tools, tools[left_out]]
    for limit in limits:

        def fits(stage, counting):
            return Capacity(stage.budget_tokens, stage.max_tools).exceeded(counting, fitted) is None

        # Whatever kind the tool is (admitted, control, web tool), the request one over the limit
        # fits a count without it, and the request at the limit does not fit a count with it twice.
        assert fits(edges[limit, 1], fewer) and not fits(edges[limit, 1], tools)
        assert not fits(edges[limit, 0], more) and fits(edges[limit, 0], tools)
        assert fits(edges[limit, -1], more) if limit is Limit.MAX_TOOLS else fits(edges[limit, -1], tools)


def test_an_edge_in_words_says_the_limit_the_measure_and_where_it_sits():
    assert Edge(Limit.MAX_TOOLS, 1, 128, "x").said == "max_tools set to 127, the request holding 128 tools: one over it"
    assert str(Edge(Limit.BUDGET_TOKENS, -1, 900, "x")) == "budget_tokens-1"
    assert str(Edge(Limit.PAGE_SIZE, 0, 5, "x")) == "page_size"
    assert Edge(Limit.PAGE_SIZE, 1, 5, "x").said == (
        "page_size set to 4, the last tool the request needs number 5 listed: one over it"
    )
