"""Run a target once through ports and record what they saw, whatever the target does to the run.

A target may raise anything, run past its time and catch the interrupt, call `os._exit`, fork,
or leave objects whose finalizers act on the ports when they are collected. Each becomes part of
the `Observation`: how the run stopped, and every effect on the ports up to the moment they are
handed back, finalizers of what the request left behind included.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import inspect
import os
import signal
import threading
import traceback
from collections.abc import Awaitable, Iterator
from typing import Any

from toolsurface.contract._formats import FORMATS, ToolFormat
from toolsurface.contract._guard import estimate_tokens
from toolsurface.scenarios import Boundary, Scenario

from ._ports import Injection, LedgerRefused, Ports
from ._traits import LoadedTarget, TargetTraits
from ._types import (
    Capacity,
    Crashed,
    Observation,
    PublicationsDiff,
    Refused,
    Returned,
    SettlementRefused,
    Stop,
    Target,
    TimedOut,
)


class CaseTimeout(BaseException):
    """Raised into a target that ran past its time; a BaseException so `except Exception` can't eat it."""


def tool_format(traits: TargetTraits, scenario: Scenario) -> ToolFormat:
    """How the target shapes its tools on this scenario, narrowed to the wire fields it carries."""
    fmt = FORMATS[traits.tool_format or scenario.tool_format]
    return fmt if traits.wire_fields is None else fmt.only(traits.wire_fields)


def target_ports(
    traits: TargetTraits, scenario: Scenario, at: Boundary | None, injection: Injection | None, watch: int
) -> Ports:
    """Fresh ports for one run of the target on the scenario, `injection` armed at boundary `at`."""
    return Ports(
        scenario, tool_format(traits, scenario), at, injection, watch=watch, own_boundaries=traits.own_boundaries,
        estimate=traits.estimate_tokens or estimate_tokens,
    )  # fmt: skip


def observe_ports(
    host: LoadedTarget, scenario: Scenario, ports: Ports, timeout: float, terse_refusals: bool = False
) -> Observation:
    """Run the target once on `scenario` through `ports`, and record what they saw.

    A run that was interrupted for its time stopped as `TimedOut`, even where the host caught the
    interrupt and ran on to an end: what it did past its time was never meant to be judged.
    """
    before = ports.publications.snapshot()
    stop: Stop = Returned()
    pid, forks = os.getpid(), _forks()
    try:
        with _deadline(timeout), _stop_forked_copies(pid):
            _run(host.target, scenario, ports)
    except CaseTimeout:
        stop = TimedOut()
    except KeyboardInterrupt:
        raise
    except LedgerRefused as refusal:
        # The ledger recorded what it refused, and the oracle judges that; the run ended with its error.
        stop = SettlementRefused(str(refusal))
    except BaseException as error:  # a target may raise anything, SystemExit included
        # A refusal before the change was made is no expected one: its words name the host's flaw.
        stop = _stopped_by(error, host.traits, terse_refusals and ports.injected)
    if _expired[0]:
        stop = TimedOut()
    # What the request left for the collector goes now, while these ports are still its own: a
    # finalizer that settles or sends acts within the case, not at some later case's collection.
    # The youngest generation holds all the request made, since the runner holds collections off
    # while it runs (`_collection_paused`), so collecting it alone costs what the request built,
    # not the whole heap; what older objects keep alive is collected at the end of the run.
    gc.collect(0)
    after = ports.publications.snapshot()
    return Observation(
        dispatches=tuple(ports.gateway.log),
        ledger=tuple(ports.events),
        open_reservations=ports.open_reservations,
        points=tuple(ports.points),
        injected=ports.injected,
        injection_problem=ports.injection_problem,
        stop=stop,
        publications=PublicationsDiff.between(before, after),
        not_carried=ports.not_carried,
        not_selected=ports.not_selected,
        facts=ports.facts.current(),
        forks=_forks() - forks,
        listed=ports.mcp.pages_served,
        admissions=tuple(ports.admissions),
        provider_failures=ports.gateway.failed,
    )


def _run(target: Target, scenario: Scenario, ports: Ports) -> None:
    """The target's run, an async host's coroutine driven to completion; nothing it returns is kept,
    so what it returned is collected with the rest of the request."""
    outcome = target.run(scenario, ports)
    if inspect.isawaitable(outcome):
        asyncio.run(_completion(outcome))


async def _completion(awaitable: Awaitable[Any]) -> None:
    await awaitable


def _stopped_by(error: BaseException, traits: TargetTraits, terse: bool) -> Stop:
    name = type(error).__qualname__
    # A capacity result may also be one of the refusal types (ours is): it is the more specific.
    if isinstance(error, traits.capacity_results):
        return Capacity(name, _describe(error))
    if isinstance(error, traits.refusals):
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
def exits_refused() -> Iterator[None]:
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
#: Whether the armed deadline has passed: set by the alarm itself, so a host that catches the
#: interrupt cannot hide that it ran past its time.
_expired = [False]


def _expire(signum: int, frame: Any) -> None:
    _expired[0] = True
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


#: The longest a timer can be armed for: `setitimer` takes seconds as a C long's worth of microseconds.
_LONGEST = 2.0**31


#: The shortest a timer can be armed for: `setitimer` counts microseconds, and zero disarms it.
_SHORTEST = 1e-6


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` (main thread on POSIX; elsewhere the block runs
    unbounded); `_expired` says afterwards whether the deadline passed."""
    _expired[0] = False
    if seconds <= 0 or not _can_time_out():
        yield
        return
    with alarm_handler():
        # The handler a host installed in its place would let SIGALRM end the process instead.
        signal.signal(signal.SIGALRM, _expire)
        signal.setitimer(signal.ITIMER_REAL, min(max(seconds, _SHORTEST), _LONGEST))
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
