"""The CI gate: whether a run (or the merge of its shards) lets the change through.

It passes only when every failing case is accepted by an expectation, no expectation is expired
or stale, and the run meets its thresholds. It is judged from (case id, verdict, controlled)
triples alone, so `run` and `merge` judge shards and whole runs by the same rule.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from ._expectations import Expectation, Judged, Standing, judge_expectations
from ._types import VerdictKind


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Floors a run must reach, so a plan that quietly shrank cannot pass."""

    #: At least this many in-scope cases (every case but the equivalent ones) must run.
    min_cases: int | None = None
    #: At least this many cases must be controlled: RED on the red target, GREEN on the target.
    min_controlled: int | None = None


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    id: str
    verdict: VerdictKind
    controlled: bool


@dataclass(frozen=True, slots=True)
class Gate:
    #: Failing cases no expectation accepts, in run order.
    failing: tuple[CaseOutcome, ...]
    #: Failing cases an accepted expectation covers.
    accepted: tuple[str, ...]
    expectations: tuple[Judged, ...]
    #: Thresholds the run did not reach, in words.
    shortfalls: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.failing and not self.shortfalls and all(j.standing.ok for j in self.expectations)


def judge_gate(
    outcomes: Sequence[CaseOutcome],
    expectations: Sequence[Expectation],
    planned: Sequence[int],
    today: datetime.date,
    thresholds: Thresholds,
    *,
    partial: bool,
) -> Gate:
    """The gate on these outcomes; `partial` (one shard) leaves thresholds to the merge."""
    judged = judge_expectations(expectations, planned, [(o.id, o.verdict) for o in outcomes], today)
    accepted = {case_id for j in judged if j.standing is Standing.ACCEPTED for case_id in j.cases}
    failing = tuple(o for o in outcomes if not o.verdict.ok and o.id not in accepted)
    shortfalls = () if partial else _shortfalls(outcomes, thresholds)
    return Gate(failing, tuple(o.id for o in outcomes if o.id in accepted), judged, shortfalls)


def _shortfalls(outcomes: Sequence[CaseOutcome], thresholds: Thresholds) -> tuple[str, ...]:
    shortfalls = []
    in_scope = sum(o.verdict is not VerdictKind.EQUIVALENT for o in outcomes)
    if thresholds.min_cases is not None and in_scope < thresholds.min_cases:
        shortfalls.append(f"{in_scope} in-scope cases ran, fewer than min_cases = {thresholds.min_cases}")
    controlled = sum(o.controlled for o in outcomes)
    if thresholds.min_controlled is not None and controlled < thresholds.min_controlled:
        shortfalls.append(f"{controlled} cases are controlled, fewer than min_controlled = {thresholds.min_controlled}")
    return tuple(shortfalls)
