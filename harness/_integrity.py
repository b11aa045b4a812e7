"""Whether each case of a results.json could have been judged as it says: its verdict against its own evidence.

results.json is a file, and a file can be edited: a `survived` turned `killed` and the totals
added up again would pass the gate. `read_results` (so `report` and `merge`) therefore holds every
case record to the rules the oracle (`_oracles.judge`) decides by, restated over what a record
keeps — how the run stopped, how many requests went out, every ledger event, the points offered,
the verdict's reason code. The code decides here; the words of a reason are never read (only its
size and shape are). A record the oracle could not have written is refused with one line naming
its JSON path and what disagrees; so is a file holding other than the cases its run selected (a
survivor dropped, say).

What a record does not keep (the surface sent, the publication store's whole bodies, the red
target's evidence) is not checked here: a red verdict is held only to its code and the case's
mutation. The digest of the case lines (`Summary.digest`) is what shows any other edit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from toolsurface.contract._owner import Settlement
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import RequestOutcome

from ._admission import admitted_outcome, as_admitted_case
from ._codes import AFTER, ERRORS, ReasonCode
from ._oracles import failure_settlement, refused_earlier, settlement_problems, stop_code, store_problems
from ._reasons import MAX_REASON, fits
from ._record import RunInfo, ScenarioInfo
from ._types import (
    Capacity,
    CaseRecord,
    Crashed,
    Died,
    Evidence,
    Interrupted,
    LedgerEvent,
    LedgerOp,
    NotRun,
    Refused,
    TimedOut,
    Verdict,
    VerdictKind,
)

#: The evidence of a case that was not run.
NOT_RUN = Evidence(0, (), NotRun(), (), (), ())


@dataclass(frozen=True, slots=True)
class _Judged:
    """A recording as one role's target was judged on it: its lane and request, and how its
    unmutated request must end there (capacity by the target's own token count, or as recorded)."""

    lane: str
    request: str
    outcome: RequestOutcome
    #: The capacity result comes from the target's own token count, not the recording: cases at
    #: points past context fitting are planned, never reached, and judged on that result.
    estimated: bool
    model_calls: int = 1

    @classmethod
    def of(cls, info: ScenarioInfo, outcome: RequestOutcome) -> _Judged:
        return cls(info.lane.value, info.request, outcome, outcome is not info.outcome, info.model_calls)

    def beyond(self, record: CaseRecord) -> bool:
        """Whether the case's point lies past where its request ended in that capacity result: by
        the target's own count, or at a boundary of the target's own it never reached."""
        own = not record.case.boundary.is_recorded and self.outcome is RequestOutcome.CAPACITY
        return (self.estimated or own) and record.case.boundary not in record.evidence.points

    def remaining(self, record: CaseRecord) -> int:
        """How many model calls the request makes from the case's own on."""
        return self.model_calls - record.case.call + 1


def _count(calls: int) -> str:
    return "one" if calls == 1 else str(calls)


def _later(record: CaseRecord) -> int:
    """The dispatches from the case's own model call on: reaching its boundary took every earlier call."""
    return record.evidence.dispatches - (record.case.call - 1)


@dataclass(frozen=True, slots=True)
class Inconsistency:
    """A case record whose verdict its own evidence, or the run, contradicts."""

    #: The JSON path of what disagrees: `$.cases[17].verdict.kind`.
    where: str
    what: str


def check_cases(run: RunInfo, cases: Sequence[CaseRecord]) -> Inconsistency | None:
    """Cases added or removed, or else the first case record that the oracle could not have written,
    in file order; None when the record holds together."""
    if (wrong := check_count(run, len(cases))) is not None:
        return wrong
    check = CaseCheck(run)
    return next(filter(None, map(check, range(len(cases)), cases)), None)


def share_of(run: RunInfo) -> int:
    """How many cases a file of the run holds: what it selected, or of that a shard's share."""
    return run.shard.share(run.selected) if run.shard else run.selected


def check_count(run: RunInfo, count: int) -> Inconsistency | None:
    """Other than as many cases as the run selected for this file: a case added or removed."""
    share = share_of(run)
    if count != share:
        part = f" for shard {run.shard}" if run.shard else ""
        return Inconsistency(
            "$.cases", f"{count} cases, but the run selected {share}{part}: a case was added or removed"
        )
    return None


class CaseCheck:
    """Checks the case records of one run one at a time, as they are read."""

    def __init__(self, run: RunInfo) -> None:
        self._run = run
        self._scenarios = {scenario.id: scenario for scenario in run.scenarios}

    def __call__(self, index: int, record: CaseRecord) -> Inconsistency | None:
        """The first thing wrong with the record at `$.cases[index]`, or None."""
        for where, what in _problems(self._run, self._scenarios.get(record.case.scenario), record):
            return Inconsistency(f"$.cases[{index}].{where}", what)
        return None


def _problems(run: RunInfo, info: ScenarioInfo | None, record: CaseRecord) -> Iterator[tuple[str, str]]:
    if info is None:
        yield "case.scenario", f"{record.case.scenario!r} is not one of the run's recordings"
        return
    scenario = _Judged.of(info, admitted_outcome(record.evidence.admitted, info.target_outcome))
    # Judged as admission left it (`_admission`): a change before it ended was admission's to make.
    record = dataclasses.replace(record, case=as_admitted_case(record.case, record.evidence.admitted))
    verdict = record.verdict
    for where, judged in (("verdict", verdict), ("red_verdict", record.red_verdict)):
        if judged is not None and not fits(judged.reason):
            yield f"{where}.reason", f"{_unfit(judged.reason)}: the oracle writes one line of at most {MAX_REASON}"
            return
    if record.evidence.aftermath or verdict.code in AFTER:
        # What the case did after its request: the verdict fails for it, whatever the request showed.
        yield from _aftermath(record)
        yield from _red(run, record, info)
        return
    # The verdict against the case first, then against its evidence, then its code: a flipped
    # verdict is named by what its evidence shows rather than by the code left beside it.
    yield from _verdict("verdict", verdict, record, scenario)
    yield from (
        ("verdict.kind", f"{verdict.kind}, but {problem}") for problem in _RULES[verdict.kind](record, scenario)
    )
    yield from _code("verdict", verdict, record, scenario)
    yield from _red(run, record, info)
    killed, defects = record.defects_killed, run.defects
    if (killed is None) != (defects is None) or set(killed or ()) - set(defects or ()):
        yield "defects_killed", f"{killed!r} does not fit the defects the run ran ({defects!r})"


def _unfit(reason: str) -> str:
    """What keeps a reason from being one the oracle writes: its length, or its line breaks and spacing."""
    if len(reason) > MAX_REASON:
        return f"{len(reason)} characters"
    return "a line break in it" if reason.splitlines() != [reason] else "spacing the oracle never writes"


def _aftermath(record: CaseRecord) -> Iterator[tuple[str, str]]:
    verdict, aftermath = record.verdict, record.evidence.aftermath
    if not aftermath:
        yield (
            "evidence.aftermath",
            f"empty, but the verdict's code is about what the case did after its request: {verdict.code}",
        )
    elif verdict.kind.ok:
        yield "verdict.kind", f"{verdict.kind}, but the case did something after its request: {aftermath[0]}"
    elif verdict.code not in AFTER and verdict.kind is not VerdictKind.ERROR:
        yield "verdict.code", f"{verdict.code} is not about what the case did after its request: {aftermath[0]}"


def _verdict(where: str, verdict: Verdict, record: CaseRecord, scenario: _Judged) -> Iterator[tuple[str, str]]:
    """A verdict the oracle never gives this case, whatever the evidence."""
    if verdict.kind not in _codes(record, scenario):
        yield f"{where}.kind", f"{verdict.kind}: a verdict the oracle never gives {_what_case(record)}"


def _code(where: str, verdict: Verdict, record: CaseRecord, scenario: _Judged) -> Iterator[tuple[str, str]]:
    """A code the oracle never gives this verdict on this case."""
    if verdict.code not in _codes(record, scenario).get(verdict.kind, ()):
        yield f"{where}.code", f"{verdict.code} is not a code the oracle gives a {verdict.kind} verdict here"


def _codes(record: CaseRecord, scenario: _Judged) -> dict[VerdictKind, frozenset[ReasonCode]]:
    """The codes the oracle may give each verdict on this case, before anything after its request."""
    codes = _judged_codes(record, scenario)
    if record.case.mutation.kind is Kind.MCP:  # a target that never lists from the MCP server
        codes[VerdictKind.EQUIVALENT] = frozenset({ReasonCode.MCP_UNREACHED})
    if record.evidence.admitted:  # a change after admission to a tool it did not select, or one
        # before it (judged as admission's) to a wire field the target does not carry
        unreached = {ReasonCode.NOT_SELECTED, *([ReasonCode.NOT_CARRIED] * (record.case.mutation.kind is Kind.WIRE))}
        codes[VerdictKind.EQUIVALENT] = codes.get(VerdictKind.EQUIVALENT, frozenset()) | unreached
    return codes


_REFUSE_SURVIVED = frozenset(
    {
        ReasonCode.DISPATCHED_WITH_CHANGE,
        ReasonCode.DISPATCHED_REPAIRED,
        ReasonCode.DISPATCHED_MISSED_CHANGE,
        ReasonCode.EARLIER_CALL_DIFFERS,
        ReasonCode.REFUSED_UNSETTLED,
        ReasonCode.REFUSED_PUBLICATION_LOST,
        ReasonCode.REFUSED_PUBLICATION_ADDED,
    }
)
_CAPACITY_SURVIVED = frozenset(
    {
        ReasonCode.DISPATCHED_OVER_CAPACITY,
        ReasonCode.EARLIER_CALL_DIFFERS,
        ReasonCode.CAPACITY_UNSETTLED,
        ReasonCode.CAPACITY_PUBLICATION_LOST,
        ReasonCode.CAPACITY_PUBLICATION_ADDED,
    }
)
_DISPATCH_SURVIVED = frozenset(
    {
        ReasonCode.DISPATCHED_TOO_OFTEN,
        ReasonCode.DISPATCHED_CHANGED_SURFACE,
        ReasonCode.DISPATCHED_CHANGED_SUMMARY,
        ReasonCode.EARLIER_CALL_DIFFERS,
        ReasonCode.DISPATCHED_UNSETTLED,
        ReasonCode.DISPATCHED_PUBLICATION_LOST,
    }
)


_FAILURE_SURVIVED = frozenset(
    {
        ReasonCode.EARLIER_CALL_DIFFERS,
        ReasonCode.PROVIDER_FAILURE_UNSETTLED,
        ReasonCode.PROVIDER_FAILURE_PUBLICATION_LOST,
        ReasonCode.PROVIDER_FAILURE_PUBLICATION_ADDED,
    }
)


def _judged_codes(record: CaseRecord, scenario: _Judged) -> dict[VerdictKind, frozenset[ReasonCode]]:
    if record.case.equivalent:
        return {VerdictKind.EQUIVALENT: frozenset({ReasonCode.EQUIVALENT})}
    if _fails(record, scenario):
        return {
            VerdictKind.PASSED: frozenset({ReasonCode.PROVIDER_FAILURE_SETTLED}),
            VerdictKind.SURVIVED: _FAILURE_SURVIVED,
            VerdictKind.FALSE_REJECT: frozenset({ReasonCode.FALSE_REJECTION, ReasonCode.NEVER_DISPATCHED}),
            VerdictKind.ERROR: ERRORS,
        }
    if record.case.must is Must.REFUSE and not scenario.beyond(record):
        wire = record.case.mutation.kind is Kind.WIRE
        return {
            VerdictKind.KILLED: frozenset({ReasonCode.REFUSED_SETTLED}),
            VerdictKind.SURVIVED: _REFUSE_SURVIVED,
            VerdictKind.ERROR: ERRORS,
            **({VerdictKind.EQUIVALENT: frozenset({ReasonCode.NOT_CARRIED})} if wire else {}),
        }
    if scenario.outcome is RequestOutcome.CAPACITY:
        return {
            VerdictKind.PASSED: frozenset({ReasonCode.CAPACITY_RESULT}),
            VerdictKind.SURVIVED: _CAPACITY_SURVIVED,
            VerdictKind.FALSE_REJECT: frozenset({ReasonCode.REFUSED_NOT_CAPACITY}),
            VerdictKind.ERROR: ERRORS,
        }
    return {
        VerdictKind.PASSED: frozenset({ReasonCode.DISPATCHED_AS_EXPECTED}),
        VerdictKind.SURVIVED: _DISPATCH_SURVIVED,
        VerdictKind.FALSE_REJECT: frozenset({ReasonCode.FALSE_REJECTION, ReasonCode.NEVER_DISPATCHED}),
        VerdictKind.ERROR: ERRORS,
    }


def _fails(record: CaseRecord, scenario: _Judged) -> bool:
    """Whether the case's provider fails its model call, on a request that makes one."""
    return record.case.must is Must.FAIL and scenario.outcome is not RequestOutcome.CAPACITY


def _what_case(record: CaseRecord) -> str:
    if record.case.equivalent:
        return "a case whose mutation changes nothing (it is equivalent)"
    return f"a case whose mutation a guard must {record.case.must.value}"


# One rule per verdict: what the evidence must show for the oracle to have given it. Each yields
# what the evidence shows instead; the first is the error.


def _killed(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence = record.evidence
    yield from _unexercised(record, scenario)
    if _later(record):
        yield f"{_later(record)} request(s) were dispatched"
    yield from _ledger(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED)
    yield from _store(evidence, may_add=False)


def _passed(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence = record.evidence
    if _fails(record, scenario):
        yield from _provider_failed(record, scenario)
        yield from _ledger(evidence.ledger, scenario, _failure_settlement(evidence, scenario))
        yield from _store(evidence, may_add=bool(evidence.dispatches))
        return
    yield from _unexercised(record, scenario)
    if scenario.outcome is RequestOutcome.CAPACITY:
        if evidence.dispatches:
            yield f"{evidence.dispatches} request(s) were dispatched where only a capacity result is right"
        if not isinstance(evidence.stop, Capacity):
            yield f"the run ended {evidence.ending}, not in a capacity result"
        yield from _ledger(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED)
        yield from _store(evidence, may_add=False)
        return
    if evidence.dispatches != scenario.model_calls:
        yield f"{evidence.dispatches} request(s) were dispatched, not exactly {_count(scenario.model_calls)}"
    if evidence.diff:
        yield f"the request sent differs from the expected one: {evidence.diff[0]}"
    yield from _ledger(evidence.ledger, scenario, Settlement.DISPATCHED)
    yield from _store(evidence, may_add=True)


def _provider_failed(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    """What the oracle turns into another verdict before judging how a failed request ended: the
    provider failed no model call, the run did not end (a crash is the failure's), or a model call
    went out from the failed one on."""
    evidence = record.evidence
    if not evidence.provider_failures:
        yield "the provider failed no model call"
    elif isinstance(evidence.stop, TimedOut | Died | Interrupted | NotRun):
        yield f"the target's run stopped as {evidence.stop.tag}"
    elif _later(record):
        yield f"{_later(record)} request(s) were dispatched from the model call the provider failed on"


def _raised_by_failure(record: CaseRecord) -> bool:
    """Whether the run raised where its provider failed it: the case's expected end, not a crash."""
    evidence = record.evidence
    return record.case.must is Must.FAIL and evidence.provider_failures > 0 and isinstance(evidence.stop, Crashed)


def _failure_settlement(evidence: Evidence, scenario: _Judged) -> Settlement:
    """How a request the provider failed must be settled (`failure_settlement`)."""
    return failure_settlement(bool(evidence.dispatches), evidence.ledger, scenario.lane, scenario.request)


def _store(evidence: Evidence, may_add: bool) -> Iterator[str]:
    """What the publication store shows that a request ended so does not allow (`store_problems`)."""
    lost, added = store_problems(evidence.publications, may_add)
    yield from lost + added


def _survived(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence, code = record.evidence, record.verdict.code
    if _fails(record, scenario):
        yield from _provider_failed(record, scenario)
        if code in _STORE:
            yield from _store_as_coded(record)
        elif code is not ReasonCode.EARLIER_CALL_DIFFERS:
            yield from _nothing_amiss(evidence.ledger, scenario, _failure_settlement(evidence, scenario))
        return
    yield from _unexercised(record, scenario)
    yield from _sent_as_coded(record)
    if record.case.must is Must.DISPATCH and scenario.outcome is not RequestOutcome.CAPACITY:
        if not _later(record):
            yield "nothing was dispatched, which the oracle calls a false rejection"
        elif code is ReasonCode.DISPATCHED_UNSETTLED:  # the surface went out as expected: the ledger is what failed
            yield from _nothing_amiss(evidence.ledger, scenario, Settlement.DISPATCHED)
        elif code in _STORE:
            yield from _store_as_coded(record)
        return
    if _later(record):
        return  # an illegitimate change sent, or a shortened list instead of a capacity result
    if code is ReasonCode.EARLIER_CALL_DIFFERS:
        return  # an earlier model call sent a surface that differs from its own
    if record.case.must is Must.DISPATCH and not isinstance(evidence.stop, Capacity):
        yield f"the run ended {evidence.ending}, which the oracle calls a false rejection"
    if code in _STORE:
        yield from _store_as_coded(record)
    else:
        yield from _nothing_amiss(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED)


#: The codes of a request that ended as it must and then lost a publication (changed or removed one).
_LOST = frozenset(
    {
        ReasonCode.REFUSED_PUBLICATION_LOST,
        ReasonCode.CAPACITY_PUBLICATION_LOST,
        ReasonCode.DISPATCHED_PUBLICATION_LOST,
        ReasonCode.PROVIDER_FAILURE_PUBLICATION_LOST,
    }
)
#: The codes of a request that sent nothing, lost nothing and added a publication.
_ADDED = frozenset(
    {
        ReasonCode.REFUSED_PUBLICATION_ADDED,
        ReasonCode.CAPACITY_PUBLICATION_ADDED,
        ReasonCode.PROVIDER_FAILURE_PUBLICATION_ADDED,
    }
)
#: The codes of a failure that rests on the publication store alone.
_STORE = _LOST | _ADDED


def _store_as_coded(record: CaseRecord) -> Iterator[str]:
    """For a failure its code says rests on the publication store: the store shows what the code
    says (the oracle codes a loss before an addition)."""
    store, code = record.evidence.publications, record.verdict.code
    if code in _LOST and not store.lost:
        yield f"the publication store shows nothing changed or removed, which {code} says was"
    elif code in _ADDED and not store.added:
        yield f"the publication store shows nothing added, which {code} says was"
    elif code in _ADDED and store.lost:
        yield f"publication {store.lost[0].key!r} was changed or removed, which {code} does not say"


def _sent_as_coded(record: CaseRecord) -> Iterator[str]:
    """Requests dispatched where the verdict's code says none was, or none where it says some were."""
    later, code = _later(record), record.verdict.code
    if later and code in _UNSENT:
        yield f"{later} request(s) were dispatched, which {code} says were not"
    elif not later and code in _SENT:
        yield f"nothing was dispatched, which {code} says was"


#: The codes of a failure on a request that sent nothing from the case's own model call on.
_UNSENT = frozenset(
    {
        ReasonCode.REFUSED_UNSETTLED,
        ReasonCode.REFUSED_PUBLICATION_LOST,
        ReasonCode.REFUSED_PUBLICATION_ADDED,
        ReasonCode.CAPACITY_UNSETTLED,
        ReasonCode.CAPACITY_PUBLICATION_LOST,
        ReasonCode.CAPACITY_PUBLICATION_ADDED,
        ReasonCode.NEVER_DISPATCHED,
    }
)
#: The codes of a failure on a request that dispatched from the case's own model call on.
_SENT = frozenset(
    {
        ReasonCode.DISPATCHED_WITH_CHANGE,
        ReasonCode.DISPATCHED_REPAIRED,
        ReasonCode.DISPATCHED_MISSED_CHANGE,
        ReasonCode.DISPATCHED_OVER_CAPACITY,
        ReasonCode.DISPATCHED_TOO_OFTEN,
        ReasonCode.DISPATCHED_CHANGED_SURFACE,
        ReasonCode.DISPATCHED_CHANGED_SUMMARY,
        ReasonCode.DISPATCHED_UNSETTLED,
        ReasonCode.DISPATCHED_PUBLICATION_LOST,
    }
)


def _false_reject(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence = record.evidence
    yield from _unexercised(record, scenario)
    yield from _sent_as_coded(record)
    if record.verdict.code is ReasonCode.FALSE_REJECTION and not isinstance(evidence.stop, Refused | Capacity):
        yield f"the run ended {evidence.ending}, not in the refusal {ReasonCode.FALSE_REJECTION} says"
    if _later(record) >= scenario.remaining(record):
        yield f"{_later(record)} request(s) were dispatched"
    if scenario.outcome is RequestOutcome.CAPACITY and isinstance(evidence.stop, Capacity):
        yield "the run ended in the capacity result this request must end in"


def _error(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence, code, at = record.evidence, record.verdict.code, record.case.boundary
    point = str(at)
    stop = evidence.stop
    if (stopped_as := stop_code(stop)) is not None and not _raised_by_failure(record):
        if code is not stopped_as:
            yield f"the target's run stopped as {stop.tag}, and the code is not the oracle's for that, {stopped_as}"
    elif isinstance(stop, NotRun):
        yield "the target was not run"
    elif code in _TAKEN_AT_ITS_WORD:
        pass  # what the host did to its process and its state is not in the record
    elif code is ReasonCode.INJECTION_FAILED:
        if at not in evidence.points:
            yield f"the target never offered {point!r}, so no mutation can have failed there"
    elif at not in evidence.points and not scenario.beyond(record):
        # Ended in its own capacity result before the point, or never offered it at all.
        before = (
            ReasonCode.CAPACITY_BEFORE_POINT
            if isinstance(stop, Capacity)
            else ReasonCode.REFUSED_BEFORE_POINT
            if refused_earlier(stop, at, evidence.points)
            else ReasonCode.POINT_NOT_OFFERED
        )
        if code is not before:
            yield f"the target never offered {point!r} (its run ended {evidence.ending}), and the code is not {before}"
    elif not evidence.dispatches and not evidence.ledger:
        if code is not ReasonCode.NOTHING_OBSERVED:
            yield f"the target touched neither gateway nor ledger, and the code is not {ReasonCode.NOTHING_OBSERVED}"
    elif code is ReasonCode.CALLS_UNANSWERED and evidence.dispatches < scenario.model_calls:
        pass  # it never answered a reply's tool calls with the next model call
    else:
        yield f"the target ran to an end ({evidence.ending}), offered {point!r} and reached the ports"


#: Errors for what the host did to its process and its state before its change: not in the record.
_TAKEN_AT_ITS_WORD = frozenset(
    {ReasonCode.FORKED, ReasonCode.STALE_HOST, ReasonCode.NO_CLEAN_RUN, ReasonCode.FIRST_RUN_FAILED}
)


def _equivalent(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    if record.verdict.code is ReasonCode.MCP_UNREACHED:
        if record.evidence.listed:
            yield f"the target read {record.evidence.listed} page(s) of the MCP server's tools/list"
        else:
            yield from _unexercised(record, scenario)
    # A wire field the target's format does not carry: the target ran, and its mutation could not.
    elif record.evidence != NOT_RUN and record.verdict.code not in (ReasonCode.NOT_CARRIED, ReasonCode.NOT_SELECTED):
        yield f"the target ran (its run ended {record.evidence.ending}, {record.evidence.dispatches} dispatch(es))"


_RULES: dict[VerdictKind, Callable[[CaseRecord, _Judged], Iterator[str]]] = {
    VerdictKind.KILLED: _killed,
    VerdictKind.PASSED: _passed,
    VerdictKind.SURVIVED: _survived,
    VerdictKind.FALSE_REJECT: _false_reject,
    VerdictKind.ERROR: _error,
    VerdictKind.EQUIVALENT: _equivalent,
}


def _unexercised(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    """What the oracle turns into an `error` before any other verdict: the case did not run as planned."""
    evidence, at = record.evidence, record.case.boundary
    if isinstance(evidence.stop, TimedOut | Crashed | Died | Interrupted | NotRun):
        yield f"the target's run stopped as {evidence.stop.tag}"
    elif at not in evidence.points and not scenario.beyond(record):
        yield f"the target never offered its injection point {str(at)!r}"
    elif not evidence.dispatches and not evidence.ledger:
        yield "the target touched neither gateway nor ledger"


def _ledger(ledger: Sequence[LedgerEvent], scenario: _Judged, settlement: Settlement) -> Iterator[str]:
    """What keeps the ledger from showing exactly one `settlement` of the case's own reservation,
    and nothing left open."""
    yield from settlement_problems(ledger, scenario.lane, scenario.request, settlement)
    yield from (f"reservation left open: {key}" for key in _left_open(ledger))


def _nothing_amiss(ledger: Sequence[LedgerEvent], scenario: _Judged, settlement: Settlement) -> Iterator[str]:
    """For a failure its code says rests on the ledger: the ledger shows nothing wrong."""
    if not any(_ledger(ledger, scenario, settlement)):
        yield f"the ledger shows the reservation settled as {settlement.value}, and nothing else amiss"


def _left_open(ledger: Sequence[LedgerEvent]) -> list[str]:
    """Reservations the events leave open, as `lane:request`: as the ports count them."""
    open_: dict[str, None] = {}
    for event in ledger:
        key = f"{event.lane}:{event.request}"
        if event.op is LedgerOp.RESERVE:
            open_[key] = None
        elif event.accepted:
            open_.pop(key, None)
    return list(open_)


def _red(run: RunInfo, record: CaseRecord, info: ScenarioInfo) -> Iterator[tuple[str, str]]:
    """A red verdict has no evidence of its own in the record: it is held to the pairing, its code and the case."""
    red = record.red_verdict
    scenario = _Judged.of(info, info.red_outcome or info.outcome)
    if (info.red_outcome is None) != (run.red_target is None):
        yield (
            "scenarios",
            f"{info.id!r}: red_outcome {info.red_outcome!r} does not fit the pairing ({run.red_target!r})",
        )
    elif (red is None) != (run.red_target is None):
        paired = f"paired with {run.red_target}" if run.red_target else "not paired"
        yield "red_verdict", f"{'no' if red is None else 'a'} red verdict, but the run was {paired}"
    elif red is not None:
        yield from _verdict("red_verdict", red, record, scenario)
        if not (red.code in _LATE and not red.kind.ok):  # what the red host did after its run returned
            yield from _code("red_verdict", red, record, scenario)


#: The codes of a verdict failed for what its host did after `run` returned.
_LATE = frozenset({ReasonCode.LATE_EFFECT, ReasonCode.UNWATCHED})
