"""Value types of the engine: cases, what a run observed, and the verdicts on it.

All frozen and picklable, so results can cross a process boundary and be written as they come.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from toolsurface.mutators import Expect, Mutation
from toolsurface.scenarios import Lane, OwnerFact, Ruling, Scenario

from ._canonical import Snapshot


@dataclass(frozen=True, slots=True)
class Case:
    """One scenario × lane × hook mode × injection point × mutation."""

    #: Stable and readable: `scenario/lane/hooks|no-hooks/point/kind.delivery:variant:target`.
    id: str
    scenario: str
    lane: Lane
    hooks: bool
    point: str
    mutation: Mutation
    #: What the mutation does to the admitted surface, as diff lines (empty: it changes nothing).
    change: tuple[str, ...]

    @property
    def expect(self) -> Expect:
        return self.mutation.expect

    @property
    def equivalent(self) -> bool:
        """An illegitimate mutation that leaves the surface canonically equal: nothing to refuse."""
        return self.expect is Expect.REJECT and not self.change


class Settlement(enum.StrEnum):
    """How a reservation may be settled in an owner ledger."""

    DISPATCHED = "dispatched"
    PRE_DISPATCH_REJECTED = "pre_dispatch_rejected"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Dispatch:
    """One request that reached the simulated gateway, with its tools as they were sent."""

    request: str
    surface: Snapshot
    messages: int
    #: The capability summary the request carried, if any (entry requests must carry one).
    summary: str | None = None


class LedgerOp(enum.StrEnum):
    RESERVE = "reserve"
    SETTLE = "settle"


@dataclass(frozen=True, slots=True)
class LedgerEvent:
    """One call into an owner ledger, accepted or refused."""

    lane: str
    op: LedgerOp
    request: str
    #: How a settlement settled the reservation; None for a reservation.
    settlement: Settlement | None = None
    #: False when the ledger refused it (settlement without reservation, second settlement).
    accepted: bool = True
    note: str = ""

    def __str__(self) -> str:
        text = f"{self.lane}: {self.op} {self.request}" + (f" as {self.settlement}" if self.settlement else "")
        return text + ("" if self.accepted else f" — REFUSED ({self.note})")


@dataclass(frozen=True, slots=True)
class Crash:
    """An exception that left the target, as text (exceptions themselves may not pickle)."""

    type: str
    message: str
    traceback: str


class Ending(enum.StrEnum):
    """How the target's run of one request ended, as the ports saw it."""

    DISPATCHED = "dispatched"
    REFUSED = "refused"
    #: An explicit capacity result: the required tools do not fit the context budget.
    CAPACITY = "capacity"
    CRASHED = "crashed"
    TIMED_OUT = "timed_out"
    #: Returned with nothing sent and no typed refusal or capacity result.
    RETURNED = "returned"
    #: Not run: an equivalent case is counted without running the target.
    NOT_RUN = "not_run"


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything the harness-owned ports saw while one case ran; the oracle reads only this."""

    dispatches: tuple[Dispatch, ...]
    ledger: tuple[LedgerEvent, ...]
    #: Reservations still open when the target returned, as `lane:request`.
    open_reservations: tuple[str, ...]
    #: Publications that were present before the run and are gone or changed after it.
    publications_lost: tuple[str, ...]
    #: Injection points the target offered, in the order it offered them.
    points: tuple[str, ...]
    injected: bool
    #: Why the mutation could not be applied at its point, if it could not.
    injection_problem: str | None
    crash: Crash | None
    #: The target stopped with one of its typed refusals (not counted as a crash).
    refused: bool
    timed_out: bool
    #: The target stopped with an explicit capacity result (typed; not counted as a crash).
    capacity: bool = False
    #: The owner-fact feed as the run left it: recorded facts and any the mutation added.
    facts: tuple[OwnerFact, ...] = ()

    @property
    def touched(self) -> bool:
        return bool(self.dispatches or self.ledger)

    @property
    def ending(self) -> Ending:
        if self.timed_out:
            return Ending.TIMED_OUT
        if self.dispatches:
            return Ending.DISPATCHED
        if self.capacity:
            return Ending.CAPACITY
        if self.refused:
            return Ending.REFUSED
        return Ending.CRASHED if self.crash else Ending.RETURNED


class VerdictKind(enum.StrEnum):
    KILLED = "killed"
    PASSED = "passed"
    SURVIVED = "survived"
    FALSE_REJECT = "false_reject"
    ERROR = "error"
    EQUIVALENT = "equivalent"

    @property
    def ok(self) -> bool:
        """Whether this verdict lets the gate pass."""
        return self in _OK


_OK = frozenset({VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT})


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: VerdictKind
    #: One line a reviewer can act on.
    reason: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the verdict rests on, kept in results.json."""

    dispatches: int
    settlements: tuple[str, ...]
    error_type: str | None
    error: str | None
    #: The dispatched surface against the expected one when something was sent, else the change.
    diff: tuple[str, ...]
    points: tuple[str, ...]
    ending: Ending = Ending.NOT_RUN
    #: Per owner fact in the feed: trusted and what it hid, or ignored and why.
    availability: tuple[Ruling, ...] = ()


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    verdict: Verdict
    evidence: Evidence
    #: The same case on the red (old-path) target; None when pairing is off.
    red_verdict: Verdict | None = None
    #: The reference defects this case kills; None when defects were not run.
    defects_killed: tuple[str, ...] | None = None

    @property
    def controlled(self) -> bool:
        """RED on the old path and GREEN on the target under test."""
        return self.red_verdict is not None and not self.red_verdict.kind.ok and self.verdict.kind.ok


@dataclass(frozen=True, slots=True)
class Reproduction:
    """One case re-run on one target, with everything `toolsurface reproduce` shows."""

    case: Case
    target: str
    observed: Observation
    verdict: Verdict
    #: Per dispatch: how the surface (and capability summary) sent differs from the expected one.
    sent_diffs: tuple[tuple[str, ...], ...]
    #: Per owner fact in the feed at the end: what it hid, or why it was ignored.
    rulings: tuple[Ruling, ...] = ()


def totals(kinds: Iterable[VerdictKind]) -> dict[str, int]:
    """`cases` plus a count per verdict, every verdict present."""
    counts = Counter(kinds)
    return {"cases": sum(counts.values()), **{kind.value: counts[kind] for kind in VerdictKind}}


@runtime_checkable
class Target(Protocol):
    """Anything that prepares and sends one request through the ports (see the README's "Targets").

    `run` may be a coroutine function: an async host's run is driven to completion.
    Optional attributes: `name` (shown in reports), `tool_format` (a `FORMATS` key overriding the
    scenario's), `refusals` (exception types that mean "refused"; default `RequestRefused`), and
    `capacity_results` (exception types that are an explicit capacity result; default
    `CapacityExceeded`).
    """

    def run(self, scenario: Scenario, ports: Any) -> Any: ...
