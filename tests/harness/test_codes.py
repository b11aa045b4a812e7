"""Reason codes: the code decides and the reason only describes, so no engine or report module reads
the words of a verdict's reason, and every code is one the oracle gives."""

import ast
import dataclasses
import json
from pathlib import Path

import pytest

from toolsurface.contract._canonical import Snapshot, canonical_json
from toolsurface.contract._owner import Settlement
from toolsurface.harness._codes import AFTER, ERRORS, ReasonCode
from toolsurface.harness._codes import ReasonCode as C
from toolsurface.harness._oracles import EQUIVALENT, LATE, amended, evidence, judge
from toolsurface.harness._plan import plan
from toolsurface.harness._record import results_schema
from toolsurface.harness._runner import expected_surface
from toolsurface.harness._targets import load_with_traits
from toolsurface.harness._types import (
    Amendment,
    Capacity,
    CaseRecord,
    Crashed,
    Died,
    Dispatch,
    LedgerEvent,
    LedgerOp,
    Observation,
    PublicationsDiff,
    Published,
    Refused,
    Returned,
    Role,
    TimedOut,
    VerdictKind,
)
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import Boundary, load

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "commands.md").read_text()


def _reads_reason(node: ast.expr) -> bool:
    """`x.reason`, where `x` is anything: a verdict's, an entry's, a cause's."""
    return isinstance(node, ast.Attribute) and node.attr == "reason"


def _parses(node: ast.AST) -> bool:
    """A call of a str method that inspects text on `….reason`, or `in`/`not in` with it on either side."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        method = node.func.attr in {"startswith", "endswith", "find", "index", "partition", "split", "count"}
        return method and _reads_reason(node.func.value)
    if isinstance(node, ast.Compare) and any(isinstance(op, ast.In | ast.NotIn) for op in node.ops):
        return any(_reads_reason(side) for side in (node.left, *node.comparators))
    return False


def _parsing(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    return [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree) if _parses(node)]


def test_no_engine_or_report_module_reads_the_words_of_a_reason():
    modules = sorted((ROOT / "harness").rglob("*.py")) + sorted((ROOT / "reports").rglob("*.py"))
    assert len(modules) > 40
    assert [where for path in modules for where in _parsing(path)] == []


def test_the_walk_finds_what_it_looks_for():
    # The check above can fail: each of these is what it must find.
    for source in (
        "verdict.reason.startswith('dispatched ')",
        "'lost' in record.verdict.reason",
        "x.reason not in (a, b)",
        "verdict.reason.partition(': ')",
    ):
        assert _parses(ast.parse(source).body[0].value), source
    assert not _parses(ast.parse("verdict.code in AFTER").body[0].value)
    assert not _parses(ast.parse("len(verdict.reason) > 160").body[0].value)


def test_results_json_carries_the_closed_list_of_codes():
    verdict = results_schema()["$defs"]["Verdict"]
    assert verdict["properties"]["code"] == {"enum": [code.value for code in ReasonCode]}
    assert "code" in verdict["required"]


def test_audit_json_lists_the_same_codes():
    audit = json.loads((ROOT / "reports" / "audit.schema.json").read_text())
    code = audit["properties"]["failing"]["items"]["properties"]["code"]
    assert code["enum"] == [code.value for code in ReasonCode]


@pytest.mark.parametrize("code", list(ReasonCode), ids=str)
def test_every_code_is_documented(code):
    assert f"| `{code}` |" in DOCS


def test_the_groups_of_codes_are_codes_the_oracle_gives():
    assert set(ReasonCode) >= AFTER | ERRORS
    assert not AFTER & ERRORS
    assert all(code.value == code.name.lower() for code in ReasonCode)


# Every code is one the oracle gives: each is reached here from the observation that makes it.

DISPATCH = "entry-main-portfolio-document"  # one model call, a capability summary in its contract
LOOP = "etf-compare-main-tool-loop"  # three model calls
CAPACITY = "holdings-review-main-over-capacity"  # must end in an explicit capacity result
MCP = "etf-compare-main-mcp-paged"  # its tools listed from the MCP server


@pytest.fixture(scope="module")
def scenes():
    """By name, a recording and, by what its case must be, a case of it with the surfaces it must carry."""
    traits = load_with_traits("reference:guarded").traits
    found = {}
    for scenario in load():
        cases = [c for c in plan([scenario], seed=0) if not c.equivalent]
        picks = {
            "dispatch": next(c for c in cases if c.must is Must.DISPATCH and c.call == 1),
            "refuse": next(
                c for c in cases if c.must is Must.REFUSE and c.call == 1 and c.mutation.kind is not Kind.MCP
            ),
            "later": next((c for c in cases if c.call == 2), None),
            "mcp": next((c for c in cases if c.must is Must.REFUSE and c.mutation.kind is Kind.MCP), None),
            "fail": next((c for c in cases if c.must is Must.FAIL and c.call == 1), None),
        }
        found[scenario.id] = (
            scenario,
            {name: (case, case and expected_surface(traits, scenario, case)) for name, case in picks.items()},
        )
    return found


def _sent(scenario, surfaces, calls=None):
    calls = calls or range(1, scenario.model_calls + 1)
    return tuple(Dispatch(scenario.identity.request, surfaces[c - 1], 1, scenario.contract.summary, c) for c in calls)


def _ledger(scenario, settlement=None):
    lane, request = scenario.lane.value, scenario.identity.request
    reserve = LedgerEvent(lane, LedgerOp.RESERVE, request)
    return (reserve,) if settlement is None else (reserve, LedgerEvent(lane, LedgerOp.SETTLE, request, settlement))


def _more(surface):
    """`surface` with a tool added at its end."""
    return Snapshot(canonical_json([*surface.entries(), ["added_tool", "a tool of its own", {"type": "object"}]]))


DISPATCHED, REJECTED = Settlement.DISPATCHED, Settlement.PRE_DISPATCH_REJECTED
#: A store the run took the recorded body from; and one it added a draft to (with the body kept).
WITHDRAWN = PublicationsDiff(removed=(Published("p", "the recorded body"),))
DRAFTED = PublicationsDiff(added=(Published("draft", "a draft"),))

#: A run its provider failed at the first model call: nothing sent, the error raised, settled as failed.
FAILED = {
    "dispatches": (),
    "stop": Crashed("ProviderFailed", "the model provider failed model call 1", "Traceback"),
    "provider_failures": 1,
    "ledger": lambda s, e: _ledger(s, Settlement.FAILED),
}

#: code → (verdict, recording, which case, the observation's fields beside a clean run's (each a
#: function of the recording and the case's expected surfaces), amendments made after the record).
REACHED = {
    C.DISPATCHED_AS_EXPECTED: (VerdictKind.PASSED, DISPATCH, "dispatch", {}),
    C.DISPATCHED_UNSETTLED: (VerdictKind.SURVIVED, DISPATCH, "dispatch", {"ledger": lambda s, e: _ledger(s)}),
    C.DISPATCHED_PUBLICATION_LOST: (VerdictKind.SURVIVED, DISPATCH, "dispatch", {"publications": WITHDRAWN}),
    C.DISPATCHED_TOO_OFTEN: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "dispatch",
        {"dispatches": lambda s, e: _sent(s, e * 2, (1, 2))},
    ),
    C.DISPATCHED_CHANGED_SURFACE: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "dispatch",
        {"dispatches": lambda s, e: _sent(s, [_more(e[0])])},
    ),
    C.DISPATCHED_CHANGED_SUMMARY: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "dispatch",
        {"dispatches": lambda s, e: (Dispatch(s.identity.request, e[0], 1, "a summary of its own", 1),)},
    ),
    C.FALSE_REJECTION: (
        VerdictKind.FALSE_REJECT,
        DISPATCH,
        "dispatch",
        {"dispatches": (), "stop": Refused("Refusal", "no"), "ledger": lambda s, e: _ledger(s, REJECTED)},
    ),
    C.NEVER_DISPATCHED: (
        VerdictKind.FALSE_REJECT,
        DISPATCH,
        "dispatch",
        {"dispatches": (), "ledger": lambda s, e: _ledger(s, REJECTED)},
    ),
    C.CALLS_UNANSWERED: (VerdictKind.ERROR, LOOP, "dispatch", {"dispatches": lambda s, e: _sent(s, e, (1,))}),
    C.EARLIER_CALL_DIFFERS: (
        VerdictKind.SURVIVED,
        LOOP,
        "later",
        {"dispatches": lambda s, e: _sent(s, [_more(e[0]), *e[1:]])},
    ),
    C.REFUSED_SETTLED: (
        VerdictKind.KILLED,
        DISPATCH,
        "refuse",
        {"dispatches": (), "stop": Refused("Refusal", "no"), "ledger": lambda s, e: _ledger(s, REJECTED)},
    ),
    C.REFUSED_UNSETTLED: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "refuse",
        {"dispatches": (), "stop": Refused("Refusal", "no"), "ledger": lambda s, e: _ledger(s)},
    ),
    C.REFUSED_PUBLICATION_LOST: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "refuse",
        {
            "dispatches": (),
            "stop": Refused("Refusal", "no"),
            "ledger": lambda s, e: _ledger(s, REJECTED),
            "publications": WITHDRAWN,
        },
    ),
    C.REFUSED_PUBLICATION_ADDED: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "refuse",
        {
            "dispatches": (),
            "stop": Refused("Refusal", "no"),
            "ledger": lambda s, e: _ledger(s, REJECTED),
            "publications": DRAFTED,
        },
    ),
    C.DISPATCHED_WITH_CHANGE: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "refuse",
        {"dispatches": lambda s, e: _sent(s, [_more(e[0])])},
    ),
    C.DISPATCHED_REPAIRED: (VerdictKind.SURVIVED, DISPATCH, "refuse", {}),
    C.DISPATCHED_MISSED_CHANGE: (VerdictKind.SURVIVED, MCP, "mcp", {"listed": 1}),
    C.MCP_UNREACHED: (VerdictKind.EQUIVALENT, MCP, "mcp", {"listed": 0}),
    C.NOT_CARRIED: (VerdictKind.EQUIVALENT, DISPATCH, "refuse", {"not_carried": "no place for it"}),
    C.NOT_SELECTED: (VerdictKind.EQUIVALENT, DISPATCH, "refuse", {"not_selected": "no tool named 'x' here"}),
    C.CAPACITY_RESULT: (
        VerdictKind.PASSED,
        CAPACITY,
        "dispatch",
        {"dispatches": (), "stop": Capacity("TooBig", "no room"), "ledger": lambda s, e: _ledger(s, REJECTED)},
    ),
    C.CAPACITY_UNSETTLED: (
        VerdictKind.SURVIVED,
        CAPACITY,
        "dispatch",
        {"dispatches": (), "stop": Capacity("TooBig", "no room"), "ledger": lambda s, e: _ledger(s)},
    ),
    C.CAPACITY_PUBLICATION_LOST: (
        VerdictKind.SURVIVED,
        CAPACITY,
        "dispatch",
        {
            "dispatches": (),
            "stop": Capacity("TooBig", "no room"),
            "ledger": lambda s, e: _ledger(s, REJECTED),
            "publications": WITHDRAWN,
        },
    ),
    C.CAPACITY_PUBLICATION_ADDED: (
        VerdictKind.SURVIVED,
        CAPACITY,
        "dispatch",
        {
            "dispatches": (),
            "stop": Capacity("TooBig", "no room"),
            "ledger": lambda s, e: _ledger(s, REJECTED),
            "publications": DRAFTED,
        },
    ),
    C.PROVIDER_FAILURE_SETTLED: (VerdictKind.PASSED, DISPATCH, "fail", FAILED),
    C.PROVIDER_FAILURE_UNSETTLED: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "fail",
        {**FAILED, "ledger": lambda s, e: _ledger(s)},
    ),
    C.PROVIDER_FAILURE_PUBLICATION_LOST: (
        VerdictKind.SURVIVED,
        DISPATCH,
        "fail",
        {**FAILED, "publications": WITHDRAWN},
    ),
    C.PROVIDER_FAILURE_PUBLICATION_ADDED: (VerdictKind.SURVIVED, DISPATCH, "fail", {**FAILED, "publications": DRAFTED}),
    C.DISPATCHED_OVER_CAPACITY: (
        VerdictKind.SURVIVED,
        CAPACITY,
        "dispatch",
        {"ledger": lambda s, e: _ledger(s, DISPATCHED)},
    ),
    C.REFUSED_NOT_CAPACITY: (
        VerdictKind.FALSE_REJECT,
        CAPACITY,
        "dispatch",
        {"dispatches": (), "stop": Refused("Refusal", "no"), "ledger": lambda s, e: _ledger(s, REJECTED)},
    ),
    C.TIMED_OUT: (VerdictKind.ERROR, DISPATCH, "dispatch", {"stop": TimedOut()}),
    C.WORKER_STOPPED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"stop": Died("exited with status 0")}),
    C.CRASHED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"stop": Crashed("RuntimeError", "boom", "Traceback")}),
    C.FORKED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"forks": 1}),
    C.STALE_HOST: (VerdictKind.ERROR, DISPATCH, "dispatch", {"stale": ("moved 'a'",)}),
    C.NO_CLEAN_RUN: (VerdictKind.ERROR, DISPATCH, "dispatch", {"no_clean_run": "crashed"}),
    C.INJECTION_FAILED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"injection_problem": "no tool named 'x'"}),
    C.POINT_NOT_OFFERED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"injected": False}),
    C.CAPACITY_BEFORE_POINT: (
        VerdictKind.ERROR,
        DISPATCH,
        "dispatch",
        {"injected": False, "stop": Capacity("TooBig", "no room")},
    ),
    C.REFUSED_BEFORE_POINT: (
        VerdictKind.ERROR,
        LOOP,
        "later",
        {
            "injected": False,
            "stop": Refused("SurfaceRefused", "final check: removed 'a'"),
            "dispatches": (),
            "ledger": lambda s, e: _ledger(s, REJECTED),
            "points": lambda s, e: tuple(Boundary(point) for point in s.points),  # the first model call's
        },
    ),
    C.NOTHING_OBSERVED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"dispatches": (), "ledger": ()}),
    C.FIRST_RUN_FAILED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"first_run": ("crashed",)}),
    C.OUTLIVED_REQUEST: (VerdictKind.SURVIVED, DISPATCH, "dispatch", {"leaked": ("moved 'a'",)}),
    C.UNFOLLOWED: (VerdictKind.ERROR, DISPATCH, "dispatch", {"unfollowed": "timed out"}),
    C.LATE_EFFECT: (VerdictKind.SURVIVED, DISPATCH, "dispatch", {}, Amendment(0, Role.TARGET, f"{LATE}settled again")),
    C.UNWATCHED: (
        VerdictKind.ERROR,
        DISPATCH,
        "dispatch",
        {},
        Amendment(0, Role.TARGET, "the host left 1 thread", True),
    ),
}


def test_every_code_but_one_is_reached_by_the_oracle_and_that_one_by_the_runner():
    assert set(REACHED) | {EQUIVALENT.code} == set(ReasonCode)
    assert EQUIVALENT.kind is VerdictKind.EQUIVALENT


def _observed(scenes, name, which, fields):
    """The case `which` of recording `name`, the surfaces it must carry, and a clean run's
    observation of it with `fields` in place of the clean run's own."""
    scenario, picked = scenes[name]
    case, expected = picked[which]
    settled = REJECTED if which in {"refuse", "mcp"} else DISPATCHED
    clean = {
        "dispatches": _sent(scenario, expected),
        "ledger": _ledger(scenario, settled),
        "open_reservations": (),
        "points": scenario.points,
        "injected": True,
        "injection_problem": None,
        "stop": Returned(),
    }
    made = {key: value(scenario, expected) if callable(value) else value for key, value in fields.items()}
    return scenario, case, expected, Observation(**{**clean, **made})


@pytest.mark.parametrize(("code", "reached"), REACHED.items(), ids=[code.value for code in REACHED])
def test_the_oracle_gives_each_code_from_the_observation_that_makes_it(scenes, code, reached):
    kind, name, which, fields, *after = reached
    scenario, case, expected, observed = _observed(scenes, name, which, fields)
    verdict = judge(case, observed, scenario, expected)
    if after:
        record = CaseRecord(case, verdict, None, evidence(case, observed, scenario, expected), None)
        verdict = amended(record, [dataclasses.replace(after[0], index=case.index)]).verdict
    assert (verdict.code, verdict.kind) == (code, kind), verdict.reason


REFUSED = {"dispatches": (), "stop": Refused("Refusal", "no"), "ledger": lambda s, e: _ledger(s, REJECTED)}
OVER = {"dispatches": (), "stop": Capacity("TooBig", "no room"), "ledger": lambda s, e: _ledger(s, REJECTED)}
#: Both a draft added and the recorded body rewritten.
BOTH = PublicationsDiff(added=DRAFTED.added, changed=(Published("p", "rewritten"),))

#: The store a run left, on each end: → the code, and what the reason names.
STORES = {
    "a refusal that published a draft": ("refuse", REFUSED, DRAFTED, C.REFUSED_PUBLICATION_ADDED, "'draft' added"),
    "a refusal that lost one and added one": (
        "refuse",
        REFUSED,
        BOTH,
        C.REFUSED_PUBLICATION_LOST,
        "refused, but publication 'p' changed; publication 'draft' added",
    ),
    "a capacity result that published a draft": (
        "capacity",
        OVER,
        DRAFTED,
        C.CAPACITY_PUBLICATION_ADDED,
        "capacity result, but publication 'draft' added",
    ),
    # A request that went out may publish what it made; it may not lose what it found.
    "a dispatch that published a draft": ("dispatch", {}, DRAFTED, C.DISPATCHED_AS_EXPECTED, "dispatched"),
    "a dispatch that rewrote the recorded body": (
        "dispatch",
        {},
        BOTH,
        C.DISPATCHED_PUBLICATION_LOST,
        "dispatched, but publication 'p' changed",
    ),
    "an unsettled refusal that published a draft": (
        "refuse",
        {**REFUSED, "ledger": lambda s, e: _ledger(s)},
        DRAFTED,
        C.REFUSED_UNSETTLED,
        "was never settled; publication 'draft' added",
    ),
}


@pytest.mark.parametrize(("end", "fields", "store", "code", "named"), STORES.values(), ids=STORES.keys())
def test_the_oracle_judges_the_whole_store_and_names_what_changed(scenes, end, fields, store, code, named):
    name, which = (CAPACITY, "dispatch") if end == "capacity" else (DISPATCH, end)
    scenario, case, expected, observed = _observed(scenes, name, which, {**fields, "publications": store})
    verdict = judge(case, observed, scenario, expected)
    assert verdict.code is code and named in verdict.reason, verdict.reason
    # The evidence keeps the whole difference, allowed or not.
    assert evidence(case, observed, scenario, expected).publications == store
