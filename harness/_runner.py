"""Run cases against a target through fresh ports, and turn every outcome into a value.

The runner never raises for one case: a crash, a hang or a mutation that cannot apply becomes an
`Observation` the oracle judges as `error`, and the run goes on. It runs in whichever process
hosts the target: the run's own in-process mode, or each worker process of `_workers`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import gc
import inspect
import os
import signal
import threading
import time
import traceback
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolsurface.mutators import Edit, Must, by_key
from toolsurface.scenarios import OwnerFact, RequestOutcome, Scenario, call_of

from ._canonical import Snapshot, snapshot_of
from ._capacity import judged_on
from ._diff import diff_snapshots
from ._errors import CapacityExceeded, RequestRefused
from ._formats import FORMATS, ToolFormat
from ._frozen import frozen
from ._oracles import EQUIVALENT, LATE, Expected, evidence, judge
from ._plan import Checkpoints, recorded_checkpoints
from ._ports import LedgerRefused, Ports
from ._types import (
    Amendment,
    Capacity,
    Case,
    CaseRecord,
    Crashed,
    Ending,
    Evidence,
    NotRun,
    Observation,
    Refused,
    Returned,
    Role,
    Stop,
    Target,
    TimedOut,
    Verdict,
    VerdictKind,
)

#: What a defect does to a case for the case to kill it; an `error` never counts.
_KILLS = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})


class CaseTimeout(BaseException):
    """Raised into a target that ran past its time; a BaseException so `except Exception` can't eat it."""


class Runner:
    """Runs cases on a target (and, for RED/GREEN pairing, on a red target).

    Each case is judged as if it ran on a fresh host, whatever ran before it in the same process:
    the host's first surface is compared with a clean run's before the change is made (`stale`),
    and after the case an unchanged follow-up request must offer what a clean run offers (`leaked`),
    so a change that outlives its request fails the case that made it, not the ones after it.
    """

    def __init__(
        self,
        scenarios: Iterable[Scenario],
        target: Target,
        red_target: Target | None = None,
        timeout: float = 10.0,
        probe: DefectProbe | None = None,
        renew: Callable[[Role], Target] | None = None,
    ) -> None:
        self.scenarios = {scenario.id: scenario for scenario in scenarios}
        self.target = target
        self.red_target = red_target
        self.timeout = timeout
        self.probe = probe
        #: A fresh copy of a role's target, loaded again from its spec: the next case's host once a
        #: case left state behind, where no fresh worker process gives it one (`--jobs 0`, pytest).
        self.renew = renew
        #: What each target offers on each scenario when nothing has run before and nothing is changed.
        self.clean: dict[tuple[Role, str], CleanRun | None] | None = None
        #: Effects on closed ports, appended from whatever thread a host left running.
        self._late: deque[Amendment] = deque()
        #: The last case each target ran in this process: where stale state came from.
        self._last: dict[Role, str] = {}
        #: Each scenario as each role's target is judged on it: a target that declares its own token
        #: estimator is held to it, so a request that does not fit by its count must end in capacity.
        self._judged = {role: {key: judged_on(self.target_of(role), s) for key, s in self.scenarios.items()} for role in self.roles}

    @property
    def roles(self) -> tuple[Role, ...]:
        return (Role.TARGET,) if self.red_target is None else (Role.TARGET, Role.RED)

    def target_of(self, role: Role) -> Target:
        target = self.target if role is Role.TARGET else self.red_target
        assert target is not None
        return target

    def prime(self) -> None:
        """Run every target once on every scenario, unchanged: the clean runs a case is compared with."""
        if self.clean is None:
            self.clean = {
                (role, scenario.id): clean_run(self.target_of(role), scenario, self.timeout)
                for role in self.roles
                for scenario in self.scenarios.values()
            }

    def run(self, cases: Iterable[Case], grace: float = 0.0) -> Iterator[CaseRecord | Amendment]:
        """Each case's record, in order; then, after `grace` seconds for what hosts left running, what came late."""
        before = set(threading.enumerate())
        # What outlives every case (scenarios, their documents, the targets) is kept out of garbage
        # collection while cases run. Each case decodes its surface afresh, so a surface of N tools
        # brings full collections about N times as often; were each to walk the scenarios too (also
        # about N), the cost per case would grow as N². A worker's parent freezes before it forks
        # (`WorkerPool`), so only a run in this process freezes here, and thaws what it froze.
        with alarm_handler(), _exits_refused(), frozen():
            for case in cases:
                yield self.run_case(case)
        settle(grace, before)
        yield from self.take_late()

    def run_case(self, case: Case) -> CaseRecord:
        if case.equivalent:
            return self.record(case, None, None, None if self.probe is None else ())
        observed = self.observe(case, Role.TARGET)
        red = None if self.red_target is None else self.observe(case, Role.RED)
        return self.record(case, observed, red, self.kills(case, observed))

    def observe(self, case: Case, role: Role, explain: bool = False) -> Observation:
        """One run of the case on the role's target, checked against a clean run before and after."""
        with _collection_paused():
            return self._observe(case, role, explain)

    def _observe(self, case: Case, role: Role, explain: bool) -> Observation:
        self.prime()
        assert self.clean is not None
        target, scenario = self.target_of(role), self.scenarios[case.scenario]
        clean = self.clean.get((role, scenario.id))
        ports = case_ports(target, case, scenario, watch=1)
        observed = observe_ports(target, scenario, ports, self.timeout, terse_refusals=case.must is Must.REFUSE and not explain)
        ports.close(functools.partial(self._came_late, case.index, role))
        stale: tuple[str, ...] = ()
        leaked: tuple[str, ...] = ()
        next_request: Observation | None = None
        forks = observed.forks
        if clean is not None:
            earlier = self._last.get(role)
            stale = tuple(f"after {earlier}: {line}" for line in clean.before_change(case, ports, observed)) if earlier else ()
            if role is Role.TARGET and not stale and observed.touched:
                after, next_request = unchanged_request(target, scenario, self.timeout)
                leaked, forks = clean.differences_in(after, next_request), forks + next_request.forks
        self._last[role] = case.id
        renewed = bool(stale or leaked) and self._renew(role)
        kept = next_request if explain else None
        return dataclasses.replace(observed, stale=stale, leaked=leaked, forks=forks, renewed=renewed, next_request=kept)

    def _renew(self, role: Role) -> bool:
        """Load the role's host again from its spec, once a case left state in it: whether a new
        object took its place. State kept in the object is gone with it; a host that keeps it in
        its module, or whose factory hands out one object, shows at the next case's start (`stale`)."""
        if self.renew is None:
            return False
        try:
            fresh = self.renew(role)
        except Exception:
            return False  # its factory worked once and fails now: the old host stays, and is spent
        old = self.target_of(role)
        if role is Role.TARGET:
            self.target = fresh
        else:
            self.red_target = fresh
        return fresh is not old

    def judged(self, role: Role, scenario: str) -> Scenario:
        """The scenario as the role's target is judged on it (see `judged_on`)."""
        return self._judged[role][scenario]

    def outcome(self, role: Role, scenario: str) -> RequestOutcome:
        """How the unmutated request must end on the role's target."""
        return self._judged[role][scenario].outcome

    def kills(self, case: Case, observed: Observation) -> tuple[str, ...] | None:
        if self.probe is None:
            return None
        scenario, expected = self.scenarios[case.scenario], self.expected(case)
        known = judge(case, observed, self.judged(Role.TARGET, case.scenario), expected) if type(self.target) is type(self.probe.guard) else None
        return self.probe.kills(case, scenario, known)

    def record(self, case: Case, observed: Observation | None, red: Observation | None, kills: tuple[str, ...] | None) -> CaseRecord:
        """The case's record from its observations (None for an equivalent case, which is not run)."""
        if observed is None:
            nothing = Evidence(0, (), NotRun(), (), (), ())
            return CaseRecord(case, EQUIVALENT, EQUIVALENT if self.red_target else None, nothing, kills)
        scenario, expected = self.judged(Role.TARGET, case.scenario), self.expected(case)
        red_verdict = None if red is None else judge(case, red, self.judged(Role.RED, case.scenario), self.expected(case, Role.RED))
        return CaseRecord(case, judge(case, observed, scenario, expected), red_verdict, evidence(case, observed, scenario, expected), kills)

    def expected(self, case: Case, role: Role = Role.TARGET) -> Expected:
        """What the case's request must go out as on the role's target."""
        return expected_surface(self.target_of(role), self.scenarios[case.scenario], case)

    def take_late(self) -> list[Amendment]:
        """The late effects seen so far, each once: taken one by one, so none a host thread adds meanwhile is lost."""
        taken = []
        while self._late:
            taken.append(self._late.popleft())
        return taken

    def _came_late(self, index: int, role: Role, effect: str) -> None:
        self._late.append(Amendment(index, role, f"{LATE}{effect}"))


@contextlib.contextmanager
def _collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while a case runs; what it left is collected after, as usual.
    A run decodes its surface afresh (tens of thousands of dicts and lists on a surface of 512
    tools), and each collection started meanwhile walks all of it that is built so far: the cost
    would grow as the square of the tool count. The surface is freed by reference counting when
    the run ends; only cycles wait, and a host makes them in one run at most."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def settle(grace: float, before: set[threading.Thread]) -> None:
    """Give what the hosts left running up to `grace` seconds to show late effects, and no longer
    than it runs: with no thread of theirs alive, nothing more can come."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(t.is_alive() for t in threading.enumerate() if t not in before):
        time.sleep(0.01)


@dataclass(frozen=True, slots=True)
class CleanRun:
    """What a target did on one scenario, unchanged, in a fresh state: the surface it offered at
    each stage boundary, how the request ended, and the surfaces it sent."""

    offered: tuple[tuple[str, Snapshot], ...]
    ending: Ending
    sent: tuple[Snapshot, ...]

    def differences(self, offered: Sequence[tuple[str, Snapshot]]) -> tuple[str, ...]:
        """How the boundaries `offered` differ from this run's, up to the first that does."""
        for (point, surface), (clean_point, clean_surface) in zip(offered, self.offered):
            if point != clean_point:
                return (f"offered '{point}' where a clean run offers '{clean_point}'",)
            if surface != clean_surface:
                return tuple(f"at '{point}': {change}" for change in diff_snapshots(clean_surface, surface) or ("canonical form differs",))
        return ()

    def before_change(self, case: Case, ports: Ports, observed: Observation) -> tuple[str, ...]:
        """How a case's run differed from this one before its change was made, when nothing had
        been changed yet: it must offer the same first surface, and reach the case's point."""
        if lines := self.differences(ports.offered):
            return lines
        if not observed.injected and any(point == case.at for point, _ in self.offered):
            return (f"it never reached '{case.at}', which a clean run reaches: it ended {_how(observed)}",)
        return ()

    def differences_in(self, ports: Ports, observed: Observation) -> tuple[str, ...]:
        """How a whole unchanged request differs from this run: its boundaries, its ending, what it sent."""
        if lines := self.differences(ports.offered):
            return lines
        if observed.ending is not self.ending:
            return (f"it ended {_how(observed)} where a clean one ends {self.ending.value}",)
        if len(ports.offered) != len(self.offered):
            return (f"it offered {len(ports.offered)} stage boundaries where a clean one offers {len(self.offered)}",)
        sent = tuple(dispatch.surface for dispatch in observed.dispatches)
        for surface, clean_surface in zip(sent, self.sent):
            if surface != clean_surface:
                return tuple(f"sent: {change}" for change in diff_snapshots(clean_surface, surface) or ("canonical form differs",))
        return ()


def _how(observed: Observation) -> str:
    said = getattr(observed.stop, "message", "")
    return f"{observed.ending.value} ({said})" if said else observed.ending.value


#: Enough boundaries to snapshot every one a run offers.
_EVERY = 1 << 16


def clean_run(target: Target, scenario: Scenario, timeout: float) -> CleanRun | None:
    """The target's run on the scenario, unchanged; None when it fails (its cases will say how)."""
    ports, observed = unchanged_request(target, scenario, timeout)
    if not isinstance(observed.stop, Returned | Refused | Capacity) or observed.forks:
        return None
    return CleanRun(tuple(ports.offered), observed.ending, tuple(dispatch.surface for dispatch in observed.dispatches))


def unchanged_request(target: Target, scenario: Scenario, timeout: float) -> tuple[Ports, Observation]:
    """One request on the target with nothing injected, every boundary snapshotted."""
    ports = Ports(scenario, _format(target, scenario), None, None, watch=_EVERY, own_boundaries=own_boundaries(target))
    return ports, observe_ports(target, scenario, ports, timeout, terse_refusals=False)


def own_boundaries(target: Target) -> bool:
    """Whether the target offers boundaries of its own (`Target.own_boundaries`), found by a dry run."""
    return bool(getattr(target, "own_boundaries", False))


def offered_checkpoints(target: Target, timeout: float) -> Checkpoints:
    """Where the target's cases land: after the recorded stages, or, for a target with boundaries of
    its own, those it declares (`checkpoints(scenario)`) or else those a dry run of each scenario
    shows it offering. A dry run that shows none plans the recorded ones, whose cases then say
    what is wrong."""
    if not own_boundaries(target):
        return recorded_checkpoints
    declared = getattr(target, "checkpoints", None)
    if callable(declared):
        return declared

    def checkpoints(scenario: Scenario) -> tuple[tuple[int, str], ...]:
        ports, _ = unchanged_request(target, scenario, timeout)
        found = tuple(dict.fromkeys((call_of(at), at.partition("@")[0]) for at in ports.points))
        return found or recorded_checkpoints(scenario)

    return checkpoints


def case_ports(target: Target, case: Case, scenario: Scenario, watch: int = 0) -> Ports:
    """Fresh ports for one run of the case, its mutation armed at its point."""
    fmt = _format(target, scenario)
    mutator = by_key(case.mutation.mutator)
    mutation = case.mutation

    def inject(tools: list[Any], messages: list[Any], facts: list[Any]) -> tuple[list[Any], list[Any]]:
        # Called only while the target runs, so `ports` (below) is bound by then: its MCP server
        # is where a list-change mutation is made.
        return mutator.apply(Edit(tools, messages, fmt, mutation.delivery, mutation.aim, scenario, facts, ports.mcp))

    ports = Ports(scenario, fmt, case.at, inject, watch=watch, own_boundaries=own_boundaries(target))
    return ports


def _format(target: Target, scenario: Scenario) -> ToolFormat:
    fmt = FORMATS[getattr(target, "tool_format", None) or scenario.tool_format]
    carried = getattr(target, "wire_fields", None)
    return fmt if carried is None else fmt.only(carried)


def expected_surface(target: Target, scenario: Scenario, case: Case) -> Expected:
    """The surface `target` must send on each model call of the case, from the scenario and the
    case's mutation alone: the admitted surface narrowed by the trusted facts the scenario records
    in force by that call and, from the case's call on, those the mutation records, with the wire
    fields the target's tool format carries (what it cannot carry, it cannot send)."""
    recorded = by_key(case.mutation.mutator).records(scenario, case.mutation.aim)
    fmt = _format(target, scenario)
    return tuple(
        _narrowed_snapshot(scenario, recorded if call >= case.call else (), fmt, call) for call in range(1, scenario.model_calls + 1)
    )


@functools.lru_cache(maxsize=64)
def _narrowed_snapshot(scenario: Scenario, recorded: tuple[OwnerFact, ...], fmt: ToolFormat, call: int) -> Snapshot:
    # Asked for every run of every case; scenarios, facts and formats are frozen. Cases come in plan
    # order, a recording's together, so a few entries serve them all: a snapshot can be a megabyte,
    # and a cache as large as the number of recordings would grow with them.
    return snapshot_of(scenario.narrowed_by(recorded, call), fmt)


class DefectProbe:
    """Which reference defects a case kills.

    A case kills a defect when the defect lets it survive or falsely rejects it while the guarded
    design passes it: pairing with the guard keeps a case that fails everywhere (a broken
    scenario, say) from counting as a kill, and an `error` is never one — a crashing variant
    proves nothing.
    """

    def __init__(self, guard: Target, defects: Mapping[str, Callable[[], Target]], timeout: float) -> None:
        self.guard = guard
        self.defects = {name: factory() for name, factory in defects.items()}
        self.timeout = timeout

    def kills(self, case: Case, scenario: Scenario, guarded: Verdict | None = None) -> tuple[str, ...]:
        """The defects this case kills; `guarded` is the guard's verdict when already known."""
        expected = expected_surface(self.guard, scenario, case)  # the defects share the guard's tool format
        if guarded is None:
            guarded = judge(case, observe(self.guard, case, scenario, self.timeout), judged_on(self.guard, scenario), expected)
        if not guarded.kind.ok:
            return ()
        return tuple(
            name
            for name, defect in self.defects.items()
            if judge(case, observe(defect, case, scenario, self.timeout), judged_on(defect, scenario), expected).kind in _KILLS
        )


def observe(target: Target, case: Case, scenario: Scenario, timeout: float, explain: bool = False) -> Observation:
    """Run the target once on the case's scenario with its mutation armed; record what the ports saw.

    An expected refusal keeps only its type unless `explain` is set: its message may hold a diff
    that costs more than the case, and the case already records its change.
    """
    terse = case.must is Must.REFUSE and not explain
    return observe_ports(target, scenario, case_ports(target, case, scenario), timeout, terse_refusals=terse)


def observe_ports(target: Target, scenario: Scenario, ports: Ports, timeout: float, terse_refusals: bool = False) -> Observation:
    """Run the target once on `scenario` through `ports`, and record what they saw."""
    before = ports.publications.snapshot()
    refusals = tuple(getattr(target, "refusals", ())) or (RequestRefused,)
    capacity_results = tuple(getattr(target, "capacity_results", ())) or (CapacityExceeded,)
    stop: Stop = Returned()
    pid, forks = os.getpid(), _forks()
    try:
        with _deadline(timeout), _stop_forked_copies(pid):
            outcome = target.run(scenario, ports)
            if inspect.isawaitable(outcome):  # an async host: run its coroutine to completion
                asyncio.run(_completion(outcome))
    except CaseTimeout:
        stop = TimedOut()
    except KeyboardInterrupt:
        raise
    except LedgerRefused:
        pass  # the ledger recorded what it refused; the oracle judges that, not the exception
    except BaseException as error:  # a target may raise anything, SystemExit included
        stop = _stopped_by(error, refusals, capacity_results, terse_refusals)
    after = ports.publications.snapshot()
    return Observation(
        dispatches=tuple(ports.gateway.log),
        ledger=tuple(ports.events),
        open_reservations=ports.open_reservations,
        publications_lost=tuple(key for key, body in before.items() if after.get(key) != body),
        points=tuple(ports.points),
        injected=ports.injected,
        injection_problem=ports.injection_problem,
        stop=stop,
        not_carried=ports.not_carried,
        facts=ports.facts.current(),
        forks=_forks() - forks,
        listed=ports.mcp.pages_served,
    )


def _stopped_by(error: BaseException, refusals: tuple[type, ...], capacity_results: tuple[type, ...], terse: bool) -> Stop:
    name = type(error).__qualname__
    # A capacity result may also be one of the refusal types (ours is): it is the more specific.
    if isinstance(error, capacity_results):
        return Capacity(name, _describe(error))
    if isinstance(error, refusals):
        return Refused(name, "refused" if terse else _describe(error))
    return Crashed(name, _describe(error), "".join(traceback.format_exception(error)))


def _describe(error: BaseException) -> str:
    """`str(error)`, which a target's own exception may fail to give: that is its bug, not the run's."""
    try:
        return str(error)
    except Exception as problem:
        return f"<str() of {type(error).__name__} failed: {type(problem).__name__}: {problem}>"


#: `os._exit` itself: the harness's own way out, whoever replaced the name.
_exit = os._exit


class HostExited(BaseException):
    """A host called `os._exit` in the process that runs the cases and writes the results."""


@contextlib.contextmanager
def _exits_refused() -> Iterator[None]:
    """Turn a host's `os._exit` into an exception while cases run in this process: the process
    that would end is the one writing results.json, and its exit status would read as the gate's.
    (A worker needs no such care: its death is the parent's to judge.)"""

    def refuse(status: int) -> None:
        raise HostExited(f"the host called os._exit({status}) in the toolsurface process (--jobs 0)")

    os._exit = refuse  # type: ignore[assignment]
    try:
        yield
    finally:
        os._exit = _exit


#: Processes forked from this one so far, as `os.register_at_fork` counts them.
_forked = [0]


def _forks() -> int:
    return _forked[0]


def _count_fork() -> None:
    _forked[0] += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_parent=_count_fork)


@contextlib.contextmanager
def _stop_forked_copies(pid: int) -> Iterator[None]:
    """A copy of the process the host forked ends where it comes back to the harness: it must not
    go on to judge, write results or speak to the parent as if it were this process."""
    try:
        yield
    finally:
        if os.getpid() != pid:
            _exit(0)


#: Whether `alarm_handler` is active; checked per case, so a plain flag rather than getsignal().
_handling = False


async def _completion(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _expire(signum: int, frame: Any) -> None:
    raise CaseTimeout()


def _can_time_out() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def alarm_handler() -> Iterator[None]:
    """Route SIGALRM to case timeouts for a whole run, restoring the previous handler after."""
    global _handling
    if _handling or not _can_time_out():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expire)
    _handling = True
    try:
        yield
    finally:
        _handling = False
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` (main thread on POSIX; elsewhere the block runs unbounded)."""
    if seconds <= 0 or not _can_time_out():
        yield
        return
    with alarm_handler():
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
