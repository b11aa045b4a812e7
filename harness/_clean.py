"""Clean runs: what a target does on a scenario, unchanged, in a fresh state.

Every case is held to its scenario's clean run: before its change, the host must offer what a
clean run offers (else an earlier case left state behind), and after it, an unchanged follow-up
request must go as a clean one goes (else the change outlived its request). A clean run that
fails leaves nothing to hold the cases to, and says so in each of them; it is never run again
until it passes.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._diff import diff_snapshots
from toolsurface.scenarios import Boundary, Scenario

from ._observe import observe_ports, target_ports
from ._ports import Ports
from ._traits import LoadedTarget
from ._types import (
    Capacity,
    Case,
    Crashed,
    Died,
    Ending,
    Interrupted,
    Observation,
    Refused,
    Returned,
    SettlementRefused,
    TimedOut,
)


@dataclass(frozen=True, slots=True)
class CleanRun:
    """What a target did on one scenario, unchanged, in a fresh state: the surface it offered at
    each stage boundary, how the request ended, and the surfaces it sent."""

    offered: tuple[tuple[Boundary, Snapshot], ...]
    ending: Ending
    sent: tuple[Snapshot, ...]
    #: How long it took, in seconds: what the scenario's cases may take is scaled from it.
    seconds: float = field(default=0.0, compare=False)

    def differences(self, offered: Sequence[tuple[Boundary, Snapshot]]) -> tuple[str, ...]:
        """How the boundaries `offered` differ from this run's, up to the first that does."""
        for (point, surface), (clean_point, clean_surface) in zip(offered, self.offered, strict=False):
            if point != clean_point:
                return (f"offered '{point}' where a clean run offers '{clean_point}'",)
            if surface != clean_surface:
                return tuple(
                    f"at '{point}': {change}"
                    for change in diff_snapshots(clean_surface, surface) or ("canonical form differs",)
                )
        return ()

    def before_change(self, case: Case, ports: Ports, observed: Observation) -> tuple[str, ...]:
        """How a case's run differed from this one before its change was made, when nothing had
        been changed yet: it must offer the same first surface, and reach the case's point."""
        if lines := self.differences(ports.offered):
            return lines
        if not observed.injected and any(at == case.boundary for at, _ in self.offered):
            return (f"it never reached '{case.boundary}', which a clean run reaches: it ended {how(observed)}",)
        return ()

    def differences_in(self, ports: Ports, observed: Observation) -> tuple[str, ...]:
        """How a whole unchanged request differs from this run: its boundaries, its ending, what it sent."""
        if lines := self.differences(ports.offered):
            return lines
        if observed.ending is not self.ending:
            return (f"it ended {how(observed)} where a clean one ends {self.ending.value}",)
        if len(ports.offered) != len(self.offered):
            return (f"it offered {len(ports.offered)} stage boundaries where a clean one offers {len(self.offered)}",)
        sent = tuple(dispatch.surface for dispatch in observed.dispatches)
        for surface, clean_surface in zip(sent, self.sent, strict=False):
            if surface != clean_surface:
                return tuple(
                    f"sent: {change}"
                    for change in diff_snapshots(clean_surface, surface) or ("canonical form differs",)
                )
        return ()


@dataclass(frozen=True, slots=True)
class NoCleanRun:
    """A target's unchanged request on a scenario that did not run to an end: no case of the
    scenario can be told apart from state an earlier one left or a change that outlived it."""

    #: What happened, in words: `crashed (RuntimeError: pool exhausted)`.
    why: str


def how(observed: Observation) -> str:
    """How a run ended, with its own words where it has some: `crashed (RuntimeError: pool exhausted)`."""
    stop = observed.stop
    said = getattr(stop, "message", "") or getattr(stop, "how", "") or getattr(stop, "note", "")
    if isinstance(stop, Crashed):
        said = f"{stop.error_type}: {said}" if said else stop.error_type
    return f"{observed.ending.value} ({said})" if said else observed.ending.value


def failed_request(observed: Observation, timeout: float) -> str | None:
    """How an unchanged request failed to run to an end, in words; None when it did."""
    stop = observed.stop
    if isinstance(stop, TimedOut):
        return f"timed out after {timeout:g} s"
    if isinstance(stop, Crashed):
        return f"crashed ({stop.error_type}: {stop.message})"
    if isinstance(stop, Died | Interrupted):
        return f"ended with its worker process, which {stop.how}"
    if observed.forks:
        return f"forked {observed.forks} process(es)"
    return None


#: Enough boundaries to snapshot every one a run offers.
_EVERY = 1 << 16


def unchanged_request(host: LoadedTarget, scenario: Scenario, timeout: float) -> tuple[Ports, Observation]:
    """One request on the target with nothing injected, every boundary snapshotted."""
    ports = target_ports(host.traits, scenario, None, None, watch=_EVERY)
    return ports, observe_ports(host, scenario, ports, timeout, terse_refusals=False)


def clean_run(host: LoadedTarget, scenario: Scenario, timeout: float) -> CleanRun | NoCleanRun:
    """The target's run on the scenario, unchanged; how it failed when it did not run to an end."""
    started = time.monotonic()
    ports, observed = unchanged_request(host, scenario, timeout)
    seconds = time.monotonic() - started
    if (failure := failed_request(observed, timeout)) is not None or not isinstance(
        observed.stop, Returned | Refused | Capacity | SettlementRefused
    ):
        return NoCleanRun(failure or how(observed))
    return CleanRun(
        tuple(ports.offered), observed.ending, tuple(dispatch.surface for dispatch in observed.dispatches), seconds
    )
