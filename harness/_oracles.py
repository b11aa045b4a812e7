"""The oracles (DESIGN §6): a verdict from what the harness-owned ports observed.

The target's own account is never read. A case that could not be exercised — the target
crashed, hung, never offered the injection point, or touched neither gateway nor ledger — is an
`error`, never a pass.
"""

from __future__ import annotations

from mutators import Expect
from scenarios import Scenario

from ._canonical import Snapshot
from ._diff import diff_snapshots
from ._types import Case, Evidence, Observation, Outcome, Verdict, VerdictKind

EQUIVALENT = Verdict(VerdictKind.EQUIVALENT, "the mutation leaves the surface canonically unchanged")


def judge(case: Case, observed: Observation, scenario: Scenario, expected: Snapshot) -> Verdict:
    """The verdict on one run of one case."""
    if (problem := _not_exercised(case, observed)) is not None:
        return Verdict(VerdictKind.ERROR, problem)
    if case.expect is Expect.REJECT:
        return _judge_refusal(observed, scenario)
    return _judge_dispatch(observed, scenario, expected)


def evidence(case: Case, observed: Observation, expected: Snapshot) -> Evidence:
    sent = observed.dispatches[0].surface if observed.dispatches else None
    changes = tuple(map(str, diff_snapshots(expected, sent))) if sent is not None else case.change
    return Evidence(
        dispatches=len(observed.dispatches),
        settlements=tuple(str(event) for event in observed.ledger if event.op == "settle"),
        error_type=observed.crash.type if observed.crash else None,
        error=observed.crash.traceback if observed.crash and not observed.refused else None,
        diff=changes,
        points=observed.points,
    )


def _not_exercised(case: Case, observed: Observation) -> str | None:
    if observed.timed_out:
        return "target timed out"
    if observed.crash is not None and not observed.refused:
        return f"target crashed: {observed.crash.type}: {observed.crash.message}"
    if observed.injection_problem is not None:
        return f"mutation could not be applied at {case.point!r}: {observed.injection_problem}"
    if not observed.injected:
        offered = ", ".join(observed.points) or "none"
        return f"target never offered injection point {case.point!r} (offered: {offered})"
    if not observed.touched:
        return "nothing observed: the target touched neither the gateway nor the ledger"
    return None


def _ledger_problems(observed: Observation, scenario: Scenario, outcome: Outcome) -> list[str]:
    """What keeps the ledgers from showing exactly one `outcome` settlement on the case's own lane."""
    problems = [f"ledger refused: {event}" for event in observed.ledger if not event.accepted]
    settled = [e for e in observed.ledger if e.op == "settle" and e.accepted]
    request = scenario.identity.request
    ours = [e for e in settled if e.lane == scenario.lane.value and e.request == request]
    if not ours:
        problems.append(f"reservation {scenario.lane}:{request} was never settled")
    elif ours[0].outcome != outcome.value:
        problems.append(f"reservation settled as {ours[0].outcome!r}, expected {outcome.value!r}")
    problems += [f"settlement on another lane or request: {e}" for e in settled if e not in ours]
    problems += [f"reservation left open: {key}" for key in observed.open_reservations]
    problems += [f"publication {key!r} lost" for key in observed.publications_lost]
    return problems


def _judge_refusal(observed: Observation, scenario: Scenario) -> Verdict:
    if observed.dispatches:
        return Verdict(VerdictKind.SURVIVED, f"dispatched {len(observed.dispatches)} request(s) with the change")
    problems = _ledger_problems(observed, scenario, Outcome.PRE_DISPATCH_REJECTED)
    if problems:
        return Verdict(VerdictKind.SURVIVED, "refused, but " + "; ".join(problems))
    return Verdict(VerdictKind.KILLED, "refused before dispatch and settled as pre_dispatch_rejected")


def _judge_dispatch(observed: Observation, scenario: Scenario, expected: Snapshot) -> Verdict:
    if not observed.dispatches:
        why = observed.crash.message if observed.crash else "no dispatch"
        return Verdict(VerdictKind.FALSE_REJECT, f"a legitimate change was refused: {why}")
    if len(observed.dispatches) > 1:
        return Verdict(VerdictKind.SURVIVED, f"dispatched {len(observed.dispatches)} times")
    sent = observed.dispatches[0].surface
    if sent != expected:
        changes = "; ".join(map(str, diff_snapshots(expected, sent)))
        return Verdict(VerdictKind.SURVIVED, f"dispatched a surface that differs from the expected one: {changes}")
    problems = _ledger_problems(observed, scenario, Outcome.DISPATCHED)
    if problems:
        return Verdict(VerdictKind.SURVIVED, "dispatched, but " + "; ".join(problems))
    return Verdict(VerdictKind.PASSED, "dispatched with the expected surface and settled as dispatched")
