"""Run the cases in worker processes the run owns; the parent holds the plan, judges and writes.

A host may do anything to the process it runs in: exit it, crash it, hang where no signal reaches
it, fork it, leave threads behind, keep state from one request to the next. So the targets run
only in workers forked from the parent — each starts with the parent's loaded scenarios and
targets, never having run a case — and the parent, which never runs a target:

- takes cases from the plan only as the workers need them, so a run of any size holds only those
  in flight, and sends each worker chunks of them; it gets back one observation per case and target;
- judges every case, and yields the records in plan order whatever order the workers finish in,
  so results.json is the same for any number of workers;
- ends a target that runs past its time from outside, whatever the host catches, and turns a
  worker that dies into an `error` for the case it was running; a fresh worker takes the rest;
- lets a worker go once a case changed its host's state and the host could not be loaded again
  from its spec (the worker leaves by itself, see `Observation.spent`), so the next case starts
  from a fresh host; a case that found its host changed by an earlier one runs again there, and
  its first run's failure still stands when the second passes;
- at the end, asks every worker for what came late after the grace period, and kills every
  worker and whatever it started: nothing a host left running outlives the run. A case whose
  threads are still running when its worker ends (at the end of the grace period, or killed) is
  an `error`: what they might yet do, nobody would see.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import gc
import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

from ._clean import CleanRun, NoCleanRun
from ._observe import alarm_handler
from ._runner import Runner
from ._types import (
    Amendment,
    Case,
    CaseRecord,
    Died,
    Interrupted,
    Observation,
    Role,
    Stop,
    TimedOut,
)
from ._watch import GRACE_ENDED, WORKER_ENDED, left_running, settle

#: Cases sent to a worker at a time: enough to keep the pipe from costing more than the cases.
CHUNK = 16
#: Chunks per worker taken from the plan ahead of what the workers run.
_AHEAD = 4
#: Seconds a worker has, past its targets' own time, to report before it is killed from outside.
MARGIN = 1.0
#: Seconds a worker has to send back what it observed, past any grace period it gives its hosts as
#: it leaves. No case runs meanwhile, but pickling the answers can start a collection of the
#: worker's whole heap, which on a loaded machine takes seconds: a worker slower than this is stuck.
ANSWER_TIME = 30.0


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


#: Seconds before the parent looks again at a worker that has work but has not begun it.
_GLANCE = 0.05
#: The roles as the progress marker numbers them.
_ROLES = tuple(Role)


@dataclass
class _Worker:
    process: Any
    conn: Connection
    #: Shared with the worker, which writes what it is doing without a message: [case index, role
    #: number, monotonic start], the index -1 while it answers, the start 0 while it waits for work.
    marker: Any
    #: What it was sent and has not answered yet, in the order it runs them: (case index, role).
    inflight: deque[tuple[int, Role]] = field(default_factory=deque)
    #: It said it will leave (its host state changed): its end is no death.
    leaving: bool = False
    #: The cases whose host threads were running when it last answered, once per thread.
    left: list[tuple[int, Role]] = field(default_factory=list)

    def doing(self) -> tuple[tuple[int, Role] | None, float]:
        """What it is running (None while it answers or waits) and since when (0: it waits)."""
        started = self.marker[2]
        index = int(self.marker[0])
        return (None if index < 0 else (index, _ROLES[int(self.marker[1])])), started


class WorkerPool:
    """Runs the cases of one run on `jobs` worker processes at a time."""

    def __init__(self, runner: Runner, jobs: int, grace: float) -> None:
        self.runner = runner
        self.jobs = max(1, jobs)
        self.grace = grace
        self._context = multiprocessing.get_context("fork")
        self._workers: list[_Worker] = []
        #: The cases taken from the plan and not yet recorded, by index.
        self._cases: dict[int, Case] = {}

    def run(self, cases: Iterable[Case]) -> Iterator[CaseRecord | Amendment]:
        try:
            yield from self._run(cases)
        finally:
            for worker in self._workers:
                self._kill(worker)
            gc.unfreeze()  # see `_spawn`: once no worker shares them, the parent's objects are collected again

    def _run(self, cases: Iterable[Case]) -> Iterator[CaseRecord | Amendment]:
        self.runner.clean = self._prime()
        self._cases.clear()
        self._observed: dict[int, dict[Role, Observation]] = {}
        #: The first run of each case that found its host changed by an earlier case, kept until its second run.
        self._first: dict[tuple[int, Role], Observation] = {}
        self._kills: dict[int, tuple[str, ...] | None] = {}
        self._late: list[Amendment] = []
        self._queue: deque[tuple[int, Role]] = deque()
        upcoming = iter(cases)
        #: The indexes taken, in plan order, until their records are yielded.
        taken: deque[int] = deque()
        done: dict[int, CaseRecord] = {}
        more = True
        while more or taken:
            if more:
                more = self._take(upcoming, taken, done)
            while taken and taken[0] in done:
                yield done.pop(taken.popleft())
            if taken:  # its first case is still running
                self._hand_out()
                for index in self._receive():
                    done[index] = self._record(index)
        yield from sorted(self._late + self._drain(), key=lambda a: (a.index, a.role != Role.TARGET))

    def _take(self, upcoming: Iterator[Case], taken: deque[int], done: dict[int, CaseRecord]) -> bool:
        """Take cases from the plan until enough wait to keep every worker busy; False once none are left.
        An equivalent case is not run: its record is made as it is taken."""
        enough = _AHEAD * CHUNK * self.jobs
        while len(self._queue) < enough * len(self.runner.roles) and len(taken) < 2 * enough:
            case = next(upcoming, None)
            if case is None:
                return False
            taken.append(case.index)
            if case.equivalent:
                done[case.index] = self.runner.record(case, None, None, None if self.runner.probe is None else ())
            else:
                self._cases[case.index] = case
                self._queue.extend((case.index, role) for role in self.runner.roles)
        return True

    def _hand_out(self) -> None:
        while self._queue and len(self._workers) < self.jobs:
            self._workers.append(self._spawn())
        chunk = CHUNK * len(self.runner.roles)
        for worker in self._workers:
            # A second chunk goes out before the first is done, so a worker never waits for the parent.
            if len(worker.inflight) <= chunk and not worker.leaving and self._queue:
                size = max(1, min(chunk, len(self._queue) // (2 * self.jobs)))
                sent = [self._queue.popleft() for _ in range(min(size, len(self._queue)))]
                worker.inflight.extend(sent)
                # A worker that has just left cannot take them; its end, read next, puts them back.
                with contextlib.suppress(OSError):
                    worker.conn.send(("cases", [(self._cases[index], role) for index, role in sent]))

    def _receive(self) -> list[int]:
        """Wait for answers (or a deadline); the indexes of the cases now observed in full."""
        busy = [worker for worker in self._workers if worker.inflight or worker.leaving]
        deadlines = [deadline for deadline in map(self._deadline, busy) if deadline is not None]
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        complete = []
        by_conn = {worker.conn: worker for worker in busy}
        for conn in wait(list(by_conn), timeout):
            worker = by_conn[conn]  # type: ignore[index]
            try:
                while True:  # every answer waiting, not one per wakeup
                    answers, late, worker.left = worker.conn.recv()
                    self._late += late
                    for answer in answers:
                        complete += self._answer(worker, *answer)
                    if not worker.conn.poll():
                        break
            except (EOFError, OSError):
                complete += self._lost(worker, self._death(worker))
        now = time.monotonic()
        for worker in list(self._workers):
            deadline = self._deadline(worker)
            if deadline is not None and now > deadline:
                self._kill(worker)
                complete += self._lost(worker, TimedOut(killed=True))
        return complete

    def _deadline(self, worker: _Worker) -> float | None:
        """When what the worker is doing is overdue (monotonic seconds, the same clock as the worker's)."""
        doing, started = worker.doing()
        if not worker.inflight and not worker.leaving:
            return None
        if not started:  # between its last answer and what it was sent next: look again shortly
            return time.monotonic() + _GLANCE
        if doing:
            return started + self._budget(*doing)
        # Not running a case: answering, and, as it leaves, first giving its hosts' threads their grace period.
        return started + self.grace + ANSWER_TIME

    def _answer(
        self, worker: _Worker, index: int, role: Role, observed: Observation, kills: tuple[str, ...] | None
    ) -> list[int]:
        worker.leaving = observed.spent
        if observed.stale:
            # State an earlier case left: the worker leaves, and a fresh one runs this case again.
            self._first.setdefault((index, role), observed)
            return []
        worker.inflight.remove((index, role))
        if (first := self._first.pop((index, role), None)) is not None:
            observed = dataclasses.replace(observed, first_run=first.stale)
        return self._observe(index, role, observed, kills)

    def _observe(self, index: int, role: Role, observed: Observation, kills: tuple[str, ...] | None) -> list[int]:
        self._observed.setdefault(index, {})[role] = observed
        if role is Role.TARGET:
            self._kills[index] = kills
        return [index] if len(self._observed[index]) == len(self.runner.roles) else []

    def _lost(self, worker: _Worker, stop: Stop) -> list[int]:
        """A worker is gone: unless it left as it said it would, what it was running stopped as
        `stop`; the rest of what it was sent goes back to the front of the queue. The cases whose
        threads were running when it last answered can no longer be watched."""
        self._workers.remove(worker)
        self._kill(worker)
        complete = []
        doing, started = worker.doing()
        if started and not doing and worker.inflight and not worker.leaving:
            doing = worker.inflight[0]  # it died answering: blame the first, so a second try makes headway
        if doing is not None and doing in worker.inflight and not worker.leaving:
            worker.inflight.remove(doing)
            index, role = doing
            nothing_seen = Observation((), (), (), (), False, None, stop)  # the ports died with the worker
            if (first := self._first.pop(doing, None)) is not None:
                nothing_seen = dataclasses.replace(nothing_seen, first_run=first.stale)
            complete = self._observe(index, role, nothing_seen, None if self.runner.probe is None else ())
        self._late += left_running([case for case in worker.left if case != doing], WORKER_ENDED)
        self._queue.extendleft(reversed(worker.inflight))
        return complete

    def _death(self, worker: _Worker) -> Died | Interrupted:
        worker.process.join(MARGIN)
        code = worker.process.exitcode
        if code is None:
            return Died("closed its pipe and stopped answering")
        if code == -signal.SIGINT:  # a worker interrupted ends by its signal (`_serve`)
            return Interrupted("was interrupted by SIGINT")
        if code < 0:
            return Died(f"was killed by {signal.Signals(-code).name}")
        return Died(f"exited with status {code}")

    def _record(self, index: int) -> CaseRecord:
        observed = self._observed.pop(index)
        return self.runner.record(
            self._cases.pop(index), observed[Role.TARGET], observed.get(Role.RED), self._kills.pop(index)
        )

    def _budget(self, index: int, role: Role) -> float:
        """Seconds a worker may take over one observation before it is killed from outside: every
        run it makes for it, each its case's time, and a margin."""
        runs = 2 if role is Role.TARGET else 1  # the case and its follow-up request
        if role is Role.TARGET and self.runner.probe is not None:
            runs += 1 + len(self.runner.probe.defects)
        return runs * self.runner.timeout_for(self._cases[index].scenario) + MARGIN

    def _prime(self) -> dict[tuple[Role, str], CleanRun | NoCleanRun]:
        """The clean runs, made in workers of their own so the parent never runs a target: each
        sent back as it is made, so one that ends its worker is known as the one that did, and a
        fresh worker makes the rest."""
        wanted = deque(self.runner.clean_keys())
        clean: dict[tuple[Role, str], CleanRun | NoCleanRun] = {}
        while wanted:
            worker = self._spawn()
            try:
                worker.conn.send(("prime", list(wanted)))
                while wanted:
                    if not worker.conn.poll(self.runner.clean_timeout + MARGIN):
                        why = (
                            f"timed out after {self.runner.clean_timeout:g} s; it ignored the interrupt, so "
                            "its worker process was killed"
                        )
                        clean[wanted.popleft()] = NoCleanRun(why)
                        break
                    clean[wanted.popleft()] = worker.conn.recv()
            except (EOFError, OSError):
                clean[wanted.popleft()] = NoCleanRun(f"ended with its worker process, which {self._death(worker).how}")
            finally:
                self._kill(worker)
        return clean

    def _drain(self) -> list[Amendment]:
        """What came late, from every worker, once each has given its hosts `grace` seconds; a
        worker that does not answer in time is killed, its cases' running threads unwatched."""
        late: list[Amendment] = []
        workers = [w for w in self._workers if not w.leaving]
        for worker in workers:
            with contextlib.suppress(OSError):
                worker.conn.send(("drain",))
        until = time.monotonic() + self.grace + ANSWER_TIME
        for worker in workers:
            try:
                if worker.conn.poll(max(0.0, until - time.monotonic())):
                    late += worker.conn.recv()
                    continue
            except (EOFError, OSError):
                pass
            late += left_running(worker.left, WORKER_ENDED)
        return late

    def _spawn(self) -> _Worker:
        # What the parent holds stays out of the workers' garbage collection: a collection would
        # touch, and so copy, every page of the scenarios and targets they share with the parent.
        gc.freeze()
        parent, child = self._context.Pipe()
        marker = self._context.RawArray("d", 3)
        process = self._context.Process(
            target=_serve, args=(child, marker, self.runner, os.getpid(), self.grace), daemon=True
        )
        process.start()
        child.close()
        return _Worker(process, parent, marker)

    def _kill(self, worker: _Worker) -> None:
        """End the worker and every process it started (it leads a process group of its own, once
        it has begun: a worker killed as it starts is ended by its pid)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.kill()
        worker.process.join()
        worker.conn.close()


def _serve(conn: Connection, marker: Any, runner: Runner, parent: int, grace: float) -> None:
    """A worker's life: observe what the parent sends until it says stop, then let its hosts go
    and give what they left running `grace` seconds to show itself."""
    try:
        os.setsid()  # a group of its own: the parent can end it with all it started, and ^C goes to the parent alone
        _die_with_parent(parent)
        before = set(threading.enumerate())
        with alarm_handler():
            _answer(conn, marker, runner, before, grace)
    except KeyboardInterrupt as interrupt:
        # A signal (or the host) interrupted the worker: it ends by that signal, so the parent reads
        # an interrupt, not a worker that exited with status 0.
        _end_by(getattr(interrupt, "signal", signal.SIGINT))
    finally:
        os._exit(0)


def _end_by(signum: int) -> None:
    """End this process by `signum` at its default disposition, as if it had not been caught."""
    signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signum})
    os.kill(os.getpid(), signum)


def _die_with_parent(parent: int) -> None:
    """Be killed when the parent is, however it ends (SIGKILL included): a worker stuck in its host
    must not outlive the run, holding its output pipes open. Linux does it for us; elsewhere a
    thread watches for the parent to go."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL) == 0:
            if os.getppid() != parent:  # it went before the request was made
                os._exit(0)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="toolsurface-parent-watch", daemon=True).start()


#: `prctl` option: the signal a process gets when its parent ends (linux/prctl.h).
_PR_SET_PDEATHSIG = 1


def _answer(conn: Connection, marker: Any, runner: Runner, before: set[threading.Thread], grace: float) -> None:
    while True:
        message = conn.recv()
        if message[0] == "prime":
            for role, scenario in message[1]:
                conn.send(runner.clean_run(role, scenario))
            return
        if message[0] == "drain":
            conn.send(_let_go(runner, before, grace))
            return
        # One message back per chunk, not per case, with the marker telling the parent what is
        # running meanwhile; but a run of the target under test that does not pass is sent at
        # once, so none dies unreported with the worker: what a death loses is only such runs that
        # passed (and red runs), which may run again without hiding a failure.
        answers = []
        for case, role in message[1]:
            _mark(marker, case.index, _ROLES.index(role))
            observed = runner.observe(case, role)
            answers.append((case.index, role, observed, runner.kills(case, observed) if role is Role.TARGET else None))
            _mark(marker, -1, 0)
            if observed.spent:  # this host's state is no longer fresh: a new worker takes the rest
                conn.send((answers, _let_go(runner, before, grace), []))
                return
            if role is Role.TARGET and not runner.passes(case, role, observed):
                conn.send((answers, runner.take_late(), runner.threads.alive()))
                answers = []
        if answers:
            conn.send((answers, runner.take_late(), runner.threads.alive()))
        marker[2] = 0.0


def _let_go(runner: Runner, before: set[threading.Thread], grace: float) -> list[Amendment]:
    """What came late once the hosts are let go (what only they held is collected, finalizers and
    all) and given `grace` seconds; then the cases whose threads are still running, as errors."""
    runner.release()
    settle(grace, before)
    return runner.take_late() + runner.threads.unwatched(GRACE_ENDED)


def _mark(marker: Any, index: int, role: int) -> None:
    """Say what runs now, and since when; the start last, so the parent never times the old
    observation against the new one's budget."""
    marker[2] = 0.0
    marker[0], marker[1] = index, role
    marker[2] = time.monotonic()
