"""Parse files in worker processes the scan owns, so no file can take the scan down with it.

libcst's native parser can exhaust its stack and kill the process it runs in, and its parse time
grows faster than linearly on long expressions. So the parent never parses: it hands each worker
one file at a time and waits on the workers' pipes and process sentinels together. A worker that
dies costs the file it was on (named with the signal that killed it), a file that runs past the
time limit has its worker killed from outside; either way a fresh worker takes the rest. With
`fork` a worker starts in milliseconds with libcst already imported, so even one file, or
`--jobs 1`, is parsed in a worker of its own.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import itertools
import multiprocessing
import signal
import time
from collections import deque
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from toolsurface.common._frozen import frozen

from ._engine import scan_source
from ._summary import Summary, summarise
from ._types import FileFailed, FileResult, ScanConfig


@dataclass(frozen=True, slots=True)
class Task:
    """One file to parse: its place in the scan, its path and its decoded text; the settings the
    rest of the program adds to the scan's for it; and, for the first pass, its module's name."""

    index: int
    path: str
    source: str
    config: ScanConfig | None = None
    #: Set: summarise the module (`_summary`) rather than scan it.
    module: str | None = None

    def run(self, config: ScanConfig) -> FileResult | Summary:
        config = self.config or config
        if self.module is not None:
            return summarise(self.source, self.path, self.module, config)
        return scan_source(self.source, self.path, config)


#: Tasks a worker runs between two collections of its garbage.
_COLLECT_EVERY = 64


def _serve(connection: Connection, config: ScanConfig) -> None:
    """A worker's loop: a task in, its result out, until the parent kills it."""
    faulthandler.disable()  # a crash is reported by the parent, in one line, not as a dump of this process
    # A parse makes objects by the hundred thousand, and each batch of them would start a collection
    # that walks every object alive: a quarter of the worker's time, for trees that refcounting frees
    # on its own. The garbage that only a collection frees is collected between tasks instead.
    gc.disable()
    for done in itertools.count(1):
        task = connection.recv()
        connection.send(task.run(config))
        if done % _COLLECT_EVERY == 0:
            gc.collect()


class _Worker:
    """One worker process, its end of the pipe, and the task it is on since when."""

    def __init__(self, config: ScanConfig) -> None:
        # `fork` starts a worker with libcst already imported; elsewhere `spawn` imports it again.
        context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        self.connection, theirs = context.Pipe()
        process_type = context.Process  # type: ignore[attr-defined]
        self.process: BaseProcess = process_type(target=_serve, args=(theirs, config), daemon=True)
        # The caller's objects are frozen while the worker forks, so the worker's collections never
        # walk them: a large heap (a pytest session, a notebook) would cost each its size, and copy
        # every page it touches.
        with frozen():
            self.process.start()
        theirs.close()
        self.task: Task | None = None
        self.started = 0.0

    def give(self, task: Task) -> None:
        self.task, self.started = task, time.monotonic()
        with contextlib.suppress(OSError):  # it died before it read: its sentinel reports that, for this task
            self.connection.send(task)

    def stop(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.connection.close()


def scan_isolated(tasks: Sequence[Task], config: ScanConfig, jobs: int) -> Iterator[tuple[int, FileResult | Summary]]:
    """`(index, result)` for every task, in the order they finish; never raises for one file."""
    # Longest first: a file that takes most of the scan's time starts at once, not last and alone.
    queue = deque(sorted(tasks, key=lambda task: -len(task.source)))
    workers = [_Worker(config) for _ in range(min(jobs, len(tasks)))]
    try:
        for worker in workers:
            worker.give(queue.popleft())
        while busy := [worker for worker in workers if worker.task is not None]:
            deadline = min(worker.started for worker in busy) + config.time_limit
            ready = set(
                wait(
                    [w.connection for w in busy] + [w.process.sentinel for w in busy],
                    timeout=max(0.0, deadline - time.monotonic()),
                )
            )
            for worker in busy:
                task = worker.task
                assert task is not None
                result = _outcome(worker, ready, config.time_limit)
                if result is None:
                    continue
                yield task.index, result
                worker.task = None
                if isinstance(result, FileFailed) and not worker.process.is_alive():
                    workers[workers.index(worker)] = worker = _replace(worker, config, bool(queue))
                if queue:
                    worker.give(queue.popleft())
    finally:  # an idle worker holds nothing worth keeping: it is killed like a stuck one
        for worker in workers:
            worker.stop()


def _outcome(worker: _Worker, ready: Collection[object], limit: float) -> FileResult | Summary | None:
    """The worker's result for its task, its death or its overrun as the task's result; None while it works."""
    task = worker.task
    assert task is not None
    if worker.connection in ready or worker.process.sentinel in ready:
        try:
            if worker.connection.poll():
                result: FileResult | Summary = worker.connection.recv()
                return result
        except (EOFError, OSError):
            pass
        worker.process.join()
        return FileFailed(
            task.path, f"{task.path}: the worker parsing it {_death(worker.process.exitcode)}; the file is not scanned"
        )
    if time.monotonic() - worker.started >= limit:
        worker.process.kill()
        worker.process.join()
        return FileFailed(
            task.path,
            f"{task.path}: took more than {limit:g} s to parse and analyse; stopped (time_limit in "
            "[tool.toolsurface.scan], or --time-limit)",
        )
    return None


def _replace(worker: _Worker, config: ScanConfig, needed: bool) -> _Worker:
    worker.stop()
    return _Worker(config) if needed else worker


def _death(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"died with {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"died with signal {-exitcode}"
    return f"exited with status {exitcode}"
