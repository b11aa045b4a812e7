"""The audit: one value built from results.json, which every report format renders.

The terminal summary, the Markdown audit, the HTML report, JUnit XML and the JSON summary all
read this value and nothing else, so they cannot disagree about a total.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from toolsurface.harness._expectations import Standing
from toolsurface.harness._types import Ending, VerdictKind
from toolsurface.mutators import Kind
from toolsurface.scenarios import POINTS

#: What a GREEN run proves, and what it does not: every audit says so in these words.
PROVES = (
    "Parity of the logical tool surface at the request boundary: count, order, names, full descriptions "
    "and input schemas (object key order aside) of every request sent, for every recorded pipeline, "
    "change and injection point in the plan.",
    "Local refusal: every illegitimate change was refused before dispatch, and each refusal was settled "
    "exactly once, as pre_dispatch_rejected, in the right owner's ledger, with no publication lost.",
)
DOES_NOT_PROVE = (
    "Model tool-choice quality: which tool a model picks from a correct surface.",
    "Wire serialization: how a provider SDK encodes the request it is given.",
    "Production recovery of every store: only the recorded recovery paths are replayed.",
    "Latency, or behaviour under production load.",
)


@dataclass(frozen=True, slots=True)
class CaseRow:
    """One case as the reports show it."""

    id: str
    index: int
    scenario: str
    lane: str
    hooks: bool
    point: str
    kind: str
    delivery: str
    variant: str
    #: What the mutation aims at: a tool, a schema path, a pair of positions.
    target: str
    expect: str
    verdict: VerdictKind
    reason: str
    red_verdict: VerdictKind | None
    red_reason: str | None
    controlled: bool
    outcome: str
    reproduce: str
    change: tuple[str, ...]
    diff: tuple[str, ...]
    settlements: tuple[str, ...]
    #: The injection points the target offered, in the order it reached them.
    points: tuple[str, ...]
    dispatches: int
    error: str | None
    facts: tuple[str, ...]
    defects_killed: tuple[str, ...]
    #: Failing, but covered by an accepted expectation.
    accepted: bool

    @property
    def hook_mode(self) -> str:
        return "hooks" if self.hooks else "no-hooks"

    @property
    def failing(self) -> bool:
        """Fails the gate: a failing verdict no expectation accepts."""
        return not self.verdict.ok and not self.accepted


@dataclass(frozen=True, slots=True)
class ExpectationRow:
    case: str
    verdict: str
    reason: str
    expires: str
    standing: Standing
    why: str
    cases: int

    @property
    def fails_gate(self) -> bool:
        """Expired and stale entries fail the gate themselves."""
        return not self.standing.ok


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
    spec_id: str | None
    spec_title: str | None
    tool_version: str
    schema_version: int
    python: str
    platform: str
    seed: int
    target: str
    red_target: str | None
    select: tuple[str, ...]
    shard: str | None
    date: str
    planned: int
    #: (id, mode, lane, outcome, digest) per scenario.
    scenarios: tuple[tuple[str, str, str, str, str], ...]
    cases: tuple[CaseRow, ...]
    defects: tuple[DefectRow, ...] | None
    expectations: tuple[ExpectationRow, ...]
    shortfalls: tuple[str, ...]
    ok: bool

    @classmethod
    def of(cls, document: Mapping[str, Any]) -> Audit:
        """The audit of a results.json document (already validated against its schema)."""
        gate = document["gate"]
        accepted = set(gate["accepted"])
        cases = tuple(_case_row(record, record["id"] in accepted) for record in document["cases"])
        spec = document["spec"] or {}
        environment = document["environment"]
        return cls(
            spec_id=spec.get("id"),
            spec_title=spec.get("title"),
            tool_version=document["tool"]["version"],
            schema_version=document["schema_version"],
            python=environment["python"],
            platform=environment["platform"],
            seed=document["seed"],
            target=document["target"],
            red_target=document["red_target"],
            select=tuple(document["select"]),
            shard=document["shard"],
            date=document["date"],
            planned=document["planned"],
            scenarios=tuple((s["id"], s["mode"], s["lane"], s["outcome"], s["digest"]) for s in document["scenarios"]),
            cases=cases,
            defects=None if document["defects"] is None else _defect_rows(document["defects"], cases),
            expectations=tuple(
                ExpectationRow(e["case"], e["verdict"], e["reason"], e["expires"], Standing(e["standing"]), e["why"], len(e["cases"]))
                for e in gate["expectations"]
            ),
            shortfalls=tuple(gate["shortfalls"]),
            ok=gate["ok"],
        )

    @property
    def spec(self) -> str | None:
        """`id — title`, or the id alone; None without a spec."""
        return f"{self.spec_id} — {self.spec_title}" if self.spec_id and self.spec_title else self.spec_id

    @property
    def title(self) -> str:
        return f"Tool surface audit: {self.spec}" if self.spec else "Tool surface audit"

    @property
    def versions(self) -> str:
        return f"{self.tool_version} (results schema {self.schema_version}), Python {self.python} on {self.platform}"

    def coverage(self, pattern: Callable[[str], str] = str) -> str:
        """Which of the planned cases ran, in words; `pattern` marks up each `--select` glob."""
        if self.shard:
            return f"shard {self.shard} of the plan's {self.planned} cases"
        if self.select:
            return f"{len(self.cases)} of {self.planned} planned cases, selected by " + " ".join(map(pattern, self.select))
        return f"all {self.planned} planned cases"

    @functools.cached_property
    def totals(self) -> Counter[VerdictKind]:
        return Counter(case.verdict for case in self.cases)

    def endings(self) -> dict[Ending, int]:
        """How the runs on the target ended, in `Ending` order; equivalent cases are not run."""
        counts = Counter(Ending(case.outcome) for case in self.cases)
        return {ending: counts[ending] for ending in Ending if counts[ending] and ending is not Ending.NOT_RUN}

    @property
    def in_scope(self) -> int:
        """Cases that are checks: every case but the equivalent ones, which change nothing."""
        return sum(case.verdict is not VerdictKind.EQUIVALENT for case in self.cases)

    @property
    def passing(self) -> int:
        return sum(case.verdict in (VerdictKind.KILLED, VerdictKind.PASSED) for case in self.cases)

    @functools.cached_property
    def failing(self) -> tuple[CaseRow, ...]:
        """Every survivor, false rejection and error no expectation accepts, in plan order."""
        return tuple(case for case in self.cases if case.failing)

    @functools.cached_property
    def accepted(self) -> tuple[CaseRow, ...]:
        return tuple(case for case in self.cases if case.accepted)

    @property
    def controlled(self) -> int:
        return sum(case.controlled for case in self.cases)

    @property
    def red_failing(self) -> int:
        return sum(case.red_verdict is not None and not case.red_verdict.ok for case in self.cases)

    @property
    def headline(self) -> str:
        """The totals line of every report."""
        line = f"{self.passing}/{self.in_scope} in-scope checks pass"
        if self.accepted:
            line += f"; {len(self.accepted)} failing ones accepted by expectations"
        return line

    @property
    def split(self) -> str:
        """The totals by verdict, in words: `3870 killed, 1087 passed, 0 survived, …; 20 equivalent (not run)`."""
        totals = self.totals
        checks = ", ".join(f"{totals[kind]} {kind}" for kind in VerdictKind if kind is not VerdictKind.EQUIVALENT)
        return f"{checks}; {totals[VerdictKind.EQUIVALENT]} equivalent (not run)"

    def kinds(self) -> list[str]:
        seen = {case.kind for case in self.cases}
        return [kind.value for kind in Kind if kind.value in seen]

    def points(self) -> list[str]:
        """The injection points of the run, in pipeline order."""
        seen = {case.point for case in self.cases}
        return [point for point in POINTS if point in seen]

    def matrix(self) -> dict[tuple[str, str], Counter[VerdictKind]]:
        """Verdicts by (mutation kind, injection point)."""
        cells: dict[tuple[str, str], Counter[VerdictKind]] = {}
        for case in self.cases:
            cells.setdefault((case.kind, case.point), Counter())[case.verdict] += 1
        return cells

    def by_lane(self) -> dict[tuple[str, str], Counter[VerdictKind]]:
        """Verdicts by (lane, hook mode)."""
        cells: dict[tuple[str, str], Counter[VerdictKind]] = {}
        for case in self.cases:
            cells.setdefault((case.lane, case.hook_mode), Counter())[case.verdict] += 1
        return dict(sorted(cells.items()))

    def pairing(self) -> dict[str, tuple[int, int, int]]:
        """Per mutation kind: (cases, failing on the red target, controlled)."""
        rows: dict[str, list[int]] = {kind: [0, 0, 0] for kind in self.kinds()}
        for case in self.cases:
            row = rows[case.kind]
            row[0] += 1
            row[1] += case.red_verdict is not None and not case.red_verdict.ok
            row[2] += case.controlled
        return {kind: (row[0], row[1], row[2]) for kind, row in rows.items()}


def _case_row(record: Mapping[str, Any], accepted: bool) -> CaseRow:
    evidence = record["evidence"]
    red = record["red_verdict"]
    return CaseRow(
        id=record["id"],
        index=record["index"],
        scenario=record["scenario"],
        lane=record["lane"],
        hooks=record["hooks"],
        point=record["point"],
        kind=record["kind"],
        delivery=record["delivery"],
        variant=record["variant"],
        target=record["target"],
        expect=record["expect"],
        verdict=VerdictKind(record["verdict"]),
        reason=record["reason"],
        red_verdict=None if red is None else VerdictKind(red),
        red_reason=record["red_reason"],
        controlled=record["controlled"],
        outcome=record["outcome"],
        reproduce=record["reproduce"],
        change=tuple(record["change"]),
        diff=tuple(evidence["diff"]),
        settlements=tuple(evidence["settlements"]),
        points=tuple(evidence["points"]),
        dispatches=evidence["dispatches"],
        error=_error(evidence),
        facts=tuple(_fact_line(ruling) for ruling in evidence["availability"]),
        defects_killed=tuple(record["defects_killed"] or ()),
        accepted=accepted and not VerdictKind(record["verdict"]).ok,
    )


def _error(evidence: Mapping[str, Any]) -> str | None:
    kind, message = evidence["error_type"], evidence["error"]
    if kind is None:
        return None
    return f"{kind}: {message}" if message else kind


def _fact_line(ruling: Mapping[str, Any]) -> str:
    bound = ruling["bound_to"]
    where = " · ".join((bound["run"], bound["scope"], bound["invocation"], bound["connection"]))
    if ruling["trusted"]:
        judged = f"trusted; hides {', '.join(ruling['hides']) or 'nothing'}"
        if ruling["keeps"]:
            judged += f"; keeps {', '.join(ruling['keeps'])}"
    else:
        judged = f"ignored: {ruling['ignored_because']}"
    return f"{ruling['fact']} from {ruling['owner']}, bound to {where}: {judged}"


def _defect_rows(names: list[str], cases: tuple[CaseRow, ...]) -> tuple[DefectRow, ...]:
    kinds = [kind.value for kind in Kind]
    rows = []
    for name in names:
        killers = [case for case in cases if name in case.defects_killed]
        counts = Counter(case.kind for case in killers)
        by_kind = {kind: counts[kind] for kind in kinds if counts[kind]}
        rows.append(DefectRow(name, by_kind, killers[0].id if killers else None))
    return tuple(rows)
