"""Run cases against a target through fresh ports, and turn every outcome into a value.

The runner never raises for one case: a crash, a hang or a mutation that cannot apply becomes an
`Observation` the oracle judges as `error`, and the run goes on. It runs in whichever process
hosts the target: the run's own in-process mode, or each worker process of `_workers`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from toolsurface.common._frozen import frozen
from toolsurface.contract._canonical import Snapshot, snapshot_of
from toolsurface.contract._facts import OwnerFact
from toolsurface.contract._formats import ToolFormat
from toolsurface.mutators import Edit, Must, by_key
from toolsurface.scenarios import Boundary, RequestOutcome, Scenario

from ._attribution import in_form
from ._capacity import judged_on
from ._clean import CleanRun, NoCleanRun, clean_run, failed_request, unchanged_request
from ._observe import (
    alarm_handler,
    exits_refused,
    observe_ports,
    target_ports,
    tool_format,
)
from ._oracles import EQUIVALENT, LATE, Expected, evidence, judge
from ._plan import Checkpoints, recorded_checkpoints
from ._ports import Ports
from ._traits import LoadedTarget, TargetTraits, loaded
from ._types import (
    Amendment,
    Case,
    CaseRecord,
    Evidence,
    NotRun,
    Observation,
    Role,
    Target,
    Verdict,
    VerdictKind,
)
from ._watch import GRACE_ENDED, ThreadWatch, settle

__all__ = [
    "DefectProbe",
    "Runner",
    "alarm_handler",
    "expected_surface",
    "observe",
    "offered_checkpoints",
]

#: Seconds a request may take when no timeout is given, however fast its clean run is.
DEFAULT_TIMEOUT = 10.0
#: When no timeout is given, a request may take this many times as long as its scenario's clean
#: run took, where that is longer: a machine loaded enough to slow the host slows its clean run too.
TIMEOUT_SCALE = 20

#: What a defect does to a case for the case to kill it; an `error` never counts.
_KILLS = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})


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
        target: Target | LoadedTarget,
        red_target: Target | LoadedTarget | None = None,
        timeout: float | None = None,
        probe: DefectProbe | None = None,
        renew: Callable[[Role], Target | LoadedTarget] | None = None,
        recordings: Iterable[str] | None = None,
    ) -> None:
        self.scenarios = {scenario.id: scenario for scenario in scenarios}
        #: The scenarios cases will run on, whose clean runs `prime` makes (None: every one): a run
        #: of one recording's cases never runs its target on the others.
        self.recordings = tuple(self.scenarios) if recordings is None else tuple(recordings)
        #: Each role's target with its traits, resolved once (or as it was loaded).
        self.hosts = {Role.TARGET: loaded(target)} | ({} if red_target is None else {Role.RED: loaded(red_target)})
        self.roles: tuple[Role, ...] = tuple(self.hosts)
        #: Seconds one request may take; None: scaled from each scenario's clean run (`timeout_for`).
        self.timeout = timeout
        self.probe = probe
        #: A fresh copy of a role's target, loaded again from its spec: the next case's host once a
        #: case left state behind, where no fresh worker process gives it one (`--jobs 0`, pytest).
        self.renew = renew
        #: What each target offers on each scenario when nothing has run before and nothing is changed.
        self.clean: dict[tuple[Role, str], CleanRun | NoCleanRun] | None = None
        #: Effects on closed ports, appended from whatever thread a host left running.
        self._late: deque[Amendment] = deque()
        #: The threads each case's host started, while they run.
        self.threads = ThreadWatch()
        #: The last case each target ran in this process: where stale state came from.
        self._last: dict[Role, str] = {}
        #: Each scenario as each role's target is judged on it: a target that declares its own token
        #: estimator is held to it, so a request that does not fit by its count must end in capacity.
        self._judged = {
            role: {
                key: judged_on(host.traits.estimate_tokens, s, tool_format(host.traits, s))
                for key, s in self.scenarios.items()
            }
            for role, host in self.hosts.items()
        }

    @property
    def target(self) -> Target:
        return self.hosts[Role.TARGET].target

    @property
    def red_target(self) -> Target | None:
        return host.target if (host := self.hosts.get(Role.RED)) else None

    def target_of(self, role: Role) -> Target:
        return self.hosts[role].target

    @property
    def clean_timeout(self) -> float:
        """Seconds a clean run may take: the timeout given, else the default."""
        return DEFAULT_TIMEOUT if self.timeout is None else self.timeout

    def timeout_for(self, scenario: str) -> float:
        """Seconds one request of the scenario may take: the timeout given, else the default or
        `TIMEOUT_SCALE` times its slowest clean run, whichever is longer."""
        if self.timeout is not None:
            return self.timeout
        clean = self.clean or {}
        runs = [run.seconds for role in self.roles if isinstance(run := clean.get((role, scenario)), CleanRun)]
        return max([DEFAULT_TIMEOUT, *(TIMEOUT_SCALE * seconds for seconds in runs)])

    def prime(self) -> None:
        """Run every target once on every scenario, unchanged: the clean runs a case is compared with."""
        if self.clean is None:
            self.clean = {key: self.clean_run(*key) for key in self.clean_keys()}

    def clean_keys(self) -> list[tuple[Role, str]]:
        return [(role, scenario) for role in self.roles for scenario in self.recordings]

    def clean_run(self, role: Role, scenario: str) -> CleanRun | NoCleanRun:
        with _collection_paused():
            return clean_run(self.hosts[role], self.scenarios[scenario], self.clean_timeout)

    def run(self, cases: Iterable[Case], grace: float = 0.0) -> Iterator[CaseRecord | Amendment]:
        """Each case's record, in order; then, after `grace` seconds for what hosts left running, what came late."""
        before, cwd = ThreadWatch.running(), os.getcwd()
        # What outlives every case (scenarios, their documents, the targets) is kept out of garbage
        # collection while cases run. Each case decodes its surface afresh, so a surface of N tools
        # brings full collections about N times as often; were each to walk the scenarios too (also
        # about N), the cost per case would grow as N². A worker's parent freezes before it forks
        # (`WorkerPool`), so only a run in this process freezes here, and thaws what it froze.
        with alarm_handler(), exits_refused(), frozen():
            for case in cases:
                yield self.run_case(case)
                # This process writes the run's files by the paths it was given: a host that moved
                # it elsewhere is moved back, as a factory's move is (`kept_process`).
                if os.getcwd() != cwd:
                    os.chdir(cwd)
            settle(grace, before)
        yield from self.take_late()
        yield from self.threads.unwatched(GRACE_ENDED)

    def run_case(self, case: Case) -> CaseRecord:
        if case.equivalent:
            return self.record(case, None, None, None if self.probe is None else ())
        observed = self.observe(case, Role.TARGET)
        red = self.observe(case, Role.RED) if Role.RED in self.roles else None
        return self.record(case, observed, red, self.kills(case, observed))

    def observe(self, case: Case, role: Role, explain: bool = False) -> Observation:
        """One run of the case on the role's target, checked against a clean run before and after;
        the threads its host started are watched from then on, and a host the case left changed
        is loaded again (`renewed`)."""
        self.prime()  # first: the clean runs' threads are no case's
        before = ThreadWatch.running()
        with _collection_paused():
            observed = self._observe(case, role, explain)
        self.threads.started(before, case.index, role)  # before a new host's factory starts its own
        if observed.stale or observed.leaked or observed.unfollowed:
            observed = dataclasses.replace(observed, renewed=self._renew(role))
        return observed

    def _observe(self, case: Case, role: Role, explain: bool) -> Observation:
        assert self.clean is not None
        host, scenario = self.hosts[role], self.scenarios[case.scenario]
        if (role, scenario.id) not in self.clean:  # a case of a scenario not primed (`reproduce`, a test's own)
            self.clean[role, scenario.id] = self.clean_run(role, scenario.id)
        clean, timeout = self.clean[role, scenario.id], self.timeout_for(scenario.id)
        late = functools.partial(self._came_late, case.index, role)
        ports = case_ports(host.traits, case, scenario, watch=1)
        observed = observe_ports(
            host, scenario, ports, timeout, terse_refusals=case.must is Must.REFUSE and not explain
        )
        ports.close(late)
        if isinstance(clean, NoCleanRun):
            self._last[role] = case.id
            return dataclasses.replace(observed, no_clean_run=clean.why)
        earlier = self._last.get(role)
        self._last[role] = case.id
        # A run that crashed or timed out is judged as it happened, whatever came before it: only
        # one that ran to an end and differed from a clean run before its change is run again.
        fresh = not earlier or failed_request(observed, timeout) is not None
        stale = (
            () if fresh else tuple(f"after {earlier}: {line}" for line in clean.before_change(case, ports, observed))
        )
        if role is Role.RED or stale or not observed.touched:
            return dataclasses.replace(observed, stale=stale)
        after, next_request = unchanged_request(host, scenario, timeout)
        after.close(late)
        unfollowed = failed_request(next_request, timeout)
        leaked = () if unfollowed else clean.differences_in(after, next_request)
        return dataclasses.replace(
            observed,
            leaked=leaked,
            unfollowed=unfollowed,
            forks=observed.forks + next_request.forks,
            next_request=next_request if explain else None,
        )

    def _renew(self, role: Role) -> bool:
        """Load the role's host again from its spec, once a case left state in it: whether a new
        object took its place. State kept in the object is gone with it; a host that keeps it in
        its module, or whose factory hands out one object, shows at the next case's start (`stale`)."""
        if self.renew is None:
            return False
        try:
            fresh = loaded(self.renew(role))
        except Exception:
            return False  # its factory worked once and fails now: the old host stays, and is spent
        old, self.hosts[role] = self.hosts[role], fresh
        return fresh.target is not old.target

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
        known = (
            judge(case, observed, self.judged(Role.TARGET, case.scenario), expected)
            if type(self.target) is type(self.probe.guard.target)
            else None
        )
        return self.probe.kills(case, scenario, self.timeout_for(case.scenario), known)

    def record(
        self, case: Case, observed: Observation | None, red: Observation | None, kills: tuple[str, ...] | None
    ) -> CaseRecord:
        """The case's record from its observations (None for an equivalent case, which is not run)."""
        if observed is None:
            nothing = Evidence(0, (), NotRun(), (), (), ())
            return CaseRecord(case, EQUIVALENT, EQUIVALENT if Role.RED in self.roles else None, nothing, kills)
        scenario, expected = self.judged(Role.TARGET, case.scenario), self.expected(case)
        red_verdict = (
            None
            if red is None
            else judge(case, red, self.judged(Role.RED, case.scenario), self.expected(case, Role.RED))
        )
        verdict, found = self.attributed(case, observed, scenario, expected)
        return CaseRecord(case, verdict, red_verdict, found, kills)

    def attributed(
        self, case: Case, observed: Observation, scenario: Scenario, expected: Expected
    ) -> tuple[Verdict, Evidence]:
        """The verdict on the target's run of the case and what it rests on. On a target that declares
        its framework's form (`_attribution`), a failure that form explains is marked the framework's
        own, its verdict standing; any other failure is said, and its diff listed, against that form."""
        verdict, found = judge(case, observed, scenario, expected), evidence(case, observed, scenario, expected)
        traits = self.hosts[Role.TARGET].traits
        if verdict.kind.ok or traits.framework_form is None:
            return verdict, found
        fmt = tool_format(traits, self.scenarios[case.scenario])
        formed = in_form(case, observed, scenario, expected, traits.framework_form, fmt)
        if formed is not None and formed.verdict.kind.ok:
            return verdict, dataclasses.replace(found, framework_own=True)  # the verdict stands: it is a failure
        if formed is not None and formed.verdict.kind is verdict.kind:
            # The agent's own failure, said without the framework's rewrite beside it.
            return formed.verdict, dataclasses.replace(found, diff=formed.diff)
        return verdict, found

    def passes(self, case: Case, role: Role, observed: Observation) -> bool:
        """Whether the role's run of the case passes as it stands (what comes late aside)."""
        return judge(case, observed, self.judged(role, case.scenario), self.expected(case, role)).kind.ok

    def expected(self, case: Case, role: Role = Role.TARGET) -> Expected:
        """What the case's request must go out as on the role's target."""
        return expected_surface(self.hosts[role].traits, self.scenarios[case.scenario], case)

    def release(self) -> None:
        """Let go of the targets for good, so that what only they hold is collected (and its
        finalizers run) while their ports are still watched."""
        self.hosts.clear()
        self.probe = None

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


def offered_checkpoints(target: Target | LoadedTarget, timeout: float) -> Checkpoints:
    """Where the target's cases land: after the recorded stages, or, for a target with boundaries of
    its own, those it declares (`checkpoints(scenario)`) or else those a dry run of each scenario
    shows it offering. A dry run that shows none plans the recorded ones, whose cases then say
    what is wrong."""
    host = loaded(target)
    if not host.traits.own_boundaries:
        return recorded_checkpoints
    if (declared := host.traits.checkpoints) is not None:
        # A target declares each as a `Boundary` or, as adapters written before it did, a `(call, point)` pair.
        return lambda scenario: tuple(map(Boundary.of, declared(scenario)))

    def checkpoints(scenario: Scenario) -> tuple[Boundary, ...]:
        ports, _ = unchanged_request(host, scenario, timeout)
        return tuple(dict.fromkeys(ports.points)) or recorded_checkpoints(scenario)

    return checkpoints


def case_ports(traits: TargetTraits, case: Case, scenario: Scenario, watch: int = 0) -> Ports:
    """Fresh ports for one run of the case, its mutation armed at its point."""
    fmt = tool_format(traits, scenario)
    mutator = by_key(case.mutation.mutator)
    mutation = case.mutation

    def inject(tools: list[Any], messages: list[Any], facts: list[Any]) -> tuple[list[Any], list[Any]]:
        # Called only while the target runs, so `ports` (below) is bound by then: its MCP server
        # is where a list-change mutation is made.
        edit = Edit(tools, messages, fmt, mutation.delivery, mutation.aim, scenario, facts, ports.mcp, ports.gateway)
        return mutator.apply(edit)

    ports = target_ports(traits, scenario, case.boundary, inject, watch)
    return ports


def expected_surface(traits: TargetTraits, scenario: Scenario, case: Case) -> Expected:
    """The surface a target of these traits must send on each model call of the case, from the scenario and the
    case's mutation alone: the admitted surface narrowed by the trusted facts the scenario records
    in force by that call and, from the case's call on, those the mutation records, with the wire
    fields the target's tool format carries (what it cannot carry, it cannot send)."""
    recorded = by_key(case.mutation.mutator).records(scenario, case.mutation.aim)
    fmt = tool_format(traits, scenario)
    return tuple(
        _narrowed_snapshot(scenario, recorded if call >= case.call else (), fmt, call)
        for call in range(1, scenario.model_calls + 1)
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

    def __init__(self, guard: Target, defects: Mapping[str, Callable[[], Target]]) -> None:
        self.guard = loaded(guard)
        self.defects = {name: loaded(factory()) for name, factory in defects.items()}

    def kills(self, case: Case, scenario: Scenario, timeout: float, guarded: Verdict | None = None) -> tuple[str, ...]:
        """The defects this case kills, each run given `timeout` seconds; `guarded` is the guard's
        verdict when already known."""
        expected = expected_surface(self.guard.traits, scenario, case)  # the defects share the guard's tool format
        if guarded is None:
            guarded = judge(case, observe(self.guard, case, scenario, timeout), _judged(self.guard, scenario), expected)
        if not guarded.kind.ok:
            return ()
        return tuple(
            name
            for name, defect in self.defects.items()
            if judge(case, observe(defect, case, scenario, timeout), _judged(defect, scenario), expected).kind in _KILLS
        )


def _judged(host: LoadedTarget, scenario: Scenario) -> Scenario:
    return judged_on(host.traits.estimate_tokens, scenario, tool_format(host.traits, scenario))


def observe(
    target: Target | LoadedTarget, case: Case, scenario: Scenario, timeout: float, explain: bool = False
) -> Observation:
    """Run the target once on the case's scenario with its mutation armed; record what the ports saw.

    An expected refusal keeps only its type unless `explain` is set: its message may hold a diff
    that costs more than the case, and the case already records its change.
    """
    terse, host = case.must is Must.REFUSE and not explain, loaded(target)
    return observe_ports(host, scenario, case_ports(host.traits, case, scenario), timeout, terse_refusals=terse)
