"""Whether each case of a results.json could have been judged as it says: its verdict against its own evidence.

results.json is a file, and a file can be edited: a `survived` turned `killed` and the totals
added up again would pass the gate. `read_results` (so `report` and `merge`) therefore holds every
case record to the rules the oracle (`_oracles.judge`) decides by, restated over what a record
keeps — how the run stopped, how many requests went out, every ledger event, the points offered,
the verdict's reason. A record the oracle could not have written is refused with one line naming
its JSON path and what disagrees; so is a file holding other than the cases its run selected (a
survivor dropped, say).

What a record does not keep (the surface sent, the publication store, the red target's evidence)
is not checked here: a red verdict is held only to its reason and the case's mutation. The
digest of the case lines (`Summary.digest`) is what shows any other edit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from toolsurface.contract._owner import Settlement
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import RequestOutcome

from ._oracles import (
    BEFORE_POINT,
    CAPACITY_RESULT,
    DISPATCHED_AS_EXPECTED,
    EQUIVALENT,
    FIRST_RUN,
    FORKED,
    KILLED,
    LATE,
    NO_CLEAN_RUN,
    NOT_CARRIED,
    OUTLIVED,
    STALE,
    UNFOLLOWED,
    UNREACHED,
    settlement_problems,
    stopped,
)
from ._reasons import MAX_REASON, begins, fits
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
    TimedOut,
    Verdict,
    VerdictKind,
)
from ._watch import UNWATCHED

#: The evidence of a case that was not run.
NOT_RUN = Evidence(0, (), NotRun(), (), (), ())

#: How the oracle's reasons begin for a case that could not be exercised.
_NOT_EXERCISED = (
    "target timed out",
    "target's worker process ",
    "target crashed: ",
    FORKED,
    STALE,
    NO_CLEAN_RUN,
    FIRST_RUN,
    "mutation could not be applied at ",
    "target never offered injection point ",
    BEFORE_POINT,
    "nothing observed: ",
    "made ",
)


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
    scenario = _Judged.of(info, info.target_outcome)
    verdict = record.verdict
    for where, judged in (("verdict", verdict), ("red_verdict", record.red_verdict)):
        if judged is not None and not fits(judged.reason):
            yield f"{where}.reason", f"{_unfit(judged.reason)}: the oracle writes one line of at most {MAX_REASON}"
            return
    if record.evidence.aftermath or verdict.reason.startswith(_AFTER):
        # What the case did after its request: the verdict fails for it, whatever the request showed.
        yield from _aftermath(record)
        yield from _red(run, record, info)
        return
    # The verdict against the case first, then against its evidence, then its reason: a flipped
    # verdict is named by what its evidence shows rather than by the words left beside it.
    yield from _verdict("verdict", verdict, record, scenario)
    yield from (
        ("verdict.kind", f"{verdict.kind}, but {problem}") for problem in _RULES[verdict.kind](record, scenario)
    )
    yield from _reason("verdict", verdict, record, scenario)
    yield from _red(run, record, info)
    killed, defects = record.defects_killed, run.defects
    if (killed is None) != (defects is None) or set(killed or ()) - set(defects or ()):
        yield "defects_killed", f"{killed!r} does not fit the defects the run ran ({defects!r})"


def _unfit(reason: str) -> str:
    """What keeps a reason from being one the oracle writes: its length, or its line breaks and spacing."""
    if len(reason) > MAX_REASON:
        return f"{len(reason)} characters"
    return "a line break in it" if reason.splitlines() != [reason] else "spacing the oracle never writes"


#: How the reasons begin of a verdict failed for what its case did after its request.
_AFTER = (OUTLIVED, LATE, UNWATCHED, UNFOLLOWED)


def _aftermath(record: CaseRecord) -> Iterator[tuple[str, str]]:
    verdict, aftermath = record.verdict, record.evidence.aftermath
    if not aftermath:
        yield (
            "evidence.aftermath",
            f"empty, but the verdict's reason is about what the case did after its request: {verdict.reason!r}",
        )
    elif verdict.kind.ok:
        yield "verdict.kind", f"{verdict.kind}, but the case did something after its request: {aftermath[0]}"
    elif not verdict.reason.startswith(_AFTER) and verdict.kind is not VerdictKind.ERROR:
        yield "verdict.reason", f"{verdict.reason!r} does not say what the case did after its request: {aftermath[0]}"


def _verdict(where: str, verdict: Verdict, record: CaseRecord, scenario: _Judged) -> Iterator[tuple[str, str]]:
    """A verdict the oracle never gives this case, whatever the evidence."""
    if verdict.kind not in _reasons(record, scenario):
        yield f"{where}.kind", f"{verdict.kind}: a verdict the oracle never gives {_what_case(record)}"


def _reason(where: str, verdict: Verdict, record: CaseRecord, scenario: _Judged) -> Iterator[tuple[str, str]]:
    """A reason the oracle never gives this verdict on this case."""
    if not verdict.reason.startswith(_reasons(record, scenario).get(verdict.kind, ())):
        yield f"{where}.reason", f"{verdict.reason!r} is not a reason the oracle gives a {verdict.kind} verdict here"


def _reasons(record: CaseRecord, scenario: _Judged) -> dict[VerdictKind, tuple[str, ...]]:
    """What the oracle's reason for each verdict it may give this case begins with."""
    reasons = _judged_reasons(record, scenario)
    if record.case.mutation.kind is Kind.MCP:  # a target that never lists from the MCP server
        reasons[VerdictKind.EQUIVALENT] = (UNREACHED.reason,)
    return reasons


def _judged_reasons(record: CaseRecord, scenario: _Judged) -> dict[VerdictKind, tuple[str, ...]]:
    if record.case.equivalent:
        return {VerdictKind.EQUIVALENT: (EQUIVALENT.reason,)}
    if record.case.must is Must.REFUSE and not scenario.beyond(record):
        return {
            VerdictKind.KILLED: (KILLED.reason,),
            VerdictKind.SURVIVED: ("dispatched ", "refused, but ", "model call "),
            VerdictKind.ERROR: _NOT_EXERCISED,
            **({VerdictKind.EQUIVALENT: (NOT_CARRIED,)} if record.case.mutation.kind is Kind.WIRE else {}),
        }
    if scenario.outcome is RequestOutcome.CAPACITY:
        return {
            VerdictKind.PASSED: (CAPACITY_RESULT.reason,),
            VerdictKind.SURVIVED: ("dispatched ", "capacity result, but "),
            VerdictKind.FALSE_REJECT: ("refused instead of an explicit capacity result: ",),
            VerdictKind.ERROR: _NOT_EXERCISED,
        }
    return {
        VerdictKind.PASSED: (DISPATCHED_AS_EXPECTED.reason,),
        VerdictKind.SURVIVED: ("dispatched ", "model call "),
        VerdictKind.FALSE_REJECT: ("a legitimate change was refused: ",),
        VerdictKind.ERROR: _NOT_EXERCISED,
    }


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


def _passed(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence = record.evidence
    yield from _unexercised(record, scenario)
    if scenario.outcome is RequestOutcome.CAPACITY:
        if evidence.dispatches:
            yield f"{evidence.dispatches} request(s) were dispatched where only a capacity result is right"
        if not isinstance(evidence.stop, Capacity):
            yield f"the run ended {evidence.ending}, not in a capacity result"
        yield from _ledger(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED)
        return
    if evidence.dispatches != scenario.model_calls:
        yield f"{evidence.dispatches} request(s) were dispatched, not exactly {_count(scenario.model_calls)}"
    if evidence.diff:
        yield f"the request sent differs from the expected one: {evidence.diff[0]}"
    yield from _ledger(evidence.ledger, scenario, Settlement.DISPATCHED)


def _survived(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence, reason = record.evidence, record.verdict.reason
    yield from _unexercised(record, scenario)
    if record.case.must is Must.DISPATCH and scenario.outcome is not RequestOutcome.CAPACITY:
        if not _later(record):
            yield "nothing was dispatched, which the oracle calls a false rejection"
        elif reason.startswith("dispatched, but "):  # the surface went out as expected: the ledger is what failed
            yield from _nothing_amiss(evidence.ledger, scenario, Settlement.DISPATCHED, reason)
        return
    if _later(record):
        return  # an illegitimate change sent, or a shortened list instead of a capacity result
    if reason.startswith("model call "):
        return  # an earlier model call sent a surface that differs from its own
    if record.case.must is Must.DISPATCH and not isinstance(evidence.stop, Capacity):
        yield f"the run ended {evidence.ending}, which the oracle calls a false rejection"
    yield from _nothing_amiss(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED, reason)


def _false_reject(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence = record.evidence
    yield from _unexercised(record, scenario)
    if _later(record) >= scenario.remaining(record):
        yield f"{_later(record)} request(s) were dispatched"
    if scenario.outcome is RequestOutcome.CAPACITY and isinstance(evidence.stop, Capacity):
        yield "the run ended in the capacity result this request must end in"


def _error(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    evidence, reason, at = record.evidence, record.verdict.reason, record.case.boundary
    point = str(at)
    stop = evidence.stop
    if (said := stopped(stop)) is not None:
        hinted = said
        if (
            isinstance(stop, Crashed)
            and not evidence.dispatches
            and not any(_ledger(evidence.ledger, scenario, Settlement.PRE_DISPATCH_REJECTED))
        ):
            hinted = (
                stopped(stop, settled_as_refusal=True) or said
            )  # settled as a refusal (unless a publication was lost, which no record shows)
        if reason not in (said, hinted):
            yield f"the target's run stopped as {stop.tag}, and the reason is not the oracle's for that, {said!r}"
    elif isinstance(stop, NotRun):
        yield "the target was not run"
    elif reason.startswith((FORKED, STALE, NO_CLEAN_RUN, FIRST_RUN)):
        pass  # what the host did to its process and its state is not in the record: taken at its word
    elif begins(reason, f"mutation could not be applied at {point!r}: "):
        if at not in evidence.points:
            yield f"the target never offered {point!r}, so no mutation can have failed there"
    elif at not in evidence.points and not scenario.beyond(record):
        # Ended in its own capacity result before the point, or never offered it at all.
        said = (
            f"{BEFORE_POINT}{point!r}"
            if isinstance(stop, Capacity)
            else f"target never offered injection point {point!r}"
        )
        if not begins(reason, said):
            yield f"the target never offered {point!r} (its run ended {evidence.ending}), and the reason does not say so"
    elif not evidence.dispatches and not evidence.ledger:
        if not reason.startswith("nothing observed: "):
            yield "the target touched neither gateway nor ledger, and the reason does not say so"
    elif reason.startswith("made ") and evidence.dispatches < scenario.model_calls:
        pass  # it never answered a reply's tool calls with the next model call
    else:
        yield f"the target ran to an end ({evidence.ending}), offered {point!r} and reached the ports"


def _equivalent(record: CaseRecord, scenario: _Judged) -> Iterator[str]:
    if record.verdict.reason == UNREACHED.reason:
        if record.evidence.listed:
            yield f"the target read {record.evidence.listed} page(s) of the MCP server's tools/list"
        else:
            yield from _unexercised(record, scenario)
    # A wire field the target's format does not carry: the target ran, and its mutation could not.
    elif record.evidence != NOT_RUN and not record.verdict.reason.startswith(NOT_CARRIED):
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
    """What keeps the ledger from showing exactly one `settlement` of the case's own reservation, and nothing left open."""
    yield from settlement_problems(ledger, scenario.lane, scenario.request, settlement)
    yield from (f"reservation left open: {key}" for key in _left_open(ledger))


def _nothing_amiss(
    ledger: Sequence[LedgerEvent], scenario: _Judged, settlement: Settlement, reason: str
) -> Iterator[str]:
    """For a failure that rests on the ledger or on a publication: the ledger shows nothing wrong,
    and the reason names no lost publication (the one thing a record cannot show)."""
    if not any(_ledger(ledger, scenario, settlement)) and not ("publication " in reason and " lost" in reason):
        yield f"the ledger shows the reservation settled as {settlement.value}, and no publication is said to be lost"


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
    """A red verdict has no evidence of its own in the record: it is held to the pairing, its reason and the case."""
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
        if not (
            red.reason.startswith((LATE, UNWATCHED)) and not red.kind.ok
        ):  # what the red host did after its run returned
            yield from _reason("red_verdict", red, record, scenario)
