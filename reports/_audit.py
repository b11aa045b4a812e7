"""The audit: one value worked out from a run's record, which every report format renders.

The terminal summary, the Markdown audit, the HTML report, JUnit XML and the JSON summary all
read this value and nothing else, so they cannot disagree about a total.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from toolsurface.harness._expectations import Judged
from toolsurface.harness._gate import Gate
from toolsurface.harness._kill_signatures import Signature, bundled, where_of
from toolsurface.harness._record import Record, RunInfo
from toolsurface.harness._types import (
    Capacity,
    CaseRecord,
    Crashed,
    Ending,
    Refused,
    SettlementRefused,
    Stop,
    VerdictKind,
)
from toolsurface.mutators import Kind
from toolsurface.scenarios import POINTS

from ._diagnosis import Diagnosis, diagnose
from ._groups import Cause, Group, causes

#: What a GREEN run proves, and what it does not: every audit says so in these words.
PROVES = (
    "Parity of the logical tool surface at the request boundary: count, order, names, full descriptions "
    "and input schemas (object key order aside) of every request sent, for every recorded pipeline, "
    "change and injection point in the plan.",
    "Local refusal: every illegitimate change was refused before dispatch, and each refusal was settled "
    "exactly once, as pre_dispatch_rejected, in the right owner's ledger, with the publication store as it was.",
)
DOES_NOT_PROVE = (
    "Model tool-choice quality: which tool a model picks from a correct surface.",
    "Wire serialization: how a provider SDK encodes the request it is given.",
    "Production recovery of every store: only the recorded recovery paths are replayed.",
    "Latency, or behaviour under production load.",
)


@dataclass(frozen=True, slots=True)
class DefectRow:
    name: str
    #: Cases that kill it, by mutation kind, in plan order of the kinds.
    by_kind: Mapping[str, int]
    first: str | None

    @property
    def kills(self) -> int:
        return sum(self.by_kind.values())


@dataclass(frozen=True)
class Audit:
    """The audit of one run's record: what every report shows, worked out once.

    Everything but the case table is taken in one pass over the cases (`_Tally`), so an audit of
    a results.json read from disk holds only its failing and accepted cases, whatever the run's size;
    a report that lists every case (HTML, JUnit) reads them again through `cases`.
    """

    results: Record

    def __post_init__(self) -> None:
        # Taken now, while a record read from a file is where it was read: `run` renames its
        # results.json into place before it prints the summary.
        _ = self._tally

    @property
    def run(self) -> RunInfo:
        return self.results.run

    @property
    def cases(self) -> Collection[CaseRecord]:
        """Every case, in plan order; read again from disk at each pass when the record is a file."""
        return self.results.cases

    @property
    def gate(self) -> Gate:
        return self.results.summary.gate

    @property
    def ok(self) -> bool:
        return self.gate.ok

    @property
    def expectations(self) -> tuple[Judged, ...]:
        return self.gate.expectations

    @property
    def shortfalls(self) -> tuple[str, ...]:
        return self.gate.shortfalls

    @functools.cached_property
    def _accepted_ids(self) -> frozenset[str]:
        return frozenset(self.gate.accepted)

    def is_accepted(self, case: CaseRecord) -> bool:
        """Failing, but covered by an accepted expectation."""
        return case.id in self._accepted_ids and not case.verdict.kind.ok

    def is_failing(self, case: CaseRecord) -> bool:
        """Fails the gate: a failing verdict no expectation accepts."""
        return not case.verdict.kind.ok and not self.is_accepted(case)

    def reproduce(self, case: CaseRecord) -> str:
        return self.run.reproduce(case.id)

    @property
    def spec(self) -> str | None:
        """`id — title`, or the id alone; None without a spec."""
        spec = self.run.spec
        if spec is None:
            return None
        return f"{spec.id} — {spec.title}" if spec.title else spec.id

    @property
    def title(self) -> str:
        return f"Tool surface audit: {self.spec}" if self.spec else "Tool surface audit"

    @property
    def versions(self) -> str:
        run = self.run
        return (
            f"{run.tool.version} (results schema {self.results.schema_version}), "
            f"Python {run.environment.python} on {run.environment.platform}"
        )

    @property
    def count(self) -> int:
        """How many cases the record holds."""
        return len(self.cases)

    def coverage(self, pattern: Callable[[str], str] = str) -> str:
        """Which of the planned cases ran, in words; `pattern` marks up each `--select` glob."""
        run = self.run
        if run.shard:
            return f"shard {run.shard} of the plan's {run.planned} cases"
        if run.select:
            return f"{self.count} of {run.planned} planned cases, selected by " + " ".join(map(pattern, run.select))
        return f"all {run.planned} planned cases"

    @functools.cached_property
    def _tally(self) -> _Tally:
        tally = _Tally(self.run.defects or ())
        for case in self.cases:
            tally.add(case, failing=self.is_failing(case), accepted=self.is_accepted(case))
        return tally

    @property
    def totals(self) -> Counter[VerdictKind]:
        return self._tally.totals

    def endings(self) -> dict[Ending, int]:
        """How the runs on the target ended, in `Ending` order; equivalent cases are not run."""
        counts = self._tally.endings
        return {ending: counts[ending] for ending in Ending if counts[ending] and ending is not Ending.NOT_RUN}

    @property
    def in_scope(self) -> int:
        """Cases that are checks: every case but the equivalent ones, which change nothing."""
        return self.count - self.totals[VerdictKind.EQUIVALENT]

    @property
    def passing(self) -> int:
        return self.totals[VerdictKind.KILLED] + self.totals[VerdictKind.PASSED]

    @property
    def failing(self) -> tuple[CaseRecord, ...]:
        """Every survivor, false rejection and error no expectation accepts, in plan order."""
        return tuple(self._tally.failing)

    @functools.cached_property
    def causes(self) -> tuple[Cause, ...]:
        """The failing cases of the agent's own doing grouped by cause, largest first (see `_groups`):
        what its code changed or let through. Those its framework causes itself are `framework_causes`."""
        return causes(case for case in self._tally.failing if not case.evidence.framework_own)

    @functools.cached_property
    def framework_causes(self) -> tuple[Cause, ...]:
        """The failing cases the target's framework causes itself (`Evidence.framework_own`: what went
        out is the framework's form of what should have), by cause: every report lists them after
        `causes`, numbered on from them, with `framework_remedy`. They fail all the same."""
        return causes(case for case in self._tally.failing if case.evidence.framework_own)

    @property
    def framework_own(self) -> int:
        """How many failing cases the target's framework causes itself."""
        return sum(cause.count for cause in self.framework_causes)

    @property
    def framework_remedy(self) -> str:
        """What the user can do about the framework's own failures, as the target says it."""
        return self.run.framework_remedy or "the target names no remedy"

    @property
    def numbered_causes(self) -> tuple[tuple[int, Cause], ...]:
        """Every cause with its number, as reports list them: the agent's own first, then the framework's."""
        return tuple(enumerate((*self.causes, *self.framework_causes), 1))

    @functools.cached_property
    def diagnosis(self) -> Diagnosis:
        """Which reference defects the agent's own failing cases fail like, and what none explains (see
        `_diagnosis`): a failure its framework causes itself is no flaw of the agent's."""
        own = [case for case in self._tally.failing if not case.evidence.framework_own]
        return diagnose(own, self._tally.wheres, bundled())

    def likeness_of(self, case: CaseRecord) -> str | None:
        """The reference defect a failing case fails like; None for one no defect explains, or that passes."""
        return self._likeness_by_case.get(case.id)

    @functools.cached_property
    def _likeness_by_case(self) -> dict[str, str]:
        return {case.id: likeness.defect for likeness in self.diagnosis.likely for case in likeness.cases}

    def cause_of(self, case: CaseRecord) -> tuple[int, Group] | None:
        """The number of the cause a failing case belongs to (from 1, as reports list them) and its
        group; None for a case that does not fail."""
        return self._groups_by_case.get(case.id)

    @functools.cached_property
    def _groups_by_case(self) -> dict[str, tuple[int, Group]]:
        return {
            case.id: (number, group)
            for number, cause in self.numbered_causes
            for group in cause.groups
            for case in group.members
        }

    @property
    def accepted(self) -> tuple[CaseRecord, ...]:
        return tuple(self._tally.accepted)

    @property
    def controlled(self) -> int:
        return self.results.summary.controlled

    @property
    def red_failing(self) -> int:
        return self._tally.red_failing

    @property
    def headline(self) -> str:
        """The totals line of every report: the checks that pass, then each failing verdict with its
        count and how many of those cases expectations accept. An accepted failure is still counted
        as what it is: `3803 survived, all accepted`, `12 survived (10 accepted)`."""
        line = f"{self.passing}/{self.in_scope} in-scope checks pass"
        failed = [self._failed(kind) for kind in VerdictKind if not kind.ok and self.totals[kind]]
        return f"{line}; {'; '.join(failed)}" if failed else f"{line}: no survivors, false rejections or errors"

    def _failed(self, kind: VerdictKind) -> str:
        count, accepted = self.totals[kind], sum(case.verdict.kind is kind for case in self._tally.accepted)
        if accepted == count:
            return f"{count} {kind}, all accepted"
        return f"{count} {kind}" + (f" ({accepted} accepted)" if accepted else "")

    @property
    def broad(self) -> tuple[Judged, ...]:
        """The expectations that name at least `BROAD_SHARE` of the planned cases: every report flags them."""
        return tuple(judged for judged in self.expectations if judged.broad(self.run.planned))

    def reach(self, judged: Judged) -> str:
        """How much of the plan an expectation names, and how many of this run's cases end as it says."""
        share = judged.planned / self.run.planned if self.run.planned else 0.0
        named = f"names {judged.planned} of the {self.run.planned} planned cases ({share:.0%})"
        return f"{named}; {len(judged.cases)} of them {judged.expectation.verdict} here"

    @property
    def split(self) -> str:
        """The totals by verdict, in words: `3870 killed, 1087 passed, 0 survived, …; 20 equivalent (changing nothing
        the target sends)`."""
        totals = self.totals
        checks = ", ".join(f"{totals[kind]} {kind}" for kind in VerdictKind if kind is not VerdictKind.EQUIVALENT)
        return f"{checks}; {totals[VerdictKind.EQUIVALENT]} equivalent (changing nothing the target sends)"

    def kinds(self) -> list[Kind]:
        seen = self._tally.pairing
        return [kind for kind in Kind if kind in seen]

    def points(self) -> list[str]:
        """The injection points of the run, in pipeline order: the recorded stages' in theirs, and
        a target's own boundaries in the order its cases were planned (the order it offers them)."""
        seen = self._tally.points
        return [point for point in POINTS if point in seen] + [point for point in seen if point not in POINTS]

    def matrix(self) -> dict[tuple[Kind, str], Counter[VerdictKind]]:
        """Verdicts by (mutation kind, injection point)."""
        return self._tally.matrix

    def by_lane(self) -> dict[tuple[str, str], Counter[VerdictKind]]:
        """Verdicts by (lane, hook mode)."""
        return dict(sorted(self._tally.by_lane.items()))

    def by_kind(self) -> dict[Kind, Counter[VerdictKind]]:
        """Verdicts by mutation kind, in `Kind` order."""
        counts: dict[Kind, Counter[VerdictKind]] = {kind: Counter() for kind in self.kinds()}
        for (kind, _), cell in self._tally.matrix.items():
            counts[kind] += cell
        return counts

    def pairing(self) -> dict[Kind, tuple[int, int, int]]:
        """Per mutation kind: (cases, failing on the red target, controlled)."""
        rows = self._tally.pairing
        return {kind: (rows[kind][0], rows[kind][1], rows[kind][2]) for kind in self.kinds()}

    def facet(self, name: str) -> Counter[str]:
        """Cases by one of `FACETS`."""
        return self._tally.facets[name]

    @functools.cached_property
    def defects(self) -> tuple[DefectRow, ...] | None:
        """Per reference defect, the cases that kill it; None when the defects were not run."""
        if self.run.defects is None:
            return None
        kills = self._tally.kills
        return tuple(
            DefectRow(name, {kind.value: kills[name][0][kind] for kind in Kind if kills[name][0][kind]}, kills[name][1])
            for name in self.run.defects
        )


#: What the cases are counted by for filtering, beside their verdict.
FACETS = ("kind", "point", "lane", "hooks", "scenario")


class _Tally:
    """What the audit needs of every case, taken in one pass: counts, and the failing and accepted cases."""

    def __init__(self, defects: tuple[str, ...]) -> None:
        self.totals: Counter[VerdictKind] = Counter()
        self.endings: Counter[Ending] = Counter()
        self.matrix: dict[tuple[Kind, str], Counter[VerdictKind]] = {}
        self.by_lane: dict[tuple[str, str], Counter[VerdictKind]] = {}
        #: Per mutation kind, in the order first seen: cases, failing on the red target, controlled.
        self.pairing: dict[Kind, list[int]] = {}
        #: The injection points, in the order first seen.
        self.points: dict[str, None] = {}
        #: Cases by what the HTML case table filters on: kind, point, lane, hook mode and scenario.
        self.facets: dict[str, Counter[str]] = {facet: Counter() for facet in FACETS}
        self.red_failing = 0
        #: Where every case is (`where_of`): where the run could have shown a flaw failing.
        self.wheres: set[Signature] = set()
        self.failing: list[CaseRecord] = []
        self.accepted: list[CaseRecord] = []
        #: Per defect: the cases that kill it by mutation kind, and the first of them.
        self.kills: dict[str, tuple[Counter[Kind], str | None]] = {name: (Counter(), None) for name in defects}

    def add(self, case: CaseRecord, *, failing: bool, accepted: bool) -> None:
        verdict, kind, point = case.verdict.kind, case.case.mutation.kind, case.case.point
        self.totals[verdict] += 1
        self.endings[case.evidence.ending] += 1
        self.matrix.setdefault((kind, point), Counter())[verdict] += 1
        self.by_lane.setdefault((case.case.lane.value, case.case.hook_mode), Counter())[verdict] += 1
        self.points.setdefault(point)
        self.wheres.add(where_of(case))
        for facet, value in zip(
            FACETS, (kind, point, case.case.lane, case.case.hook_mode, case.case.scenario), strict=True
        ):
            self.facets[facet][value] += 1
        red_fails = case.red_verdict is not None and not case.red_verdict.kind.ok
        self.red_failing += red_fails
        row = self.pairing.setdefault(kind, [0, 0, 0])
        row[0] += 1
        row[1] += red_fails
        row[2] += case.controlled
        if failing:
            self.failing.append(case)
        if accepted:
            self.accepted.append(case)
        for name in case.defects_killed or ():
            if name in self.kills:
                counts, first = self.kills[name]
                counts[kind] += 1
                self.kills[name] = (counts, first or case.id)


def error_of(stop: Stop) -> str | None:
    """What the target raised, as a reviewer reads it: a crash's traceback, a refusal's type and words."""
    if isinstance(stop, Crashed):
        return stop.traceback or f"{stop.error_type}: {stop.message}"
    if isinstance(stop, Refused | Capacity):
        return stop.error_type if stop.message == "refused" else f"{stop.error_type}: {stop.message}"
    if isinstance(stop, SettlementRefused):  # the ledger's own error, let out of the host's run
        return f"LedgerRefused: {stop.note}"
    return None


def ledger_lines(case: CaseRecord) -> tuple[str, ...]:
    return tuple(map(str, case.evidence.ledger))
