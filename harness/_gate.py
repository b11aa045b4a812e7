"""The CI gate: whether a run (or the merge of its shards) lets the change through.

It passes only when every failing case is accepted by an expectation, no expectation is expired
or stale, and the run meets its thresholds. It is judged from each case's `Tally` alone (its id
and verdicts), so `run`, `merge` and the pytest plugin judge shards and whole runs by one rule.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from ._expectations import Expectation, Judged, Standing, judge_expectations
from ._types import Tally, VerdictKind


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Floors a run must reach, so a plan that quietly shrank cannot pass."""

    #: At least this many in-scope cases (every case but the equivalent ones) must run.
    min_cases: int | None = None
    #: At least this many cases must be controlled: RED on the red target, GREEN on the target.
    min_controlled: int | None = None


@dataclass(frozen=True, slots=True)
class Gate:
    """Whether the run lets the change through, and why not."""

    ok: bool
    #: Ids of the failing cases no expectation accepts, in run order.
    failing: tuple[str, ...]
    #: Ids of the failing cases an accepted expectation covers.
    accepted: tuple[str, ...]
    expectations: tuple[Judged, ...]
    #: Thresholds the run did not reach, in words.
    shortfalls: tuple[str, ...]


def judge_gate(
    tallies: Sequence[Tally],
    expectations: Sequence[Expectation],
    planned: Sequence[int],
    today: datetime.date,
    thresholds: Thresholds,
    *,
    partial: bool,
) -> Gate:
    """The gate on these cases; `partial` (one shard) leaves thresholds to the merge."""
    judged = judge_expectations(expectations, planned, [(t.id, t.verdict) for t in tallies], today)
    covered = {case_id for j in judged if j.standing is Standing.ACCEPTED for case_id in j.cases}
    failing = tuple(t.id for t in tallies if not t.verdict.ok and t.id not in covered)
    accepted = tuple(t.id for t in tallies if t.id in covered)
    shortfalls = () if partial else _shortfalls(tallies, thresholds)
    ok = not failing and not shortfalls and all(j.standing.ok for j in judged)
    return Gate(ok, failing, accepted, judged, shortfalls)


def _shortfalls(tallies: Sequence[Tally], thresholds: Thresholds) -> tuple[str, ...]:
    shortfalls = []
    in_scope = sum(t.verdict is not VerdictKind.EQUIVALENT for t in tallies)
    if thresholds.min_cases is not None and in_scope < thresholds.min_cases:
        shortfalls.append(f"{in_scope} in-scope cases ran, fewer than min_cases = {thresholds.min_cases}")
    controlled = sum(t.controlled for t in tallies)
    if thresholds.min_controlled is not None and controlled < thresholds.min_controlled:
        shortfalls.append(f"{controlled} cases are controlled, fewer than min_controlled = {thresholds.min_controlled}")
    return tuple(shortfalls)
