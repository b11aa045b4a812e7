"""How a command ends: its exit status, and one line on stderr when it did not end on its own.

| status | meaning |
| --- | --- |
| 0 | done; for `run` and `merge`, results.json is complete and the gate holds |
| 1 | the gate fails (a survivor, a false rejection, an error, an expired or stale expectation, a threshold) |
| 2 | bad input: a flag, a file, an out folder that cannot be written, a write that failed (a full disk) |
| 3 | internal error: toolsurface itself failed; a bug to report |
| 128 + n | stopped by signal n: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP, as a shell reports it |

The stop signals are raised as `Interrupted` in the main thread, so every `with` and `finally` on
the way out runs and no temporary file is left; a process killed outright (SIGKILL) leaves its
temporaries to the next write into the folder (`_files.remove_abandoned`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterator
from typing import NoReturn

from toolsurface.common._errors import ToolsurfaceError

BAD_INPUT = 2
INTERNAL_ERROR = 3
#: The signals that ask a command to stop: Ctrl-C, what CI sends on cancel, a closed terminal.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: Set to 1 to see the traceback of an internal error.
DEBUG = "TOOLSURFACE_DEBUG"


class Interrupted(KeyboardInterrupt):
    """A stop signal, raised in the main thread.

    A KeyboardInterrupt, because that is the one exception the runner lets through from a target
    rather than recording it as the case's crash.
    """

    def __init__(self, signum: int) -> None:
        self.signal = signal.Signals(signum)
        super().__init__(self.signal.name)


@contextlib.contextmanager
def interrupting() -> Iterator[None]:
    """While the block runs, each stop signal raises `Interrupted`; one ignored by whoever started
    the command (`nohup`, a background job) stays ignored."""

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted(signum)

    previous = {
        signum: signal.signal(signum, interrupt)
        for signum in STOP_SIGNALS
        if signal.getsignal(signum) is not signal.SIG_IGN
    }
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)


def ending(error: Exception | KeyboardInterrupt, flag: Callable[[str], str]) -> tuple[int, list[str]]:
    """The exit status of a command that raised `error`, and the lines that say why; `flag` spells
    an option as the command's flag."""
    from toolsurface.scenarios import ScenarioError  # its package loads the scenario schema: only for an ending

    if isinstance(error, KeyboardInterrupt):
        stop = error.signal if isinstance(error, Interrupted) else signal.SIGINT
        return 128 + stop, [f"interrupted by {stop.name}: stopped before finishing; no partial file is left"]
    if isinstance(error, ScenarioError):
        return BAD_INPUT, [f"error: {problem}" for problem in error.problems]
    if isinstance(error, ToolsurfaceError):
        return BAD_INPUT, [f"error: {line}" for line in error.lines(flag)]
    shown = traceback.format_exception(error) if os.environ.get(DEBUG) == "1" else []
    return INTERNAL_ERROR, [*"".join(shown).splitlines(), _internal_error(error)]


def _internal_error(error: Exception) -> str:
    from toolsurface.common._version import version

    message = " ".join(str(error).split())
    what = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return (
        f"internal error: {what} (a bug in toolsurface {version()}: please report it with the command you ran; "
        f"{DEBUG}=1 shows the traceback)"
    )


def exit_now(status: int) -> NoReturn:
    """Exit with `status`, even while a thread the host started is still running.

    A target's factory runs in this process and may start a non-daemon thread it never stops;
    Python would wait for it at exit, and a CI job would hang after its run is over. Only then is
    the interpreter's shutdown skipped, once what was printed is flushed.
    """
    if any(
        thread.is_alive() and not thread.daemon
        for thread in threading.enumerate()
        if thread is not threading.main_thread()
    ):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # a closed or broken stream has nothing to flush
                stream.flush()
        os._exit(status)
    sys.exit(status)
