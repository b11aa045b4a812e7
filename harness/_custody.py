"""The command's own process, kept as it was while a target's factory runs in it.

A factory is the user's code, and it runs in the process that writes results.json and exits with
the gate's status. Whatever it does to that process — ignores SIGTERM, changes the working
directory, closes or redirects stdout and stderr, swaps a module for another, sets a umask — is
undone when it returns, so it cannot change where toolsurface writes, what it prints or how it
stops. What the factory built keeps whatever it made for itself: new modules stay loaded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

#: The signals whose handling is the command's: how it stops, and how a case's time runs out.
_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM", "SIGPIPE", "SIGCHLD")
    if hasattr(signal, name)
)
#: The standard streams, as file descriptors and as `sys` attributes.
_FDS = (0, 1, 2)
_STREAMS = ("stdin", "stdout", "stderr")


@contextlib.contextmanager
def kept_process() -> Iterator[None]:
    """Run the block (a target's factory), then put back what it changed of this process."""
    handlers = {signum: signal.getsignal(signum) for signum in _SIGNALS}
    cwd = os.getcwd()
    fds = {fd: _dup(fd) for fd in _FDS}
    streams = {name: getattr(sys, name) for name in _STREAMS}
    modules = dict(sys.modules)
    umask = os.umask(0o022)
    os.umask(umask)
    try:
        yield
    finally:
        for signum, handler in handlers.items():
            if handler is not None and signal.getsignal(signum) is not handler:
                signal.signal(signum, handler)
        with contextlib.suppress(OSError):  # a folder removed meanwhile: paths were made absolute before
            os.chdir(cwd)
        _restore_fds(fds)
        for name, stream in streams.items():
            setattr(sys, name, stream)
        _restore_modules(modules)
        os.umask(umask)


def _dup(fd: int) -> int | None:
    """A copy of `fd` that the factory cannot close (None: it was not open)."""
    try:
        return os.dup(fd)
    except OSError:
        return None


def _restore_fds(fds: dict[int, int | None]) -> None:
    for fd, copy in fds.items():
        if copy is None:
            continue
        with contextlib.suppress(OSError):
            os.dup2(copy, fd)
        os.close(copy)


def _restore_modules(before: dict[str, Any]) -> None:
    """Every module loaded before is the one loaded again, where the factory replaced or removed it."""
    for name, module in before.items():
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
