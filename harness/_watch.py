"""What a host leaves running after its request: which case started it, and whether it is still going.

A thread (a retry, a timer, a keep-alive, an event loop of its own) may act on a case's ports at
any time after the case's record is made; the ports report what it does, for as long as someone
is watching. Once the watch ends — the grace period is over, or the worker process is gone — a
thread still alive might yet act, and nobody would see it: its case cannot be judged, and is an
`error`, never a pass.
"""

from __future__ import annotations

import gc
import re
import threading
import time
from collections import Counter
from collections.abc import Iterable

from ._types import Amendment, Role

#: How the reason begins for a case whose host left something running past the watch.
UNWATCHED = "the host left "
#: When the watch ends for what a case left running: after the run, or with its worker process.
GRACE_ENDED = "when the grace period ended"
WORKER_ENDED = "when its worker process ended"


def settle(grace: float, before: set[threading.Thread]) -> None:
    """Give what the hosts left running up to `grace` seconds to show late effects, and no longer
    than it runs: with no thread of theirs alive, nothing more can come."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(t.is_alive() for t in threading.enumerate() if t not in before):
        time.sleep(0.01)
    # Finalizers of what the hosts still held when they were let go run now, where their effects are seen.
    gc.collect()


#: The counter in a default thread name (`Thread-7 (retry)`): how many threads the process made before,
#: which differs from worker to worker, so it stays out of a verdict's reason.
_DEFAULT_NAME = re.compile(r"^Thread-\d+")


class ThreadWatch:
    """The threads each case's host started, kept until they end."""

    def __init__(self) -> None:
        self._started: dict[threading.Thread, tuple[int, Role]] = {}

    @staticmethod
    def running() -> set[threading.Thread]:
        """The threads alive now: what a case's threads are told apart from."""
        return set(threading.enumerate())

    def started(self, before: set[threading.Thread], index: int, role: Role) -> None:
        """Charge the threads alive now and not in `before` to the case `index`'s run on `role`."""
        for thread in threading.enumerate():
            if thread not in before and thread not in self._started:
                self._started[thread] = (index, role)

    def alive(self) -> list[tuple[int, Role]]:
        """The cases whose threads are still running, once per thread; ended ones are forgotten."""
        self._started = {thread: case for thread, case in self._started.items() if thread.is_alive()}
        return list(self._started.values())

    def unwatched(self, when: str) -> list[Amendment]:
        """An `error` for each case whose threads are still running `when` the watch ends."""
        alive = self.alive()
        names: dict[tuple[int, Role], str] = {}
        for thread, case in self._started.items():
            names.setdefault(case, _DEFAULT_NAME.sub("Thread", thread.name))
        return left_running(alive, when, names)


def left_running(
    cases: Iterable[tuple[int, Role]], when: str, names: dict[tuple[int, Role], str] | None = None
) -> list[Amendment]:
    """An `error` for each case with threads running `when` the watch ended, one per thread in `cases`."""
    counts = Counter(cases)
    amendments = []
    for (index, role), count in sorted(counts.items(), key=lambda item: (item[0][0], item[0][1] is not Role.TARGET)):
        named = f" ({names[index, role]!r}{', …' if count > 1 else ''})" if names and (index, role) in names else ""
        threads = "1 thread" if count == 1 else f"{count} threads"
        note = f"{UNWATCHED}{threads} running{named} {when}: a later effect on its request cannot be ruled out"
        amendments.append(Amendment(index, role, note, unjudged=True))
    return amendments
