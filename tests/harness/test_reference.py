"""The reference pipelines on the bundled scenarios: the guard holds, the old path and every
defect variant fail where they should."""

from collections import Counter

import pytest

from tests.fixtures.frameworks import settled
from tests.fixtures.planned import planned
from toolsurface.harness._capacity import judged_on
from toolsurface.harness._oracles import judge
from toolsurface.harness._reference import DEFECTS
from toolsurface.harness._runner import Runner, alarm_handler, expected_surface, observe
from toolsurface.harness._targets import load_target, load_with_traits
from toolsurface.harness._types import Ending, VerdictKind
from toolsurface.mutators import Claim, FactField, Forgery, Must, Reach, by_key
from toolsurface.scenarios import POINTS, RequestOutcome, StageKind, load, rule

SIX_KINDS = {"add", "delete", "rename", "reorder", "description", "schema"}
KILLS = {VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT}


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    """The catalogue's cases: the defects here are each one step of the guard or its pipeline, and
    the cases derived from the contract (near misses, keyword edits: `Reach.LAST`) test how it
    compares, which tests/mutators and the default run hold whole."""
    return tuple(case for case in planned(0) if by_key(case.mutation.mutator).reach is Reach.EVERY)


def verdicts(scenarios, cases, spec):
    return list(Runner(scenarios, load_target(spec)).run(cases))


@pytest.fixture(scope="module")
def guarded(scenarios, cases):
    return verdicts(scenarios, cases, "reference:guarded")


@pytest.fixture(scope="module")
def green(guarded):
    return {r.case.id for r in guarded if r.verdict.kind.ok}


def kills(scenarios, cases, green, defect):
    """The cases a defect fails (survives or falsely rejects) that the guard passes."""
    results = verdicts(scenarios, cases, f"reference:defect/{defect}")
    return [r for r in results if r.verdict.kind in KILLS and r.case.id in green]


def test_the_default_matrix_is_large_and_complete(scenarios, cases):
    assert len(cases) >= 500
    assert len({c.id for c in cases}) == len(cases)
    assert {c.lane.value for c in cases} == {"main", "child"}
    assert {c.hooks for c in cases} == {True, False}
    assert {c.mutation.kind.value for c in cases} == {
        *SIX_KINDS,
        "control",
        "availability",
        "entry",
        "wire",
        "legit",
        "mcp",
    }
    # Every kind but entry (one recording) reaches every point that more than one recording offers.
    for point in POINTS:
        at_point = {c.mutation.kind.value for c in cases if c.point == point}
        assert at_point >= SIX_KINDS | {"legit"}, point
        if point != "post_recovery":
            assert "availability" in at_point and "control" in at_point, point


def test_guarded_kills_or_passes_every_case(guarded):
    bad = [(r.case.id, r.verdict) for r in guarded if not r.verdict.kind.ok]
    assert bad == []
    counts = Counter(r.verdict.kind for r in guarded)
    assert counts[VerdictKind.KILLED] and counts[VerdictKind.PASSED] and counts[VerdictKind.EQUIVALENT]


def test_legacy_lets_at_least_13_through_over_all_six_kinds(scenarios, cases):
    survivors = [r for r in verdicts(scenarios, cases, "reference:legacy") if r.verdict.kind is VerdictKind.SURVIVED]
    assert len(survivors) >= 13
    assert {r.case.mutation.kind.value for r in survivors} >= SIX_KINDS
    assert any("never settled" in r.verdict.reason for r in survivors)  # the async-prep path
    assert any(r.evidence.dispatches for r in survivors)


def judged_once(scenarios, cases, spec):
    """Each case with its verdict from one run of it, as the defect probe judges one: without the
    follow-up request a whole run adds, which these tests do not read. Lazily, in plan order."""
    host, by_id = load_with_traits(spec), {s.id: s for s in scenarios}
    with alarm_handler():
        for case in cases:
            if case.equivalent:
                continue
            scenario = by_id[case.scenario]
            observed = observe(host, case, scenario, 10.0)
            yield (
                case,
                judge(
                    case,
                    observed,
                    judged_on(host.traits.estimate_tokens, scenario),
                    expected_surface(host.traits, scenario, case),
                ),
            )


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_every_defect_is_killed(scenarios, cases, defect):
    # In plan order up to the first case that kills it (one defect dies only on a couple of the
    # catalogue's cases; `toolsurface run --defects` lists them all), and on every 48th case besides.
    spec = f"reference:defect/{defect}"
    verdicts = []
    for _, verdict in judged_once(scenarios, cases, spec):
        verdicts.append(verdict)
        if verdict.kind in KILLS:
            break
    assert verdicts[-1].kind in KILLS, f"{defect} survived every case"
    verdicts += [verdict for _, verdict in judged_once(scenarios, cases[::48], spec)]
    # A variant that crashes proves nothing. (topn-drop does leave later mutations without a tool
    # to edit: those cases are errors of the "could not be applied" kind, honestly.)
    errors = [v.reason for v in verdicts if v.kind is VerdictKind.ERROR]
    assert all(reason.startswith("mutation could not be applied at ") for reason in errors)


def test_shared_reference_misses_in_place_edits_only(scenarios, cases):
    # Where recovery or re-validation rebuilds the tools, the shared baseline no longer shares them
    # with the request; where the host lists its MCP server again, the guard compares the server's
    # list with that baseline, and sees the edit there.
    rebuilt = {
        s.id
        for s in scenarios
        if ((revalidate := s.stage(StageKind.REVALIDATE)) and revalidate.rebuild)
        or s.stage(StageKind.RECOVER)
        or s.mcp is not None
    }
    late_schema = [
        c for c in cases if c.mutation.kind == "schema" and c.point == "async_prep" and c.scenario not in rebuilt
    ]
    in_place = [c for c in late_schema if c.mutation.delivery == "in_place"]
    replace = [c for c in late_schema if c.mutation.delivery == "replace"]
    runner = Runner(scenarios, load_target("reference:defect/shared-ref"))
    assert {r.verdict.kind for r in runner.run(in_place)} == {VerdictKind.SURVIVED}
    assert {r.verdict.kind for r in runner.run(replace)} == {VerdictKind.KILLED}


@pytest.mark.whole_matrix
def test_name_keyed_is_blind_to_order_only(scenarios, cases):
    runner = Runner(scenarios, load_target("reference:defect/name-keyed"))
    failing = [r.case for r in runner.run(cases) if not r.verdict.kind.ok]
    assert {c.mutation.kind.value for c in failing} == {"reorder", "availability"}
    # A map by name is blind to a duplicate too: a hidden tool revealed while its original is still
    # live, before the fact that hides it arrives, and narrowed away with it afterwards.
    revealed = {(c.scenario, c.mutation.variant) for c in failing if c.mutation.kind == "availability"}
    assert revealed == {("etf-compare-main-late-budget", "reveal"), ("etf-compare-main-tool-loop", "reveal")}


@pytest.mark.whole_matrix
def test_lane_receipt_and_publication_defects_fail_for_their_own_reason(scenarios, cases):
    def survivors(defect):
        judged = judged_once(scenarios, cases, f"reference:defect/{defect}")
        return [(case, verdict.reason) for case, verdict in judged if verdict.kind is VerdictKind.SURVIVED]

    wrong_lane = survivors("wrong-lane-settle")
    assert wrong_lane and all(case.lane.value == "child" for case, _ in wrong_lane)
    assert all("reservation child:" in reason and "never settled" in reason for _, reason in wrong_lane)
    receipts = survivors("second-receipt")
    assert receipts and all("second settlement" in reason for _, reason in receipts)
    dropped = survivors("drops-publication")
    assert dropped and all("publication" in reason and "removed" in reason for _, reason in dropped)
    assert {case.scenario for case, _ in dropped} == {s.id for s in scenarios if s.publication is not None}


def test_laundering_is_caught_only_by_the_early_check(scenarios, cases):
    runner = Runner(scenarios, load_target("reference:defect/final-only-laundering"))
    survivors = {r.case.point for r in runner.run(cases) if r.verdict.kind is VerdictKind.SURVIVED}
    assert survivors == {"hook", "post_recovery"}  # the points before owner re-validation


def test_without_an_early_check_only_a_revalidation_that_changes_the_tools_launders(scenarios, cases, green):
    killed = kills(scenarios, cases, green, "final-only")
    rebuilt = {s.id for s in scenarios if (revalidate := s.stage(StageKind.REVALIDATE)) and revalidate.rebuild}
    narrowed = {s.id for s in scenarios if len(s.surface) < len(s.contract.surface)}
    assert {r.case.point for r in killed} == {"hook"}
    assert rebuilt <= {r.case.scenario for r in killed} <= rebuilt | narrowed
    # Re-validation that narrows by trusted facts launders one hook edit: showing a hidden tool.
    assert {r.case.mutation.variant for r in killed if r.case.scenario not in rebuilt} == {"reveal"}
    assert all(r.verdict.kind is VerdictKind.SURVIVED and r.evidence.diff == () for r in killed)  # sent as admitted


# -- who may narrow the surface -------------------------------------------------------------------


def test_look_alike_facts_and_diagnostics_go_through_with_the_full_expected_surface(scenarios, cases):
    controls = [
        c
        for c in cases
        if c.mutation.variant in ("spoof", "forged_fact", "look_alike_fact", "foreign_owner_fact", "parent_fact")
    ]
    results = verdicts(scenarios, controls, "reference:guarded")
    by_id = {s.id: s for s in scenarios}
    assert {r.verdict.kind for r in results} == {VerdictKind.PASSED}
    dispatched = [r for r in results if by_id[r.case.scenario].outcome is RequestOutcome.DISPATCHED]
    assert dispatched and all(r.evidence.ending is Ending.DISPATCHED and r.evidence.diff == () for r in dispatched)
    forged = [r for r in results if r.case.mutation.variant == "forged_fact"]
    assert all(any(not ruling.trusted for ruling in r.evidence.availability) for r in forged)


def test_trusted_narrowing_is_the_expected_surface(scenarios, cases):
    narrowed = [s for s in scenarios if len(s.surface) < len(s.contract.surface)]
    assert len(narrowed) >= 2
    legit = [c for c in cases if c.scenario in {s.id for s in narrowed} and c.mutation.kind == "legit"]
    results = verdicts(scenarios, legit, "reference:guarded")
    assert {r.verdict.kind for r in results} == {VerdictKind.PASSED}
    for r in results:
        trusted = [ruling for ruling in r.evidence.availability if ruling.trusted]
        assert trusted and all(ruling.hides for ruling in trusted)


def test_diagnostic_authority_hides_web_search_on_a_diagnostic_word(scenarios, cases, green):
    killed = kills(scenarios, cases, green, "diagnostic-authority")
    variants = {r.case.mutation.variant for r in killed}
    assert {"spoof", "hide_search"} <= variants
    survived = [r for r in killed if r.verdict.kind is VerdictKind.SURVIVED and r.case.mutation.variant == "spoof"]
    # A spoofed budget or deadline hides web search, or web read where a trusted fact hid search already.
    removed = ("removed 'market__web_search'", "removed 'market__web_read'")
    assert survived and all(any(tool in r.verdict.reason for tool in removed) for r in survived)


def test_identity_blind_is_killed_by_forged_and_sibling_facts_only(scenarios, cases, green):
    killed = kills(scenarios, cases, green, "identity-blind")
    with_sibling_facts = {s.id for s in scenarios if s.contract.facts}
    forgeries = {"forged_fact", "look_alike_fact", "foreign_owner_fact", "parent_fact"}
    assert {r.case.mutation.variant for r in killed if r.case.scenario not in with_sibling_facts} == forgeries
    forged = {r.case.mutation.aim for r in killed if r.case.mutation.variant == "forged_fact"}
    assert forged == {Forgery(field) for field in FactField}


def test_budget_hides_read_fails_only_where_a_budget_fact_keeps_read(scenarios, cases, green):
    killed = kills(scenarios, cases, green, "budget-hides-read")
    keeps_read = {
        s.id for s in scenarios if any(f.source_refs for f in s.contract.facts if scenarios_rule_trusts(s, f))
    }
    assert keeps_read == {
        "etf-news-main-budget-exhausted",
        "etf-compare-main-late-budget",
        "etf-compare-main-tool-loop",
    }
    # Elsewhere only where a trusted budget fact that lists a source is recorded mid-run.
    late = {r.case.scenario for r in killed if r.case.mutation.variant == "trusted_fact"}
    assert {r.case.scenario for r in killed} - late == keeps_read
    assert all(
        str(r.case.mutation.aim) == "search_budget_exhausted"
        for r in killed
        if r.case.mutation.variant == "trusted_fact"
    )
    assert any("removed 'market__web_read'" in r.verdict.reason for r in killed)


def scenarios_rule_trusts(scenario, fact):
    return rule(fact, scenario.binding, scenario.contract.web_tools).trusted


def test_recovery_reparse_fails_only_on_the_resumed_request(scenarios, cases, green):
    killed = kills(scenarios, cases, green, "recovery-reparse")
    assert killed and {r.case.scenario for r in killed} == {s.id for s in scenarios if s.stage(StageKind.RECOVER)}


# -- capacity, entry ------------------------------------------------------------------------------


def test_over_capacity_is_an_explicit_result_never_a_shortened_list(scenarios, cases, green):
    over, over_limit = (
        next(s for s in scenarios if s.id == name)
        for name in ("holdings-review-main-over-capacity", "desk-research-main-openai-over-tool-limit")
    )
    assert {s.id for s in scenarios if s.outcome is RequestOutcome.CAPACITY} == {over.id, over_limit.id}
    mine = [c for c in cases if c.scenario == over.id]
    guarded = verdicts(scenarios, [c for c in mine if c.must is Must.DISPATCH], "reference:guarded")
    assert guarded and all(
        r.verdict.kind is VerdictKind.PASSED and r.evidence.ending is Ending.CAPACITY for r in guarded
    )
    assert all(settled(r) == ("main: settle req_main_0024 as pre_dispatch_rejected",) for r in guarded)
    killed = kills(scenarios, cases, green, "silent-capacity-drop")
    # Its cut counts tokens only: 140 tools within the budget go out past the provider's limit of 128.
    assert {r.case.scenario for r in killed} == {over.id, over_limit.id}
    dispatched_legit = [r for r in killed if r.case.must is Must.DISPATCH]
    assert dispatched_legit and all(
        "instead of an explicit capacity result" in r.verdict.reason for r in dispatched_legit
    )


def test_entry_overclaims_are_refused_and_only_the_summary_check_catches_them(scenarios, cases, green):
    entry = [c for c in cases if c.mutation.kind == "entry"]
    assert {c.mutation.aim for c in entry} >= {Claim("portfolio"), Claim("document")}
    assert {r.verdict.kind for r in verdicts(scenarios, entry, "reference:guarded")} == {VerdictKind.KILLED}
    killed = kills(scenarios, cases, green, "entry-overclaim")
    assert {r.case.mutation.kind.value for r in killed} == {"entry"}
    assert all(any(line.startswith("summary claims '- ") for line in r.evidence.diff) for r in killed)
