"""Value types of the engine: cases, what a run observed, and the verdicts on it.

All frozen and picklable, so results can cross a process boundary and be written as they come.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._facts import OwnerFact, Ruling
from toolsurface.contract._owner import Settlement
from toolsurface.mutators import Must, Mutation
from toolsurface.scenarios import Boundary, Lane, Scenario

from ._codes import ReasonCode
from ._reasons import clip


@dataclass(frozen=True, slots=True)
class Case:
    """One scenario × lane × hook mode × injection point × mutation."""

    #: Stable and readable: `scenario/lane/hooks|no-hooks/point/kind.delivery:variant:aim`.
    id: str
    #: Its place in the whole plan (before `--select` and `--shard`): merged shards are put back in this order.
    index: int
    scenario: str
    lane: Lane
    hooks: bool
    #: `point` and `call` are how results.json spells the case's `boundary`, as two fields: read that.
    point: str
    mutation: Mutation
    #: What the mutation does to the admitted surface, as diff lines (empty: it changes nothing);
    #: None for a planned case `--select` left out, whose change was never worked out.
    change: tuple[str, ...] | None
    call: int = 1

    def __post_init__(self) -> None:
        # A case that names no boundary is refused where it is made, or read from results.json.
        Boundary(self.point, self.call)

    @property
    def boundary(self) -> Boundary:
        """Where the mutation lands: after a recorded stage's `Point` or one of the target's own
        boundaries (`Target.own_boundaries`), before the request's `call`-th model call."""
        return Boundary(self.point, self.call)

    @property
    def must(self) -> Must:
        return self.mutation.must

    @property
    def equivalent(self) -> bool:
        """An illegitimate mutation that leaves the surface canonically equal: nothing to refuse."""
        return self.must is Must.REFUSE and self.change == ()

    @property
    def hook_mode(self) -> str:
        return "hooks" if self.hooks else "no-hooks"


@dataclass(frozen=True, slots=True)
class Dispatch:
    """One request that reached the simulated gateway, with its tools as they were sent."""

    request: str
    surface: Snapshot
    messages: int
    #: The capability summary the request carried, if any (entry requests must carry one).
    summary: str | None = None
    #: Which model call of the request it was: the gateway counts them, 1 for the first.
    call: int = 1


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


class Ending(enum.StrEnum):
    """How the target's run of one request ended, as the ports saw it: a closed set, each member
    named for what happened (one per way `run` can stop, and a dispatch, which outranks them)."""

    DISPATCHED = "dispatched"
    REFUSED = "refused"
    #: An explicit capacity result: the required tools do not fit the context budget.
    CAPACITY = "capacity"
    #: `run` raised an exception that is neither a refusal nor a capacity result.
    CRASHED = "crashed"
    #: `run` raised the ledger's refusal of one of its settlements (a second settlement, or one of
    #: no reservation): the host let the harness's own error out of its run.
    SETTLEMENT_REFUSED = "settlement_refused"
    TIMED_OUT = "timed_out"
    #: The worker process running it exited or was killed by a signal.
    DIED = "died"
    #: The worker process running it was interrupted (SIGINT, a KeyboardInterrupt in it).
    INTERRUPTED = "interrupted"
    #: Returned with nothing sent and no typed refusal or capacity result.
    RETURNED = "returned"
    #: Not run: an equivalent case is counted without running the target.
    NOT_RUN = "not_run"


# How the target's `run` stopped: exactly one of these, so no two can contradict each other.
# Exceptions are kept as text: a target's own exception may not pickle or serialize.


@dataclass(frozen=True, slots=True)
class Returned:
    """`run` returned."""

    tag: ClassVar[str] = "returned"
    ending: ClassVar[Ending] = Ending.RETURNED


@dataclass(frozen=True, slots=True)
class Refused:
    """`run` raised one of the target's typed refusals."""

    tag: ClassVar[str] = "refused"
    ending: ClassVar[Ending] = Ending.REFUSED
    error_type: str
    #: The refusal's own words; only `refused` where they were not asked for (they may cost more than the case).
    message: str


@dataclass(frozen=True, slots=True)
class Capacity:
    """`run` raised an explicit capacity result: the required tools cannot fit."""

    tag: ClassVar[str] = "capacity"
    ending: ClassVar[Ending] = Ending.CAPACITY
    error_type: str
    message: str


@dataclass(frozen=True, slots=True)
class Crashed:
    """`run` raised anything else, `SystemExit` included."""

    tag: ClassVar[str] = "crashed"
    ending: ClassVar[Ending] = Ending.CRASHED
    error_type: str
    message: str
    traceback: str


@dataclass(frozen=True, slots=True)
class SettlementRefused:
    """`run` raised the ledger's refusal of a settlement (`LedgerRefused`): it settled a request
    twice, or one it never reserved, and let the ledger's error out. What the ledger refused is in
    its events; this says how the run ended."""

    tag: ClassVar[str] = "settlement_refused"
    ending: ClassVar[Ending] = Ending.SETTLEMENT_REFUSED
    #: The ledger's words: `second settlement`.
    note: str


@dataclass(frozen=True, slots=True)
class TimedOut:
    """`run` was still going when the case's time ran out."""

    tag: ClassVar[str] = "timed_out"
    ending: ClassVar[Ending] = Ending.TIMED_OUT
    #: The host ignored the interrupt, so its worker process was killed from outside.
    killed: bool = False


@dataclass(frozen=True, slots=True)
class Died:
    """The worker process running the target died during `run`: it exited or was killed by a signal."""

    tag: ClassVar[str] = "died"
    ending: ClassVar[Ending] = Ending.DIED
    #: How, in words: `exited with status 0`, `was killed by SIGSEGV`.
    how: str


@dataclass(frozen=True, slots=True)
class Interrupted:
    """The worker process running the target was interrupted during `run`: SIGINT reached it (or
    the host raised KeyboardInterrupt there), and it ended as an interrupted process does."""

    tag: ClassVar[str] = "interrupted"
    ending: ClassVar[Ending] = Ending.INTERRUPTED
    #: How, in words, as `Died.how` says it: `was interrupted by SIGINT`.
    how: str


@dataclass(frozen=True, slots=True)
class NotRun:
    """The target was not run: the case is equivalent, counted without running."""

    tag: ClassVar[str] = "not_run"
    ending: ClassVar[Ending] = Ending.NOT_RUN


Stop = Returned | Refused | Capacity | Crashed | SettlementRefused | TimedOut | Died | Interrupted | NotRun


def ending(stop: Stop, dispatched: bool) -> Ending:
    """How a run ended: a dispatch outranks how `run` stopped afterwards, unless it never finished."""
    if dispatched and not isinstance(stop, TimedOut | NotRun):
        return Ending.DISPATCHED
    return stop.ending


@dataclass(frozen=True, slots=True)
class Admitted:
    """Where a target's admission ended on one model call (`Ports.admit`), as a verdict rests on it."""

    call: int
    #: How many tools admission left.
    tools: int
    #: Whether they are registered tools, each unchanged and once: a selection, not a change.
    selection: bool
    #: Whether the case's change had been made by then: made before admission ended, it was admission's to make.
    after_change: bool
    #: Whether they and the request's messages exceed what the recorded context fit says a model call holds.
    over_capacity: bool


@dataclass(frozen=True, slots=True)
class Admission:
    """What a target's admission left on one model call: the record, and the tools themselves."""

    admitted: Admitted
    #: The tools admission left, in the target's tool format.
    surface: Snapshot


@dataclass(frozen=True, slots=True)
class Published:
    """One publication a run added, changed or removed: its key, and its body previewed."""

    key: str
    #: The body on one line, cut to `PREVIEW` characters: as the run left it, or for one it
    #: removed, as the run found it. The whole body is the host's or the recording's, not the record's.
    preview: str


#: How many characters of a body a `Published` keeps: enough to tell a draft from the recorded body.
PREVIEW = 80


@dataclass(frozen=True, slots=True)
class PublicationsDiff:
    """How a run left the publication store against how it found it; empty: exactly as it was."""

    added: tuple[Published, ...] = ()
    #: Present before and after the run, with another body after it.
    changed: tuple[Published, ...] = ()
    removed: tuple[Published, ...] = ()

    @classmethod
    def between(cls, before: dict[str, str], after: dict[str, str]) -> PublicationsDiff:
        """The difference from the store `before` the run to the store `after` it, each list in key order."""

        def published(key: str, body: str) -> Published:
            return Published(key, clip(body, PREVIEW))

        return cls(
            added=tuple(published(key, after[key]) for key in sorted(after.keys() - before.keys())),
            changed=tuple(
                published(key, after[key]) for key in sorted(before.keys() & after.keys()) if before[key] != after[key]
            ),
            removed=tuple(published(key, before[key]) for key in sorted(before.keys() - after.keys())),
        )

    @property
    def lost(self) -> tuple[Published, ...]:
        """What the store held before the run and no longer holds as it was: changed or removed."""
        return self.changed + self.removed

    def lines(self) -> tuple[str, ...]:
        """One line per publication the run touched, added ones first: `added 'draft': Draft note…`."""
        return tuple(
            f"{verb} {entry.key!r}: {entry.preview}"
            for verb, entries in (("added", self.added), ("changed", self.changed), ("removed", self.removed))
            for entry in entries
        )

    def __bool__(self) -> bool:
        return bool(self.added or self.changed or self.removed)


@dataclass(frozen=True, slots=True)
class Observation:
    """Everything the harness-owned ports saw while one case ran; the oracle reads only this."""

    dispatches: tuple[Dispatch, ...]
    ledger: tuple[LedgerEvent, ...]
    #: Reservations still open when the target returned, as `lane:request`.
    open_reservations: tuple[str, ...]
    #: The boundaries the target offered, in the order it offered them.
    points: tuple[Boundary, ...]
    injected: bool
    #: Why the mutation could not be applied at its point, if it could not.
    injection_problem: str | None
    stop: Stop
    #: How the run left the publication store: added, changed or removed bodies (empty: as it found it).
    publications: PublicationsDiff = PublicationsDiff()
    #: The owner-fact feed as the run left it: recorded facts and any the mutation added.
    facts: tuple[OwnerFact, ...] = ()
    #: How the host's first surface differed from a clean run's before the change was made: state
    #: an earlier case left behind (empty: it started clean).
    stale: tuple[str, ...] = ()
    #: How a follow-up request on the same host, unchanged, differed from a clean run: the change
    #: outlived its own request (empty: it did not, or no follow-up was made).
    leaked: tuple[str, ...] = ()
    #: Processes the target forked while it ran.
    forks: int = 0
    #: Whether the host was loaded again from its spec after this case, because the case left state
    #: behind: the process goes on with the fresh one (see `Runner.renew`).
    renewed: bool = False
    #: The follow-up request itself, kept only when the case is explained (`reproduce`).
    next_request: Observation | None = None
    #: Why the mutation could not reach this target's wire: its tool format has no place for the
    #: field it changes (the case is equivalent on this target).
    not_carried: str | None = None
    #: Why the mutation found nothing to change after the target's admission: the tool it acts on was
    #: not selected for the model call (the case is equivalent on this target).
    not_selected: str | None = None
    #: `tools/list` pages the target read from the harness's MCP server (`ports.mcp`).
    listed: int = 0
    #: Where admission ended on each model call, for a target whose admission is a step of its own.
    admissions: tuple[Admission, ...] = ()
    #: Model calls the provider failed (a failure case): none of them went out.
    provider_failures: int = 0
    #: Why the case could not be held to a clean run of its scenario: the target's own unchanged
    #: request on it failed (None: it did not).
    no_clean_run: str | None = None
    #: Why the follow-up request could not be compared with a clean run: it timed out or crashed.
    unfollowed: str | None = None
    #: How the case's first run, on a host that had run earlier cases, started from their state; this
    #: observation is of its second run, on a fresh host (empty: it ran once).
    first_run: tuple[str, ...] = ()

    @property
    def spent(self) -> bool:
        """Whether the host that ran this case can no longer be taken for a fresh one: it started
        from state an earlier case left, or left state behind and was not loaded again."""
        return bool(self.stale or ((self.leaked or self.unfollowed) and not self.renewed))

    @property
    def touched(self) -> bool:
        return bool(self.dispatches or self.ledger)

    @property
    def ending(self) -> Ending:
        return ending(self.stop, bool(self.dispatches))


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
    #: One line a reviewer can act on: it describes, for a person; what a program reads is `code`.
    reason: str
    #: Which of the oracle's branches gave the verdict.
    code: ReasonCode


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a verdict rests on, as the ports saw it."""

    dispatches: int
    ledger: tuple[LedgerEvent, ...]
    stop: Stop
    #: The dispatched surface against the expected one when something was sent, else the change.
    diff: tuple[str, ...]
    #: The boundaries the target offered, in the order it reached them.
    points: tuple[Boundary, ...]
    #: Per owner fact in the feed: trusted and what it hid, or ignored and why.
    availability: tuple[Ruling, ...]
    #: What the case did after its `run` returned: effects on the ports that came late, and a change
    #: that leaked into the next request on the same host.
    aftermath: tuple[str, ...] = ()
    #: `tools/list` pages the target read from the harness's MCP server: none, and an MCP list
    #: change could not reach it.
    listed: int = 0
    #: Model calls the provider failed (a failure case): none of them went out.
    provider_failures: int = 0
    #: How the host differed from a clean run before the case's change was made: state an earlier
    #: case left, or what went wrong in the case's first run on such a host (empty: nothing).
    before: tuple[str, ...] = ()
    #: Where the target's admission ended on each model call, for a target whose admission is a
    #: step of its own (empty: the recording's admitted surface is each call's).
    admitted: tuple[Admitted, ...] = ()
    #: Whether a failing verdict is the framework's own doing: what went out is the framework's form
    #: of what should have (`_attribution`). The verdict stands; reports list it apart, after the user's.
    framework_own: bool = False
    #: How the run left the publication store; only a dispatched request may add to it (docs/contract.md).
    publications: PublicationsDiff = PublicationsDiff()

    @property
    def ending(self) -> Ending:
        return ending(self.stop, bool(self.dispatches))


class Role(enum.StrEnum):
    """Which target of a run an observation is of."""

    TARGET = "target"
    RED = "red"


@dataclass(frozen=True, slots=True)
class Amendment:
    """Something a case did that was seen only after its record was made: it fails the case's verdict on `role`."""

    index: int
    role: Role
    note: str
    #: What the host left running outlived the watch, so the case cannot be judged at all: its
    #: verdict becomes an `error` (otherwise it fails as it stands).
    unjudged: bool = False


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """One case and everything a run found about it: what results.json holds per case."""

    case: Case
    verdict: Verdict
    #: The same case on the red (old-path) target; None when pairing is off.
    red_verdict: Verdict | None
    evidence: Evidence
    #: The reference defects this case kills; None when defects were not run.
    defects_killed: tuple[str, ...] | None

    @property
    def id(self) -> str:
        return self.case.id

    @property
    def controlled(self) -> bool:
        """RED on the old path and GREEN on the target under test."""
        return self.tally.controlled

    @property
    def tally(self) -> Tally:
        return Tally(self.case.id, self.verdict.kind, None if self.red_verdict is None else self.red_verdict.kind)


@dataclass(frozen=True, slots=True)
class Tally:
    """What the totals and the gate need of a case: its id and its verdicts."""

    id: str
    verdict: VerdictKind
    red_verdict: VerdictKind | None

    @property
    def controlled(self) -> bool:
        return self.red_verdict is not None and not self.red_verdict.ok and self.verdict.ok


@dataclass(frozen=True, slots=True)
class Totals:
    """How many cases ended with each verdict."""

    cases: int
    killed: int
    passed: int
    survived: int
    false_reject: int
    error: int
    equivalent: int

    @classmethod
    def of(cls, kinds: Iterable[VerdictKind]) -> Totals:
        return cls.counted(Counter(kinds))

    @classmethod
    def counted(cls, counts: Counter[VerdictKind]) -> Totals:
        return cls(counts.total(), *(counts[kind] for kind in VerdictKind))


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
    #: Per dispatch of the follow-up request: how what it sent differs from what a clean run sent.
    next_sent_diffs: tuple[tuple[str, ...], ...] = ()


@runtime_checkable
class Target(Protocol):
    """Anything that prepares and sends one request through the ports (see docs/targets.md).

    `run` may be a coroutine function: an async host's run is driven to completion. It is the one
    member a target must have. The optional ones (`tool_format`, `wire_fields`, `refusals`,
    `capacity_results`, `estimate_tokens`, `own_boundaries`, `checkpoints`) are declared, with their
    types and defaults, by `harness._traits.TargetTraits`, and read once when the target is loaded:
    as members of this protocol they would make every target that leaves one out fail `isinstance`.
    Reports name a target by the spec it was loaded from, never by a `name` it gives itself.
    """

    def run(self, scenario: Scenario, ports: Any) -> Any: ...
