"""How far a run is, on stderr: a live bar on a terminal, periodic lines in a log.

A CI log is not a terminal, so a live bar there shows nothing until the run ends. It gets one line
every `every` seconds instead, each with an estimate of the time left, and none for a run that
ends sooner.

The first cases are slow: the workers start, and each imports and fills its caches on its first
case. A rate measured from the start would put the time left several times too high, so the
estimate takes the rate after a warm-up, the first `WARM_UP` share of the cases, and none is shown
until as many cases again have finished.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

#: The share of a run's cases (at least one) whose time the estimate leaves out: start-up and first-case costs.
WARM_UP = 0.05


def duration(seconds: float) -> str:
    """`42 s`, `3 min 05 s`, `1 h 02 min`: a time a reader takes in at a glance."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class CaseProgress:
    """Counts finished cases and shows how far the run is and about how long it has left."""

    def __init__(
        self,
        console: Console,
        total: int,
        *,
        doing: str = "running",
        every: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console, self.total, self.doing, self.every, self.clock = console, total, doing, every, clock
        self.done = 0
        self.started = self.shown = clock()
        self.warm_up = max(1, math.ceil(total * WARM_UP))
        #: When the warm-up ended, and the cases done by then.
        self.warm: tuple[float, int] | None = None
        # Refreshed as cases finish, not from a thread of its own: the workers are forked from this
        # process, and a fork copies no thread but may copy a lock one holds.
        self.bar = (
            Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.fields[left]}"),
                console=console,
                auto_refresh=False,
            )
            if console.is_terminal
            else None
        )

    def __enter__(self) -> CaseProgress:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task(f"{self.doing} {self.total} cases", total=self.total, left="")
        return self

    def advance(self) -> None:
        self.done += 1
        now = self.clock()
        if self.warm is None and self.done >= self.warm_up:
            self.warm = (now, self.done)
        if self.bar is not None:
            self.bar.advance(self.task)
            if now - self.shown > 0.1:
                self.bar.update(self.task, left=self.estimate(now))
                self.bar.refresh()
                self.shown = now
        elif now - self.shown >= self.every:
            self.console.print(self.line(now), markup=False, highlight=False)
            self.shown = now

    def line(self, now: float) -> str:
        elapsed = now - self.started
        left = self.estimate(now)
        estimate = f", {left}" if left else ""
        share = self.done * 100 // self.total if self.total else 100
        return f"{self.doing}: {self.done:,} of {self.total:,} cases ({share}%) in {duration(elapsed)}{estimate}"

    def estimate(self, now: float) -> str:
        """`about 40 s left`, at the rate since the warm-up; empty until as many cases again are done."""
        if self.warm is None or self.done < 2 * self.warm[1] or now <= self.warm[0]:
            return ""
        at, done = self.warm
        return f"about {duration((now - at) / (self.done - done) * (self.total - self.done))} left"

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self.bar is not None:
            self.bar.update(self.task, left="")
            self.bar.refresh()
            self.bar.stop()
