"""The CI gate: whether a run (or the merge of its shards) lets the change through.

It passes only when every failing case is accepted by an expectation, no expectation is expired
or stale, and the run meets its thresholds. It is judged from each case's `Tally` alone (its id
and verdicts), so `run`, `merge` and the pytest plugin judge shards and whole runs by one rule.
"""

from __future__ import annotations

import datetime
import heapq
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

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


@dataclass
class Tallies:
    """A run's tallies taken as its cases finish, kept small whatever the run's size: the counts
    the totals and thresholds need, and only the tallies the gate reads one by one, the failing
    ones and those an expectation names. Any other case passed and no expectation names it, so
    its id changes nothing the gate decides."""

    expectations: Sequence[Expectation] = ()
    verdicts: Counter[VerdictKind] = field(default_factory=Counter)
    #: The verdicts on the red target, of the cases that have one.
    red_verdicts: Counter[VerdictKind] = field(default_factory=Counter)
    controlled: int = 0
    #: Each with its case's place in the plan, in run order.
    noted: list[tuple[int, Tally]] = field(default_factory=list)

    @classmethod
    def of(cls, tallies: Iterable[Tally], expectations: Sequence[Expectation] = ()) -> Tallies:
        """Tallies in run order."""
        taken = cls(expectations)
        for index, tally in enumerate(tallies):
            taken.add(index, tally)
        return taken

    @classmethod
    def merged(cls, parts: Sequence[Tallies]) -> Tallies:
        """The tallies of the shards of one run, as one run takes them: in plan order."""
        merged = cls(parts[0].expectations if parts else ())
        for part in parts:
            merged.verdicts += part.verdicts
            merged.red_verdicts += part.red_verdicts
            merged.controlled += part.controlled
        merged.noted = list(heapq.merge(*(part.noted for part in parts), key=lambda noted: noted[0]))
        return merged

    def add(self, index: int, tally: Tally) -> None:
        """The tally of the case at `index` in the plan."""
        self.verdicts[tally.verdict] += 1
        if tally.red_verdict is not None:
            self.red_verdicts[tally.red_verdict] += 1
        self.controlled += tally.controlled
        if not tally.verdict.ok or any(expectation.matches(tally.id) for expectation in self.expectations):
            self.noted.append((index, tally))

    def replace(self, index: int, old: Tally, new: Tally) -> None:
        """Take `new` instead of `old` as the tally of the case at `index` (amended after it was taken)."""
        self.verdicts[old.verdict] -= 1
        if old.red_verdict is not None:
            self.red_verdicts[old.red_verdict] -= 1
        self.controlled -= old.controlled
        if (index, old) in self.noted:
            self.noted.remove((index, old))
        self.add(index, new)
        self.noted.sort(key=lambda noted: noted[0])

    @property
    def count(self) -> int:
        return self.verdicts.total()

    @property
    def in_scope(self) -> int:
        """Every case but the equivalent ones."""
        return self.count - self.verdicts[VerdictKind.EQUIVALENT]


def judge_gate(
    tallies: Tallies,
    planned: Sequence[int],
    today: datetime.date,
    thresholds: Thresholds,
    *,
    partial: bool,
) -> Gate:
    """The gate on these cases; `partial` (one shard) leaves thresholds to the merge."""
    noted = [tally for _, tally in tallies.noted]
    judged = judge_expectations(tallies.expectations, planned, [(t.id, t.verdict) for t in noted], today)
    covered = {case_id for j in judged if j.standing is Standing.ACCEPTED for case_id in j.cases}
    failing = tuple(t.id for t in noted if not t.verdict.ok and t.id not in covered)
    accepted = tuple(t.id for t in noted if t.id in covered)
    shortfalls = () if partial else _shortfalls(tallies, thresholds)
    ok = not failing and not shortfalls and all(j.standing.ok for j in judged)
    return Gate(ok, failing, accepted, judged, shortfalls)


def _shortfalls(tallies: Tallies, thresholds: Thresholds) -> tuple[str, ...]:
    shortfalls = []
    in_scope, controlled = tallies.in_scope, tallies.controlled
    if thresholds.min_cases is not None and in_scope < thresholds.min_cases:
        shortfalls.append(f"{in_scope} in-scope cases ran, fewer than min_cases = {thresholds.min_cases}")
    if thresholds.min_controlled is not None and controlled < thresholds.min_controlled:
        shortfalls.append(f"{controlled} cases are controlled, fewer than min_controlled = {thresholds.min_controlled}")
    return tuple(shortfalls)
