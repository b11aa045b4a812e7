"""`verify`: re-run a random sample of a results.json's cases and compare each verdict with the
recorded one.

A signature shows that a file is the one a key holder wrote, never that its verdicts are the ones
the target gives: a job that holds the key signs whatever it ran. Re-running cases on the targets,
seed and recordings the file names does show it. A sample of s of the file's n cases misses every
one of k forged verdicts with probability C(n−k, s)/C(n, s), about (1 − k/n)^s: 50 cases find a
tenth forged 199 times in 200.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import orjson

from toolsurface.common._errors import ToolsurfaceError, UsageError
from toolsurface.common._version import version
from toolsurface.scenarios import Scenario, ScenarioError

from ._api import SEED_LIMIT, RunOptions, Session, prepare, recordings
from ._edges import with_edges
from ._record import RunInfo
from ._results import Progress, ResultsFile, StoredCases
from ._targets import NO_TARGET, load_with_traits
from ._types import CaseRecord, Verdict, VerdictKind


@dataclass(frozen=True, slots=True)
class Difference:
    """A sampled case whose verdict, or red verdict, is not the recorded one when it runs again."""

    case_id: str
    recorded: Verdict
    rerun: Verdict
    recorded_red: Verdict | None
    rerun_red: Verdict | None
    #: The command that re-runs the case on the target under test and shows its evidence.
    reproduce: str


@dataclass(frozen=True, slots=True)
class Verification:
    """What re-running a sample of a results.json's cases found."""

    path: str
    #: What the sample was drawn with: the same seed draws the same cases from the same file.
    seed: int
    #: How many cases ran again, of how many the file holds that are not equivalent (never run).
    sampled: int
    eligible: int
    target: str
    red_target: str | None
    differences: tuple[Difference, ...]

    @property
    def ok(self) -> bool:
        return not self.differences


def draw_seed() -> int:
    """A sample seed from the operating system's randomness, in the range `--seed` takes."""
    return int.from_bytes(os.urandom(8), "big") % SEED_LIMIT


def verify(results: ResultsFile, size: int, seed: int, progress: Progress) -> Verification:
    """Re-run `size` of the file's non-equivalent cases, drawn by `seed`, on the targets, seed and
    recordings it names, and compare their verdicts with the recorded ones. A `UsageError` when
    the recordings are not those the file was run on, or its cases are not in their plan."""
    run = results.run
    sampled, eligible = sample(results, size, seed)
    if not sampled:  # every case is equivalent: none ran, so none can run again
        return Verification(str(results.path), seed, 0, 0, run.target, run.red_target, ())
    options = rerun_options(run, (record.id for record in sampled))
    check_recordings(results, _recordings(results, options))
    session = _prepared(results, options, sampled)
    rerun = {record.id: record for record in session.records(progress(len(sampled)))}
    differences = tuple(
        Difference(
            record.id, record.verdict, again.verdict, record.red_verdict, again.red_verdict, run.reproduce(record.id)
        )
        for record in sampled
        if (again := rerun[record.id]).verdict != record.verdict or again.red_verdict != record.red_verdict
    )
    return Verification(str(results.path), seed, len(sampled), eligible, run.target, run.red_target, differences)


def sample(results: ResultsFile, size: int, seed: int) -> tuple[list[CaseRecord], int]:
    """`size` of the file's non-equivalent cases drawn at random by `seed` (every one when it holds
    fewer), in file order, and how many it holds. Only the drawn ones are kept in memory."""
    eligible = [at for at, kind in enumerate(_verdict_kinds(results)) if kind != VerdictKind.EQUIVALENT.value]
    drawn = sorted(random.Random(seed).sample(eligible, min(size, len(eligible))))
    return records_at(results, drawn), len(eligible)


def _verdict_kinds(results: ResultsFile) -> Iterator[str]:
    """Each case's verdict kind, in file order. A file read a case at a time was checked on reading,
    so its lines are only parsed here: decoding every record again costs about ten times as much."""
    if isinstance(results.cases, StoredCases):
        return (orjson.loads(line)["verdict"]["kind"] for line in results.cases.lines())
    return (record.verdict.kind.value for record in results.cases)


def records_at(results: ResultsFile, positions: Sequence[int]) -> list[CaseRecord]:
    """The file's cases at these positions (increasing); a file read a case at a time reads only their lines."""
    if isinstance(results.cases, StoredCases):
        return list(results.cases.at(positions))
    wanted = set(positions)
    return [record for at, record in enumerate(results.cases) if at in wanted]


def rerun_options(run: RunInfo, case_ids: Iterable[str]) -> RunOptions:
    """The run's options, selecting exactly these cases: its target and red target, seed and recordings."""
    return RunOptions(
        target=run.target,
        red_target=run.red_target or NO_TARGET,
        scenarios=[Path(path) for path in run.scenario_paths],
        seed=run.seed,
        select=[literal(case_id) for case_id in case_ids],
        spec=run.spec,
    )


def literal(case_id: str) -> str:
    """A `--select` glob that matches this id alone: `*`, `?` and `[` each matched as itself."""
    return re.sub(r"([*?[])", r"[\1]", case_id)


def _recordings(results: ResultsFile, options: RunOptions) -> tuple[Scenario, ...]:
    """The recordings the file names, loaded; a problem with them is the file's to name."""
    try:
        target = load_with_traits(options.target)
    except ToolsurfaceError as error:  # the file's target, named where the file holds it
        _refused(results, "target", str(error))
    try:
        return with_edges(recordings(options.scenarios, target))
    except ScenarioError as error:
        raise UsageError(
            f"{results.path}:$.run.scenario_paths: the recordings it was run on do not load: {error.problems[0]}"
        ) from None


def check_recordings(results: ResultsFile, loaded: Sequence[Scenario]) -> None:
    """Refuse to re-run on other recordings than the run's: each must load, with the digest the file records."""
    by_id = {scenario.id: scenario for scenario in loaded}
    paths = ", ".join(results.run.scenario_paths) or "the bundled scenarios"
    for at, recorded in enumerate(results.run.scenarios):
        where = f"{results.path}:$.run.scenarios[{at}]"
        scenario = by_id.get(recorded.id)
        if scenario is None:
            raise UsageError(f"{where}: recording {recorded.id!r} is not among the scenarios loaded from {paths}")
        if scenario.digest != recorded.digest:
            raise UsageError(
                f"{where}.digest: recording {recorded.id!r} loaded from {scenario.source} has digest "
                f"{scenario.digest[:12]}…, "
                f"not the {recorded.digest[:12]}… the run used: verify on the recordings the file was run on"
            )


def _prepared(results: ResultsFile, options: RunOptions, sampled: Sequence[CaseRecord]) -> Session:
    """The session that re-runs the sampled cases; a `UsageError` naming the file when what it
    names cannot run, or its plan does not hold every sampled case."""
    try:
        session = prepare(options)
        planned = {case.id for case in session.cases}
    except ToolsurfaceError as error:
        if error.option is None:
            raise
        # An option here is a value of the file's, not a flag: name it where the file holds it.
        planned = set() if error.option == "select" else _refused(results, error.option, str(error))
    missing = next((record.id for record in sampled if record.id not in planned), None)
    if missing is not None:
        raise UsageError(
            f"{results.path}: case {missing!r} is not in the plan that its recordings and seed {options.seed} give: "
            f"the file was edited, or written by another toolsurface than {version()}"
        )
    return session


def _refused(results: ResultsFile, option: str, problem: str) -> NoReturn:
    field = {"scenarios": "scenario_paths"}.get(option, option)
    raise UsageError(f"{results.path}:$.run.{field}: {problem}")
