"""The oracles: a verdict, as docs/contract.md's verdict table defines it, from what the harness-owned ports observed.

The target's own account is never read. A case that could not be exercised — the target
crashed, hung, never offered the injection point, or touched neither gateway nor ledger — is an
`error`, never a pass. What a request must look like comes from the scenario alone: its surface
narrowed by the trusted owner facts, the capability summary its contract states, and whether the
required tools fit at all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._diff import diff_snapshots, summary_changes
from toolsurface.contract._facts import rulings
from toolsurface.contract._owner import Settlement
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import Boundary, RequestOutcome, Scenario

from ._admission import admitted_outcome, as_admitted_case
from ._codes import ReasonCode
from ._reasons import MAX_REASON, Said, changes_said, clip, fits, listed
from ._types import (
    Amendment,
    Capacity,
    Case,
    CaseRecord,
    Crashed,
    Died,
    Evidence,
    Interrupted,
    LedgerEvent,
    LedgerOp,
    Observation,
    PublicationsDiff,
    Refused,
    Role,
    Stop,
    TimedOut,
    Verdict,
    VerdictKind,
)

EQUIVALENT = Verdict(
    VerdictKind.EQUIVALENT, "the mutation leaves the surface canonically unchanged", ReasonCode.EQUIVALENT
)
#: How the reason begins for a mutation of a wire field the target's tool format does not carry.
NOT_CARRIED = "the change cannot reach this target's wire: "
#: How the reason begins for a change after admission to what admission did not select.
NOT_SELECTED = "admission left out what the change acts on: "
#: How the reasons begin that the harness gives beside the oracle's own: for a change that
#: outlived its request, an effect after `run` returned, a host that forked, and a case that started
#: from state an earlier one left.
OUTLIVED = "the change outlived its request: "
LATE = "after run() returned: "
FORKED = "target forked "
STALE = "host state left by an earlier case "
#: How the reason begins for a case whose scenario's clean run failed, so nothing holds the case to one.
NO_CLEAN_RUN = "the target's unchanged request on this recording "
#: How the reason begins for a case whose request ended in the host's own capacity result before
#: the boundary its change was to be made at.
BEFORE_POINT = "target ended in a capacity result before it reached injection point "
REFUSED_BEFORE = "target refused the request before it reached injection point "
#: How the reason begins for a case whose follow-up request failed, so whether its change outlived it is unknown.
UNFOLLOWED = "the follow-up request on the same host "
#: How the reason begins for a case whose first run went wrong before its change and was run again.
FIRST_RUN = "its first run, on a host that had run other cases, "

#: Why a request sent with the expected surface still fails a case whose change must be refused.
REPAIRED = "the change was repaired instead of refused, and no pre_dispatch_rejected settlement records it"
#: Why a request sent with the expected surface fails a case whose change the MCP server made to
#: its tool list: the host sent the list it had before, so it never saw the change to refuse it.
MISSED = (
    "the tools as listed before the MCP server changed its list: "
    "the host missed the change, so nothing refused the request"
)

KILLED = Verdict(
    VerdictKind.KILLED, "refused before dispatch and settled as pre_dispatch_rejected", ReasonCode.REFUSED_SETTLED
)
DISPATCHED_AS_EXPECTED = Verdict(
    VerdictKind.PASSED,
    "dispatched with the expected surface and settled as dispatched",
    ReasonCode.DISPATCHED_AS_EXPECTED,
)
CAPACITY_RESULT = Verdict(
    VerdictKind.PASSED,
    "explicit capacity result, settled as pre_dispatch_rejected, nothing sent",
    ReasonCode.CAPACITY_RESULT,
)
#: An MCP list change on a target that takes its tools from the scenario and never lists them from
#: the harness's MCP server: nothing it sees changed, so the case is counted, not judged.
UNREACHED = Verdict(
    VerdictKind.EQUIVALENT,
    "the target lists no tools from the MCP server, so a change to that list cannot reach it",
    ReasonCode.MCP_UNREACHED,
)


#: The surface each model call of a case must carry, first call first.
Expected = tuple[Snapshot, ...]


def judge(case: Case, observed: Observation, scenario: Scenario, expected: Expected) -> Verdict:
    """The verdict on one run of one case, and on the follow-up request after it.

    The model calls before the case's own are judged first: each must carry its expected surface.
    From the case's call on, the calls are judged as one request made from there. Its reason is
    one line of at most `MAX_REASON` characters; what it names only in part, the evidence holds.
    """
    verdict = _judge(*as_admitted(case, observed, scenario, expected))
    return verdict if fits(verdict.reason) else dataclasses.replace(verdict, reason=clip(verdict.reason))


def as_admitted(
    case: Case, observed: Observation, scenario: Scenario, expected: Expected
) -> tuple[Case, Observation, Scenario, Expected]:
    """The case as it is judged on a target whose admission is a step of its own (`_admission`):
    each model call held to what its admission selected, less what trusted facts hide by then.
    Without admissions, as planned."""
    if not observed.admissions:
        return case, observed, scenario, expected
    admitted = [admission.admitted for admission in observed.admissions]
    surfaces = {admission.admitted.call: admission.surface for admission in observed.admissions}
    recorded = frozenset(tool.name for tool in scenario.contract.surface)
    expected = tuple(
        surfaces[call].without(recorded - set(must.names())) if call in surfaces else must
        for call, must in enumerate(expected, 1)
    )
    scenario = dataclasses.replace(scenario, outcome=admitted_outcome(admitted, scenario.outcome))
    return as_admitted_case(case, admitted), observed, scenario, expected


def _judge(case: Case, observed: Observation, scenario: Scenario, expected: Expected) -> Verdict:
    # A case whose point lies past where its request must end in a capacity result (by the target's
    # own token count: see `judged_on`) is judged on that result; its change is never made. The
    # request ends at its first model call's fit, so every boundary of a later call is past it. On a
    # target's own boundaries, where its capacity check sits is its own: past it is where it stopped.
    at = case.boundary
    beyond = scenario.outcome is RequestOutcome.CAPACITY and (
        at.call > 1 or at.point not in scenario.points if at.is_recorded else at not in observed.points
    )
    if isinstance(observed.stop, Crashed) and not _failed_by_provider(case, observed):
        said = stopped(observed.stop, _settled_as_refusal(observed, scenario)) or ""
        return Verdict(VerdictKind.ERROR, said, ReasonCode.CRASHED)
    if (problem := _not_exercised(case, observed, beyond)) is not None:
        code, said = problem
        return Verdict(VerdictKind.ERROR, clip(said), code)
    verdict = _request(case, observed, scenario, expected, beyond)
    if observed.leaked:
        said = f"{OUTLIVED}the next request differs from a clean one: "
        return failed(verdict, ReasonCode.OUTLIVED_REQUEST, said + listed(observed.leaked, _room(verdict) - len(said)))
    if observed.unfollowed:
        unknown = ": whether the change outlived its request is unknown"
        return unjudged(
            verdict,
            ReasonCode.UNFOLLOWED,
            UNFOLLOWED + clip(observed.unfollowed, _room(verdict) - len(UNFOLLOWED) - len(unknown)) + unknown,
        )
    if observed.first_run and verdict.kind.ok:
        # Run again on a fresh host, the case passed: its first run's failure still stands.
        then = f"); run again on a fresh host, it {verdict.kind.value}"
        first = listed(
            observed.first_run, MAX_REASON - len(FIRST_RUN) - len("went wrong before its change was made (") - len(then)
        )
        said = f"{FIRST_RUN}went wrong before its change was made ({first}{then}"
        return Verdict(VerdictKind.ERROR, said, ReasonCode.FIRST_RUN_FAILED)
    return verdict


def _request(case: Case, observed: Observation, scenario: Scenario, expected: Expected, beyond: bool) -> Verdict:
    """The verdict on the case's own request, exercised as planned."""
    if observed.not_carried is not None:
        said = NOT_CARRIED + clip(observed.not_carried, MAX_REASON - len(NOT_CARRIED))
        return Verdict(VerdictKind.EQUIVALENT, said, ReasonCode.NOT_CARRIED)
    if observed.not_selected is not None:
        said = NOT_SELECTED + clip(observed.not_selected, MAX_REASON - len(NOT_SELECTED))
        return Verdict(VerdictKind.EQUIVALENT, said, ReasonCode.NOT_SELECTED)
    if case.mutation.kind is Kind.MCP and not observed.listed and not observed.leaked:
        return UNREACHED
    if (earlier := _earlier_calls(case, observed, scenario, expected)) is not None:
        return earlier
    if beyond:
        return _judge_capacity(observed, scenario)
    if case.must is Must.FAIL and scenario.outcome is not RequestOutcome.CAPACITY:
        return _judge_failure(observed, scenario, case.call)
    if case.must is Must.REFUSE:
        return _judge_refusal(from_call(observed, case.call), scenario, expected, case.mutation.kind)
    if scenario.outcome is RequestOutcome.CAPACITY:
        return _judge_capacity(observed, scenario)
    return _judge_dispatch(from_call(observed, case.call), scenario, expected, case.call)


def _failed_by_provider(case: Case, observed: Observation) -> bool:
    """Whether the run raised where the case's provider failed it: whatever it raised then is that
    failure's, the case's expected end (a hang or a lost worker is not)."""
    return case.must is Must.FAIL and observed.provider_failures > 0 and isinstance(observed.stop, Crashed)


def _room(verdict: Verdict) -> int:
    """Of a reason that says why `verdict` fails beside what it was (`failed`, `unjudged`), how much
    the why may take: room is left to name the verdict it overrides by its kind (` (else: killed)`)."""
    return MAX_REASON - len(f" (else: {verdict.kind.value})")


def failed(verdict: Verdict, code: ReasonCode, why: str) -> Verdict:
    """`verdict` failed for `why` (`code`), found beside what made it: a passing verdict survives; a
    failing one keeps its kind. The code is the new one: the reason still names the old verdict."""
    kind = verdict.kind if not verdict.kind.ok else VerdictKind.SURVIVED
    return Verdict(kind, _beside(why, verdict), code)


def unjudged(verdict: Verdict, code: ReasonCode, why: str) -> Verdict:
    """`verdict` cannot stand for `why` (`code`), found beside what made it: the case is an `error`."""
    return Verdict(VerdictKind.ERROR, _beside(why, verdict), code)


def _beside(why: str, verdict: Verdict) -> str:
    """`why (else: kind, reason)` in one reason: `why` first, cut to `_room`; the verdict it
    overrides by its kind and reason where they fit whole beside it, else by its kind alone."""
    why = clip(why, _room(verdict))
    whole = f"{why} (else: {verdict.kind.value}, {verdict.reason})"
    return whole if len(whole) <= MAX_REASON else f"{why} (else: {verdict.kind.value})"


def amend_all(stream: Sequence[CaseRecord | Amendment]) -> list[CaseRecord]:
    """The records of a run's stream with its amendments applied, in plan order."""
    late: dict[int, list[Amendment]] = {}
    for item in stream:
        if isinstance(item, Amendment):
            late.setdefault(item.index, []).append(item)
    return [amended(r, late[r.case.index]) if r.case.index in late else r for r in stream if isinstance(r, CaseRecord)]


def amended(record: CaseRecord, amendments: Sequence[Amendment]) -> CaseRecord:
    """The record with what its case did after its record was made: each note fails its role's verdict."""
    verdict = _amended(record.verdict, [a for a in amendments if a.role is Role.TARGET])
    red = (
        None
        if record.red_verdict is None
        else _amended(record.red_verdict, [a for a in amendments if a.role is Role.RED])
    )
    aftermath = record.evidence.aftermath + tuple(a.note for a in amendments if a.role is Role.TARGET)
    # What the host did late is its own, whatever its framework did before: the failure is no longer the framework's.
    own = record.evidence.framework_own and verdict == record.verdict
    return dataclasses.replace(
        record,
        verdict=verdict,
        red_verdict=red,
        evidence=dataclasses.replace(record.evidence, aftermath=aftermath, framework_own=own),
    )


def _amended(verdict: Verdict, amendments: Sequence[Amendment]) -> Verdict:
    """The verdict with what came after it: an error where the case cannot be judged, else failed
    for what the host did late (each note begins with `LATE` or `UNWATCHED`)."""
    if not amendments:
        return verdict
    why = listed(list(dict.fromkeys(a.note for a in amendments)), _room(verdict))
    if any(a.unjudged for a in amendments):
        return unjudged(verdict, ReasonCode.UNWATCHED, why)
    return failed(verdict, ReasonCode.LATE_EFFECT, why)


def from_call(observed: Observation, call: int) -> Observation:
    """What was observed of the model calls from the `call`-th on: the request as the case's change found it."""
    if call == 1:
        return observed
    return dataclasses.replace(observed, dispatches=tuple(d for d in observed.dispatches if d.call >= call))


def _earlier_calls(case: Case, observed: Observation, scenario: Scenario, expected: Expected) -> Verdict | None:
    """A model call before the case's own that did not carry its expected surface: the change,
    made later, cannot explain it."""
    for sent in observed.dispatches:
        if sent.call < case.call and sent.surface != expected[sent.call - 1]:
            said = (
                f"model call {sent.call} of {scenario.model_calls}, before the change, "
                "sent a surface that differs from the expected one: "
            )
            return Verdict(
                VerdictKind.SURVIVED,
                said + changes_said(diff_snapshots(expected[sent.call - 1], sent.surface), MAX_REASON - len(said)),
                ReasonCode.EARLIER_CALL_DIFFERS,
            )
    return None


def evidence(case: Case, observed: Observation, scenario: Scenario, expected: Expected) -> Evidence:
    """What the case's verdict rests on, each list whole: a reason names only the first few of it."""
    case, observed, scenario, expected = as_admitted(case, observed, scenario, expected)
    return Evidence(
        dispatches=len(observed.dispatches),
        ledger=observed.ledger,
        stop=observed.stop,
        diff=_diff_spoken_of(case, observed, scenario, expected),
        points=observed.points,
        availability=rulings(observed.facts, scenario.binding, scenario.contract.web_tools),
        aftermath=tuple(f"next request: {line}" for line in (*observed.leaked, *filter(None, [observed.unfollowed]))),
        listed=observed.listed,
        provider_failures=observed.provider_failures,
        before=observed.stale or observed.first_run,
        admitted=tuple(admission.admitted for admission in observed.admissions),
        publications=observed.publications,
    )


def _diff_spoken_of(case: Case, observed: Observation, scenario: Scenario, expected: Expected) -> tuple[str, ...]:
    """Every change of the model call a reason speaks of: the first that differs from its expected
    surface (or capability summary), else the first from the case's own call; when nothing was
    sent from there, the case's change."""
    for sent in observed.dispatches:
        # Before the case's own call only the surface is judged (`_earlier_calls`).
        summary = summary_changes(scenario.contract.summary, sent.summary) if sent.call >= case.call else ()
        if changes := tuple(map(str, (*diff_snapshots(_of_call(expected, sent.call), sent.surface), *summary))):
            return changes
    return () if from_call(observed, case.call).dispatches else (case.change or ())


def stopped(stop: Stop, settled_as_refusal: bool = False) -> str | None:
    """Why a run that stopped so cannot be judged; None when it ran to an end.

    A crash that sent nothing and was settled as a refusal gets a hint (`settled_as_refusal`): it
    may be the host's own refusal type, which the harness cannot know unless the target declares it.
    """
    if isinstance(stop, TimedOut):
        return (
            "target timed out; it ignored the interrupt, so its worker process was killed"
            if stop.killed
            else "target timed out"
        )
    if isinstance(stop, Died | Interrupted):
        return f"target's worker process {stop.how} while the case ran"
    if isinstance(stop, Crashed):
        kind = clip(stop.error_type, _NAME)
        hint = (
            f"; it sent nothing and settled as a refusal: if {kind} is its refusal, declare it in `refusals`"
            if settled_as_refusal
            else ""
        )
        head = f"target crashed: {kind}: "
        return clip(head + clip(stop.message, MAX_REASON - len(head) - len(hint)) + hint)
    return None


#: How much of an exception type's name a reason shows: room is left for its message.
_NAME = 24


def stop_code(stop: Stop) -> ReasonCode | None:
    """The code of a run that stopped so (see `stopped`); None when it ran to an end."""
    if isinstance(stop, TimedOut):
        return ReasonCode.TIMED_OUT
    if isinstance(stop, Died | Interrupted):
        return ReasonCode.WORKER_STOPPED
    return ReasonCode.CRASHED if isinstance(stop, Crashed) else None


def refused_earlier(stop: Stop, at: Boundary, offered: Iterable[Boundary]) -> bool:
    """Whether the run ended in a refusal in an earlier model call than `at`'s, where the target
    offers `at`'s point: the unchanged request was refused before the case's change could be made."""
    return isinstance(stop, Refused) and at.call > 1 and any(p.point == at.point for p in offered)


def _settled_as_refusal(observed: Observation, scenario: Scenario) -> bool:
    return not observed.dispatches and not _ledger_problems(observed, scenario, Settlement.PRE_DISPATCH_REJECTED)


def _not_exercised(case: Case, observed: Observation, beyond: bool = False) -> tuple[ReasonCode, str] | None:
    """Why the case could not be exercised, by its code and in words; None when it was."""
    if (code := stop_code(observed.stop)) is not None and not _failed_by_provider(case, observed):
        return code, stopped(observed.stop) or ""
    if observed.forks:
        forked = (
            f"{FORKED}{observed.forks} process(es) while the case ran: what a copy of the host does is out of sight"
        )
        return ReasonCode.FORKED, forked
    if observed.stale:
        said = f"{STALE}changed this one before its change was made: "
        return ReasonCode.STALE_HOST, said + listed(observed.stale, MAX_REASON - len(said))
    if observed.no_clean_run is not None:
        why = clip(observed.no_clean_run, MAX_REASON - len(NO_CLEAN_RUN) - len(_UNTOLD))
        return ReasonCode.NO_CLEAN_RUN, f"{NO_CLEAN_RUN}{why}{_UNTOLD}"
    if observed.injection_problem is not None:
        said = f"mutation could not be applied at {str(case.boundary)!r}: "
        return ReasonCode.INJECTION_FAILED, said + clip(observed.injection_problem, MAX_REASON - len(said))
    if not observed.injected and not beyond:
        offered = ", ".join(map(str, observed.points)) or "none"
        if isinstance(observed.stop, Capacity):
            # The host's own capacity check ended the request first: nothing was there to change.
            code, said = ReasonCode.CAPACITY_BEFORE_POINT, f"{BEFORE_POINT}{str(case.boundary)!r} (offered: "
        elif isinstance(stop := observed.stop, Refused) and refused_earlier(stop, case.boundary, observed.points):
            # The host refused its own unchanged request in an earlier model call: that is the flaw to name.
            said = f"{REFUSED_BEFORE}{str(case.boundary)!r}, unchanged: "
            return ReasonCode.REFUSED_BEFORE_POINT, said + clip(stop.message, MAX_REASON - len(said))
        else:
            code, said = (
                ReasonCode.POINT_NOT_OFFERED,
                f"target never offered injection point {str(case.boundary)!r} (offered: ",
            )
        return code, f"{said}{clip(offered, MAX_REASON - len(said) - 1)})"
    if not observed.touched:
        return ReasonCode.NOTHING_OBSERVED, "nothing observed: the target touched neither the gateway nor the ledger"
    return None


#: How a reason ends for a case whose scenario's clean run failed.
_UNTOLD = ", so what this case started from and what it left cannot be told"


def settlement_problems(ledger: Sequence[LedgerEvent], lane: str, request: str, settlement: Settlement) -> list[str]:
    """What keeps these ledger events from showing exactly one `settlement` of `lane:request` and
    no other; `read_results` holds a recorded verdict to the same rule. What became of the case's own
    reservation comes first: a reason too short for every problem names that one."""
    problems = []
    settled = [e for e in ledger if e.op is LedgerOp.SETTLE and e.accepted]
    ours = [e for e in settled if e.lane == lane and e.request == request]
    if not ours:
        problems.append(f"reservation {lane}:{request} was never settled")
    elif ours[0].settlement is not settlement:
        problems.append(f"reservation settled as {ours[0].settlement}, expected {settlement}")
    problems += [f"ledger refused: {event}" for event in ledger if not event.accepted]
    problems += [f"settlement on another lane or request: {e}" for e in settled if e not in ours]
    return problems


def _ledger_problems(observed: Observation, scenario: Scenario, settlement: Settlement) -> list[str]:
    """What keeps the ports from showing exactly one `settlement` on the case's own lane, and nothing else amiss."""
    problems = settlement_problems(observed.ledger, scenario.lane.value, scenario.identity.request, settlement)
    problems += [f"reservation left open: {key}" for key in observed.open_reservations]
    return problems


def store_problems(store: PublicationsDiff, may_add: bool) -> tuple[list[str], list[str]]:
    """What a run did to the publication store that its end does not allow, as (lost, added): a
    body changed or removed is always lost; one added is allowed only where `may_add` (a request
    that went out may publish its own; one that did not must leave the store exactly as it was)."""
    lost = [f"publication {e.key!r} changed" for e in store.changed]
    lost += [f"publication {e.key!r} removed" for e in store.removed]
    return lost, [] if may_add else [f"publication {e.key!r} added" for e in store.added]


def _of_call(expected: Expected, call: int) -> Snapshot:
    """The surface the `call`-th model call must carry; a call past the recorded ones, the last's."""
    return expected[min(call, len(expected)) - 1]


def _calls(observed: Observation, scenario: Scenario) -> str:
    """`model call 2 of 3: ` when the recording makes several, so a reason says which call it speaks of."""
    if scenario.model_calls == 1 or not observed.dispatches:
        return ""
    return f"model call {observed.dispatches[0].call} of {scenario.model_calls}: "


def _judge_refusal(observed: Observation, scenario: Scenario, expected: Expected, kind: Kind) -> Verdict:
    if observed.dispatches:
        sent = observed.dispatches[0]
        must = _of_call(expected, sent.call)
        changes: list[Said] = [
            *diff_snapshots(must, sent.surface),
            *summary_changes(scenario.contract.summary, sent.summary),
        ]
        recorded = scenario.model_calls - sent.call + 1
        if not changes and len(observed.dispatches) == recorded:
            # The request went out as admitted. On the MCP server's list, the change was the
            # server's: a host that sent its list from before it missed the change, and repaired
            # nothing. Elsewhere the change was undone before dispatch, unreported and unsettled.
            if kind is Kind.MCP:
                said = f"{_calls(observed, scenario)}dispatched {MISSED}"
                return Verdict(VerdictKind.SURVIVED, said, ReasonCode.DISPATCHED_MISSED_CHANGE)
            said = f"{_calls(observed, scenario)}dispatched the expected surface: {REPAIRED}"
            return Verdict(VerdictKind.SURVIVED, said, ReasonCode.DISPATCHED_REPAIRED)
        said = f"{_calls(observed, scenario)}dispatched {len(observed.dispatches)} request(s) with the change"
        if changes:
            said += ": " + changes_said(changes, MAX_REASON - len(said) - 2)
        return Verdict(VerdictKind.SURVIVED, said, ReasonCode.DISPATCHED_WITH_CHANGE)
    unsettled = _unsettled(
        observed,
        scenario,
        Settlement.PRE_DISPATCH_REJECTED,
        "refused, but ",
        (ReasonCode.REFUSED_UNSETTLED, ReasonCode.REFUSED_PUBLICATION_LOST, ReasonCode.REFUSED_PUBLICATION_ADDED),
    )
    return unsettled or KILLED


def _unsettled(
    observed: Observation,
    scenario: Scenario,
    settlement: Settlement,
    head: str,
    codes: tuple[ReasonCode, ReasonCode, ReasonCode | None],
) -> Verdict | None:
    """A request that ended as it must, but the ports show it otherwise amiss: `survived`, coded
    (unsettled, lost, added) by the first of these the ports show: the ledger amiss, a publication
    changed or removed, one added. Where the added code is None the end allows an addition: a
    dispatched request's own publication."""
    ledger = _ledger_problems(observed, scenario, settlement)
    lost, added = store_problems(observed.publications, may_add=codes[2] is None)
    problems = ledger + lost + added
    if not problems:
        return None
    code = codes[0] if ledger else codes[1] if lost else codes[2]
    assert code is not None, "an addition is a problem only where it has a code"
    said = head + listed(problems, MAX_REASON - len(head))
    return Verdict(VerdictKind.SURVIVED, said, code)


def _judge_capacity(observed: Observation, scenario: Scenario) -> Verdict:
    """The required tools cannot fit: only an explicit capacity result, settled, is right."""
    if observed.dispatches:
        sent = len(observed.dispatches[0].surface)
        said = f"dispatched {sent} of {len(scenario.surface)} required tools instead of an explicit capacity result"
        if (edge := scenario.edge) is not None:  # where a count one short lets the request through
            said += f": {edge.measure} {edge.unit} for {edge.limit} {edge.value}"
        return Verdict(VerdictKind.SURVIVED, clip(said, MAX_REASON), ReasonCode.DISPATCHED_OVER_CAPACITY)
    if not isinstance(observed.stop, Capacity):
        why = observed.stop.message if isinstance(observed.stop, Refused) else "no dispatch and no capacity result"
        said = "refused instead of an explicit capacity result: "
        return Verdict(
            VerdictKind.FALSE_REJECT, said + clip(why, MAX_REASON - len(said)), ReasonCode.REFUSED_NOT_CAPACITY
        )
    unsettled = _unsettled(
        observed,
        scenario,
        Settlement.PRE_DISPATCH_REJECTED,
        "capacity result, but ",
        (ReasonCode.CAPACITY_UNSETTLED, ReasonCode.CAPACITY_PUBLICATION_LOST, ReasonCode.CAPACITY_PUBLICATION_ADDED),
    )
    return unsettled or CAPACITY_RESULT


def _judge_failure(observed: Observation, scenario: Scenario, call: int) -> Verdict:
    """The provider failed model call `call` and every one after: the request ends there (raised or
    handled), settled once as `failure_settlement` says, and, where nothing went out, it leaves the
    publication store as it was."""
    which = f"model call {call}" + (f" of {scenario.model_calls}" if scenario.model_calls > 1 else "")
    if not observed.provider_failures:
        # The host never asked the provider for the call: it refused, or stopped, before it.
        if isinstance(observed.stop, Refused | Capacity):
            said = f"a legitimate request was refused before {which}: "
            said += clip(observed.stop.message, MAX_REASON - len(said))
            return Verdict(VerdictKind.FALSE_REJECT, said, ReasonCode.FALSE_REJECTION)
        return Verdict(
            VerdictKind.FALSE_REJECT, f"a legitimate request never made {which}", ReasonCode.NEVER_DISPATCHED
        )
    went_out = bool(observed.dispatches)
    lane, request = scenario.lane.value, scenario.identity.request
    settlement = failure_settlement(went_out, observed.ledger, lane, request)
    unsettled = _unsettled(
        observed,
        scenario,
        settlement,
        f"the provider failed {which}, but ",
        (
            ReasonCode.PROVIDER_FAILURE_UNSETTLED,
            ReasonCode.PROVIDER_FAILURE_PUBLICATION_LOST,
            None if went_out else ReasonCode.PROVIDER_FAILURE_PUBLICATION_ADDED,
        ),
    )
    after = "after an earlier model call went out" if went_out else "before any model call went out"
    said = f"ended in the provider's failure {after}, settled once as {settlement}"
    return unsettled or Verdict(VerdictKind.PASSED, said, ReasonCode.PROVIDER_FAILURE_SETTLED)


def failure_settlement(went_out: bool, ledger: Sequence[LedgerEvent], lane: str, request: str) -> Settlement:
    """How a request the provider failed must be settled: once, as `failed` or `dispatched`, never
    as a refusal. Either is the host's call: whether a failing model call reached the provider (a
    timeout after it was read, say) a host cannot always tell, and a request that failed after
    model calls went out has failed and was dispatched. The one the host chose, where it is one of
    them; else what the guard's `settling` chooses: `dispatched` where a model call went out."""
    settled = [e.settlement for e in ledger if e.op is LedgerOp.SETTLE and (e.lane, e.request) == (lane, request)]
    if len(settled) == 1 and settled[0] in (Settlement.FAILED, Settlement.DISPATCHED):
        return settled[0]
    return Settlement.DISPATCHED if went_out else Settlement.FAILED


def _judge_dispatch(observed: Observation, scenario: Scenario, expected: Expected, call: int) -> Verdict:
    """Every model call from the case's `call` on went out with its own expected surface, and the
    request was settled once."""
    calls = scenario.model_calls
    last = observed.dispatches[-1].call if observed.dispatches else call - 1
    if last > calls:
        return Verdict(
            VerdictKind.SURVIVED,
            f"dispatched {last} times" + (f" where the recording makes {calls} model calls" if calls > 1 else ""),
            ReasonCode.DISPATCHED_TOO_OFTEN,
        )
    for sent in observed.dispatches:
        said = f"model call {sent.call} of {calls}: " if calls > 1 else ""
        if sent.surface != (must := _of_call(expected, sent.call)):
            said += "dispatched a surface that differs from the expected one: "
            said += changes_said(diff_snapshots(must, sent.surface), MAX_REASON - len(said))
            return Verdict(VerdictKind.SURVIVED, said, ReasonCode.DISPATCHED_CHANGED_SURFACE)
        if summary := summary_changes(scenario.contract.summary, sent.summary):
            said += "dispatched a capability summary the contract does not state: "
            said += changes_said(summary, MAX_REASON - len(said))
            return Verdict(VerdictKind.SURVIVED, said, ReasonCode.DISPATCHED_CHANGED_SUMMARY)
    if last < calls:
        missing = f"model call {last + 1} of {calls} was never made: " if calls > 1 else ""
        if isinstance(observed.stop, Refused | Capacity):
            said = f"a legitimate change was refused: {missing}"
            said += clip(observed.stop.message, MAX_REASON - len(said))
            return Verdict(VerdictKind.FALSE_REJECT, said, ReasonCode.FALSE_REJECTION)
        if last == 0:
            said = f"a legitimate change was refused: {missing}no dispatch"
            return Verdict(VerdictKind.FALSE_REJECT, said, ReasonCode.NEVER_DISPATCHED)
        # It sent what it was asked to and stopped: the recording it was to follow was not followed.
        return Verdict(
            VerdictKind.ERROR,
            f"made {last} of the {calls} model calls the recording makes: "
            f"the tool calls of reply {last} were never answered",
            ReasonCode.CALLS_UNANSWERED,
        )
    unsettled = _unsettled(
        observed,
        scenario,
        Settlement.DISPATCHED,
        "dispatched, but ",
        # A request that went out may publish what it made: only a body it found may not be lost.
        (ReasonCode.DISPATCHED_UNSETTLED, ReasonCode.DISPATCHED_PUBLICATION_LOST, None),
    )
    return unsettled or DISPATCHED_AS_EXPECTED
