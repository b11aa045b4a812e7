"""A case record is trusted on reading only as far as the oracle could have written it: genuine runs
of every target pass the rules, and every edit that makes a verdict lie is named at its JSON path."""

from dataclasses import replace

import pytest

from tests.fixtures.frameworks import catalogue_at
from toolsurface.contract._owner import Settlement
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._codes import ReasonCode as C
from toolsurface.harness._integrity import check_cases
from toolsurface.harness._oracles import (
    CAPACITY_RESULT,
    DISPATCHED_AS_EXPECTED,
    EQUIVALENT,
    KILLED,
)
from toolsurface.harness._types import (
    Crashed,
    LedgerEvent,
    LedgerOp,
    PublicationsDiff,
    Published,
    TimedOut,
    Verdict,
    VerdictKind,
)
from toolsurface.mutators import Must

#: Every scenario after sealing (the cases derived from the contract on one of them, the catalogue
#: on the others), the over-capacity one at its hook and the recovery one at one point: every kind of
#: ending.
SELECT = [
    *catalogue_at("*/post_seal"),
    "etf-compare-main-hooked/*/post_seal/*",
    "holdings-review-main-over-capacity/*/hook/*",
    "etf-compare-main-recovery/*/evidence/*",
]
SPEC = "tests.fixtures.user_targets:{}"
HOSTILE = "tests.fixtures.hostile_hosts:{}"
ALL = set(VerdictKind)
K, P, S, F, E, Q = (
    VerdictKind.KILLED,
    VerdictKind.PASSED,
    VerdictKind.SURVIVED,
    VerdictKind.FALSE_REJECT,
    VerdictKind.ERROR,
    VerdictKind.EQUIVALENT,
)


#: Cases of a recording with a publication, on the child lane: its draft is `draft/req_child_0022`.
DRAFTED = "filings-scan-child-deadline/*/no-hooks/evidence/*"


#: What a hostile host does, it does on every request: a third of the selection shows it.
THIRD = "1/3"


def recorded(**options):
    session = prepare(RunOptions(**{"select": SELECT, "grace": 60, **options}))
    return session.info, tuple(session.records())


#: Genuine runs, with the verdicts each must hold (so that the rules are shown to pass each of them).
GENUINE = {
    # Every case runs each of the 35 defects: a sixth of the selection holds every verdict here.
    "the guard, paired with the legacy path, with the defects": ({"defects": True, "shard": "1/6"}, {K, P, Q}),
    # The legacy path dispatches what its diagnostics and its fitter leave, never refusing a legitimate change.
    "the legacy path alone": ({"target": "reference:legacy", "red_target": "none"}, ALL - {F}),
    "a defect paired with the guard": (
        {"target": "reference:defect/no-settle", "red_target": "reference:guarded"},
        {P, S, Q},
    ),
    "a publication lost": ({"target": "reference:defect/drops-publication", "red_target": "none"}, {K, P, S, Q}),
    "a draft published, then refused": (
        {"target": SPEC.format("PublishesDraft"), "red_target": "none", "select": [DRAFTED]},
        {P, S},
    ),
    "a second receipt": ({"target": "reference:defect/second-receipt", "red_target": "none"}, {P, S, F, Q}),
    "a top-N cut": ({"target": "reference:defect/topn-drop", "red_target": "none"}, {K, P, F, E, Q}),
    "a crashing target": ({"target": SPEC.format("Crashing"), "red_target": "none"}, {E, Q}),
    "a target that touches nothing": ({"target": SPEC.format("Idle"), "red_target": "none"}, {E, Q}),
    "a target that offers no point": ({"target": SPEC.format("NoInjection"), "red_target": "none"}, {E, Q}),
    "a target that settles twice": ({"target": SPEC.format("DoubleSettle"), "red_target": "none"}, {P, S, Q}),
    "a host whose in-place edits outlive their request": (
        {"target": HOSTILE.format("CachesTools"), "shard": THIRD},
        {K, P, S, Q},
    ),
    "a host that re-sends refused requests late": (
        {"target": HOSTILE.format("RetriesLater"), "shard": THIRD},
        {P, S, Q},
    ),
    "a host whose process exits": ({"target": HOSTILE.format("Exits"), "shard": THIRD}, {K, P, E, Q}),
    "a host that forks": ({"target": HOSTILE.format("Forks"), "jobs": 1, "shard": THIRD}, {K, P, E, Q}),
    "a host that leaves threads running past the grace period": (
        {"target": SPEC.format("LeavesAThreadForever"), "grace": 0.1, "shard": THIRD},
        {E, Q},
    ),
    "a host whose follow-up requests fail": (
        {"target": SPEC.format("FailsEverySecondRequest"), "red_target": "none"},
        {E, Q},
    ),
    "a host that fails its third request": (
        {"target": HOSTILE.format("FailsThirdRequest"), "jobs": 1, "shard": THIRD},
        {K, P, E, Q},
    ),
    "a host whose finalizers settle again": (
        {"target": HOSTILE.format("SettlesAgainWhenReplaced"), "shard": THIRD},
        {P, S, Q},
    ),
    "a host whose format has no place for a wire field": (
        {"target": "tests.fixtures.wire_hosts:OpenAIWire", "red_target": "none"},
        {K, Q},
    ),
}


@pytest.mark.parametrize(("options", "kinds"), GENUINE.values(), ids=GENUINE.keys())
def test_every_genuine_run_is_consistent(options, kinds):
    run, cases = recorded(**options)
    assert {case.verdict.kind for case in cases} >= kinds
    assert check_cases(run, cases) is None


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("integrity")


@pytest.fixture(scope="module")
def legacy():
    return recorded(target="reference:legacy", red_target="none")


@pytest.fixture(scope="module")
def paired():
    return recorded()


def at(cases, test):
    return next(index for index, case in enumerate(cases) if test(case))


def kind(verdict, start=""):
    return lambda case: case.verdict.kind is verdict and case.verdict.reason.startswith(start)


def with_evidence(**evidence):
    return lambda case: replace(case, evidence=replace(case.evidence, **evidence))


def with_ledger(edit):
    return lambda case: replace(case, evidence=replace(case.evidence, ledger=edit(*case.evidence.ledger)))


def settled_as_dispatched(reserve, settle):
    return reserve, replace(settle, settlement=Settlement.DISPATCHED)


def another_reservation(reserve, settle):
    return reserve, LedgerEvent(reserve.lane, LedgerOp.RESERVE, "req_other"), settle


#: An edit of one case of the legacy run: which case, how it is edited, where the error points, and what it says.
EDITS = {
    "a dispatched survivor called killed": (
        kind(S, "dispatched 1 request(s)"),
        lambda c: replace(c, verdict=KILLED),
        "verdict.kind",
        "killed, but 1 request(s) were dispatched",
    ),
    "an unsettled refusal called killed": (
        kind(S, "refused, but reservation"),
        lambda c: replace(c, verdict=KILLED),
        "verdict.kind",
        "killed, but reservation {lane}:{request} was never settled",
    ),
    "a refusal settled as dispatched called killed": (
        kind(K),
        with_ledger(settled_as_dispatched),
        "verdict.kind",
        "killed, but reservation settled as dispatched, expected pre_dispatch_rejected",
    ),
    "a kill with a reservation left open": (
        kind(K),
        with_ledger(another_reservation),
        "verdict.kind",
        "killed, but reservation left open: {lane}:req_other",
    ),
    "a crash called killed": (
        kind(K),
        with_evidence(stop=Crashed("RuntimeError", "boom", "Traceback")),
        "verdict.kind",
        "killed, but the target's run stopped as crashed",
    ),
    "a kill that never reached its point": (
        kind(K),
        with_evidence(points=()),
        "verdict.kind",
        "killed, but the target never offered its injection point {point!r}",
    ),
    "a changed surface sent, called passed": (
        kind(S, "dispatched a surface that differs"),
        lambda c: replace(c, verdict=DISPATCHED_AS_EXPECTED),
        "verdict.kind",
        "passed, but the request sent differs from the expected one: {diff}",
    ),
    "a shortened list instead of a capacity result, called passed": (
        kind(S, "dispatched 2 of 5 required tools"),
        lambda c: replace(c, verdict=CAPACITY_RESULT),
        "verdict.kind",
        "passed, but 1 request(s) were dispatched where only a capacity result is right",
    ),
    "an error whose target ran to an end": (
        kind(E),
        lambda c: replace(c, verdict=Verdict(E, "target timed out", C.TIMED_OUT)),
        "verdict.kind",
        "error, but the target ran to an end (dispatched), offered {point!r} and reached the ports",
    ),
    "a crash given another code": (
        kind(E),
        with_evidence(stop=Crashed("RuntimeError", "boom", "Traceback")),
        "verdict.kind",
        "error, but the target's run stopped as crashed, and the code is not the oracle's for that, crashed",
    ),
    "a survivor with nothing wrong": (
        kind(K),
        lambda c: replace(c, verdict=Verdict(S, "refused, but publication 'p' lost", C.REFUSED_UNSETTLED)),
        "verdict.kind",
        "survived, but the ledger shows the reservation settled as pre_dispatch_rejected, and nothing else amiss",
    ),
    # The code decides, not the words: a reason that names a lost publication does not make a
    # verdict whose code says the ledger is amiss hold, nor does a code that says requests were
    # refused hold over a record of requests dispatched.
    "a dispatched survivor coded as refused": (
        kind(S, "dispatched 1 request(s)"),
        lambda c: replace(c, verdict=replace(c.verdict, code=C.REFUSED_UNSETTLED)),
        "verdict.kind",
        "survived, but 1 request(s) were dispatched, which refused_unsettled says were not",
    ),
    "an unsettled refusal coded as dispatched": (
        kind(S, "refused, but reservation"),
        lambda c: replace(c, verdict=replace(c.verdict, code=C.DISPATCHED_WITH_CHANGE)),
        "verdict.kind",
        "survived, but nothing was dispatched, which dispatched_with_change says was",
    ),
    "a failed injection coded as nothing observed": (
        kind(E),
        lambda c: replace(c, verdict=replace(c.verdict, code=C.NOTHING_OBSERVED)),
        "verdict.kind",
        "error, but the target ran to an end ({ending}), offered {point!r} and reached the ports",
    ),
    "a pass coded as a capacity result": (
        kind(P),
        lambda c: replace(c, verdict=replace(c.verdict, code=C.CAPACITY_RESULT)),
        "verdict.code",
        "capacity_result is not a code the oracle gives a passed verdict here",
    ),
    "a kill of a change that must be dispatched": (
        kind(P),
        lambda c: replace(c, verdict=KILLED),
        "verdict.kind",
        "killed: a verdict the oracle never gives a case whose mutation a guard must dispatch",
    ),
    "an equivalent verdict on a change": (
        kind(K),
        lambda c: replace(c, verdict=EQUIVALENT),
        "verdict.kind",
        "equivalent: a verdict the oracle never gives a case whose mutation a guard must refuse",
    ),
    "an equivalent case said to be killed": (
        kind(Q),
        lambda c: replace(c, verdict=KILLED),
        "verdict.kind",
        "killed: a verdict the oracle never gives a case whose mutation changes nothing (it is equivalent)",
    ),
    "a kill with another verdict's code": (
        kind(K),
        lambda c: replace(c, verdict=Verdict(K, KILLED.reason, C.DISPATCHED_WITH_CHANGE)),
        "verdict.code",
        "dispatched_with_change is not a code the oracle gives a killed verdict here",
    ),
    "a recording the run never made": (
        kind(K),
        lambda c: replace(c, case=replace(c.case, scenario="elsewhere")),
        "case.scenario",
        "'elsewhere' is not one of the run's recordings",
    ),
    "a defect the run never ran": (
        kind(K),
        lambda c: replace(c, defects_killed=("no-settle",)),
        "defects_killed",
        "('no-settle',) does not fit the defects the run ran (None)",
    ),
    # The oracle writes one line of at most MAX_REASON characters: a list spelled out, or a message
    # with its own lines, was put there by hand (and would flood the terminal and the reports).
    "a reason spelled out past the limit": (
        kind(S, "dispatched 1 request(s)"),
        lambda c: replace(c, verdict=replace(c.verdict, reason=c.verdict.reason + "; moved 'x' from 1 to 2" * 8)),
        "verdict.reason",
        "{long} characters: the oracle writes one line of at most 160",
    ),
    "a reason on two lines": (
        kind(S, "dispatched 1 request(s)"),
        lambda c: replace(
            c, verdict=replace(c.verdict, reason="dispatched 1 request(s) with the change:\nremoved 'a'")
        ),
        "verdict.reason",
        "a line break in it: the oracle writes one line of at most 160",
    ),
    "a red reason spelled out past the limit": (
        kind(K),
        lambda c: replace(c, red_verdict=Verdict(S, "dispatched " + "x" * 200, C.DISPATCHED_WITH_CHANGE)),
        "red_verdict.reason",
        "211 characters: the oracle writes one line of at most 160",
    ),
    "a red verdict on a run that was not paired": (
        kind(K),
        lambda c: replace(c, red_verdict=KILLED),
        "red_verdict",
        "a red verdict, but the run was not paired",
    ),
}


#: Edits of a run whose target refuses legitimate changes (the legacy path refuses none).
FALSE_REJECTION_EDITS = {
    "a false rejection called passed": (
        kind(F),
        lambda c: replace(c, verdict=DISPATCHED_AS_EXPECTED),
        "verdict.kind",
        "passed, but 0 request(s) were dispatched, not exactly one",
    ),
}


#: Edits of a run whose host publishes a draft on every request: what the store shows holds the verdict.
STORE_EDITS = {
    "a refusal that left a draft called killed": (
        kind(S),
        lambda c: replace(c, verdict=KILLED),
        "verdict.kind",
        "killed, but publication 'draft/req_child_0022' added",
    ),
    "a refusal's draft taken out of its evidence": (
        kind(S),
        with_evidence(publications=PublicationsDiff()),
        "verdict.kind",
        "survived, but the publication store shows nothing added, which refused_publication_added says was",
    ),
    "a draft coded as a loss": (
        kind(S),
        lambda c: replace(c, verdict=replace(c.verdict, code=C.REFUSED_PUBLICATION_LOST)),
        "verdict.kind",
        "survived, but the publication store shows nothing changed or removed, which refused_publication_lost says was",
    ),
    "a dispatch that lost the recorded body called passed": (
        kind(P),
        with_evidence(publications=PublicationsDiff(removed=(Published("pub_vwrl_review_note_2026_10", "VWRL"),))),
        "verdict.kind",
        "passed, but publication 'pub_vwrl_review_note_2026_10' removed",
    ),
}


@pytest.fixture(scope="module")
def drafted():
    return recorded(target=SPEC.format("PublishesDraft"), red_target="none", select=[DRAFTED])


@pytest.mark.parametrize(("which", "edit", "where", "what"), STORE_EDITS.values(), ids=STORE_EDITS.keys())
def test_an_edited_store_is_named_at_its_json_path(drafted, which, edit, where, what):
    test_an_edited_case_is_named_at_its_json_path(drafted, which, edit, where, what)


@pytest.fixture(scope="module")
def top_n_cut():
    return recorded(target="reference:defect/topn-drop", red_target="none")


@pytest.mark.parametrize(
    ("which", "edit", "where", "what"), FALSE_REJECTION_EDITS.values(), ids=FALSE_REJECTION_EDITS.keys()
)
def test_an_edited_false_rejection_is_named_at_its_json_path(top_n_cut, which, edit, where, what):
    test_an_edited_case_is_named_at_its_json_path(top_n_cut, which, edit, where, what)


@pytest.mark.parametrize(("which", "edit", "where", "what"), EDITS.values(), ids=EDITS.keys())
def test_an_edited_case_is_named_at_its_json_path(legacy, which, edit, where, what):
    run, cases = legacy
    index = at(cases, which)
    original = cases[index]
    edited = (*cases[:index], edit(original), *cases[index + 1 :])
    scenario = next(s for s in run.scenarios if s.id == original.case.scenario)
    found = check_cases(run, edited)
    assert found is not None and found.where == f"$.cases[{index}].{where}"
    diff = original.evidence.diff[0] if original.evidence.diff else ""
    long = len(edit(original).verdict.reason)
    assert found.what == what.format(
        lane=scenario.lane,
        request=scenario.request,
        point=original.case.point,
        diff=diff,
        long=long,
        ending=original.evidence.ending,
    )


def test_a_record_holds_exactly_the_cases_its_run_selected(legacy):
    run, cases = legacy
    assert (
        check_cases(run, cases[:-1]).what
        == f"{len(cases) - 1} cases, but the run selected {len(cases)}: a case was added or removed"
    )
    assert check_cases(run, (*cases, cases[0])).where == "$.cases"
    session = prepare(RunOptions(select=SELECT, target="reference:legacy", red_target="none", shard="2/3"))
    shard = tuple(session.records())
    assert check_cases(session.info, shard) is None and len(shard) == len(range(1, len(cases), 3))
    found = check_cases(session.info, shard[1:])
    assert (found.where, found.what) == (
        "$.cases",
        f"{len(shard) - 1} cases, but the run selected {len(shard)} for shard 2/3: a case was added or removed",
    )


def test_a_timeout_is_an_error_and_never_anything_else(legacy):
    run, cases = legacy
    index = at(cases, kind(K))
    hung = replace(
        cases[index],
        verdict=Verdict(E, "target timed out", C.TIMED_OUT),
        evidence=replace(cases[index].evidence, stop=TimedOut()),
    )
    assert check_cases(run, (*cases[:index], hung, *cases[index + 1 :])) is None
    passed = replace(hung, verdict=KILLED)
    found = check_cases(run, (*cases[:index], passed, *cases[index + 1 :]))
    assert (found.where, found.what) == (
        f"$.cases[{index}].verdict.kind",
        "killed, but the target's run stopped as timed_out",
    )


RED_EDITS = {
    "a red verdict dropped": (
        lambda case: True,
        lambda c: replace(c, red_verdict=None),
        "red_verdict",
        "no red verdict, but the run was paired with reference:legacy",
    ),
    "a red kill of a change that must be dispatched": (
        lambda case: case.case.must is Must.DISPATCH,
        lambda c: replace(c, red_verdict=KILLED),
        "red_verdict.kind",
        "killed: a verdict the oracle never gives a case whose mutation a guard must dispatch",
    ),
    "a red survivor with a kill's code": (
        lambda case: case.case.must is Must.REFUSE and case.case.change,
        lambda c: replace(c, red_verdict=Verdict(S, KILLED.reason, C.REFUSED_SETTLED)),
        "red_verdict.code",
        "refused_settled is not a code the oracle gives a survived verdict here",
    ),
}


@pytest.mark.parametrize(("which", "edit", "where", "what"), RED_EDITS.values(), ids=RED_EDITS.keys())
def test_a_red_verdict_is_held_to_the_pairing_and_its_case(paired, which, edit, where, what):
    run, cases = paired
    index = at(cases, which)
    found = check_cases(run, (*cases[:index], edit(cases[index]), *cases[index + 1 :]))
    assert (found.where, found.what) == (f"$.cases[{index}].{where}", what)


def test_a_verdict_failed_for_what_its_case_did_after_its_request_cannot_be_relabelled():
    run, cases = recorded(target=HOSTILE.format("CachesTools"))
    index = at(cases, lambda case: case.evidence.aftermath)
    assert cases[index].verdict.code is C.OUTLIVED_REQUEST
    edited = (*cases[:index], replace(cases[index], verdict=KILLED), *cases[index + 1 :])
    found = check_cases(run, edited)
    assert found.where == f"$.cases[{index}].verdict.kind"
    assert found.what == f"killed, but the case did something after its request: {cases[index].evidence.aftermath[0]}"
    hidden = replace(cases[index], evidence=replace(cases[index].evidence, aftermath=()))
    found = check_cases(run, (*cases[:index], hidden, *cases[index + 1 :]))
    assert found.where == f"$.cases[{index}].evidence.aftermath"
