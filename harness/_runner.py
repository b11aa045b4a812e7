"""Run cases against a target through fresh ports, and turn every outcome into a value.

The runner never raises for one case: a crash, a hang or a mutation that cannot apply becomes an
`Observation` the oracle judges as `error`, and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import signal
import threading
import traceback
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from typing import Any

from toolsurface.mutators import Edit, Must, by_key
from toolsurface.scenarios import Scenario

from ._canonical import Snapshot, snapshot_of
from ._errors import CapacityExceeded, RequestRefused
from ._formats import FORMATS
from ._oracles import EQUIVALENT, evidence, judge
from ._ports import LedgerRefused, Ports
from ._types import (
    Capacity,
    Case,
    CaseRecord,
    Crashed,
    Evidence,
    NotRun,
    Observation,
    Refused,
    Returned,
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
    """Runs cases on a target (and, for RED/GREEN pairing, on a red target)."""

    def __init__(
        self,
        scenarios: Iterable[Scenario],
        target: Target,
        red_target: Target | None = None,
        timeout: float = 10.0,
        probe: DefectProbe | None = None,
    ) -> None:
        self.scenarios = {scenario.id: scenario for scenario in scenarios}
        self.target = target
        self.red_target = red_target
        self.timeout = timeout
        self.probe = probe
        # The admitted surface narrowed by the recorded trusted facts: the scenario alone decides it.
        self._expected = {key: snapshot_of(s.surface) for key, s in self.scenarios.items()}

    def run(self, cases: Iterable[Case]) -> Iterator[CaseRecord]:
        with alarm_handler():
            for case in cases:
                yield self.run_case(case)

    def run_case(self, case: Case) -> CaseRecord:
        killed: tuple[str, ...] | None = None if self.probe is None else ()
        if case.equivalent:
            nothing = Evidence(0, (), NotRun(), (), (), ())
            return CaseRecord(case, EQUIVALENT, EQUIVALENT if self.red_target else None, nothing, killed)
        scenario, expected = self.scenarios[case.scenario], self._expected[case.scenario]
        observed = observe(self.target, case, scenario, self.timeout)
        verdict = judge(case, observed, scenario, expected)
        red = None
        if self.red_target is not None:
            red = judge(case, observe(self.red_target, case, scenario, self.timeout), scenario, expected)
        if self.probe is not None:
            known = verdict if type(self.target) is type(self.probe.guard) else None
            killed = self.probe.kills(case, scenario, expected, known)
        return CaseRecord(case, verdict, red, evidence(case, observed, scenario, expected), killed)

    def expected(self, case: Case) -> Snapshot:
        return self._expected[case.scenario]


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

    def kills(self, case: Case, scenario: Scenario, expected: Snapshot, guarded: Verdict | None = None) -> tuple[str, ...]:
        """The defects this case kills; `guarded` is the guard's verdict when already known."""
        if guarded is None:
            guarded = judge(case, observe(self.guard, case, scenario, self.timeout), scenario, expected)
        if not guarded.kind.ok:
            return ()
        return tuple(
            name
            for name, defect in self.defects.items()
            if judge(case, observe(defect, case, scenario, self.timeout), scenario, expected).kind in _KILLS
        )


def observe(target: Target, case: Case, scenario: Scenario, timeout: float, explain: bool = False) -> Observation:
    """Run the target once on the case's scenario with its mutation armed; record what the ports saw.

    An expected refusal keeps only its type unless `explain` is set: its message may hold a diff
    that costs more than the case, and the case already records its change.
    """
    fmt = FORMATS[getattr(target, "tool_format", None) or scenario.tool_format]
    mutator = by_key(case.mutation.mutator)
    mutation = case.mutation

    def inject(tools: list[Any], messages: list[Any], facts: list[Any]) -> tuple[list[Any], list[Any]]:
        return mutator.apply(Edit(tools, messages, fmt, mutation.delivery, mutation.aim, scenario, facts))

    terse = case.must is Must.REFUSE and not explain
    return observe_ports(target, scenario, Ports(scenario, fmt, case.point, inject), timeout, terse_refusals=terse)


def observe_ports(target: Target, scenario: Scenario, ports: Ports, timeout: float, terse_refusals: bool = False) -> Observation:
    """Run the target once on `scenario` through `ports`, and record what they saw."""
    before = ports.publications.snapshot()
    refusals = tuple(getattr(target, "refusals", ())) or (RequestRefused,)
    capacity_results = tuple(getattr(target, "capacity_results", ())) or (CapacityExceeded,)
    stop: Stop = Returned()
    try:
        with _deadline(timeout):
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
        facts=ports.facts.current(),
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
