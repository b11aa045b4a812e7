"""The API between the engine and the CLI: options in, a prepared session and results out.

Everything that can be wrong with the input (scenarios, target specs, flags) is checked in
`prepare`, before any case runs, so a bad run stops with one clear error and writes nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import scenarios as scenario_files
from scenarios import Scenario, rulings

from ._diff import diff_snapshots, diff_summaries
from ._errors import UsageError
from ._oracles import EQUIVALENT, judge
from ._plan import Shard, plan, select, shard
from ._reference import DEFECTS
from ._runner import Runner, observe
from ._targets import NO_TARGET, load_target, target_name
from ._types import Case, CaseResult, Reproduction, VerdictKind

DEFAULT_TARGET = "reference:guarded"
DEFAULT_RED_TARGET = "reference:legacy"


@dataclass
class RunOptions:
    """What to run; the CLI fills it from flags."""

    target: str = DEFAULT_TARGET
    #: The old path each case is paired against; `none` turns pairing off.
    red_target: str = DEFAULT_RED_TARGET
    #: Scenario files or folders; empty means the bundled scenarios.
    scenarios: list[Path] = field(default_factory=list)
    select: list[str] = field(default_factory=list)
    seed: int = 0
    shard: str | None = None
    timeout: float = 10.0

    def reproduce_command(self, case_id: str, target: str | None = None) -> str:
        """One command that re-runs one case and shows its evidence."""
        words = ["toolsurface", "reproduce", case_id, "--target", target or self.target, "--seed", str(self.seed)]
        for path in self.scenarios:
            words += ["--scenarios", str(path)]
        return shlex.join(words)


@dataclass(frozen=True)
class Session:
    """A checked, planned run, ready to go."""

    options: RunOptions
    scenarios: tuple[Scenario, ...]
    #: Every planned case, before selection and sharding.
    planned: tuple[Case, ...]
    #: The cases this run executes.
    cases: tuple[Case, ...]
    runner: Runner
    target_name: str
    red_target_name: str | None

    def results(self) -> Iterator[CaseResult]:
        return self.runner.run(self.cases)


def prepare(options: RunOptions) -> Session:
    """Check every input and plan the run; raise a one-line error on the first thing wrong."""
    if options.seed < 0:
        raise UsageError(f"--seed {options.seed} must be a non-negative integer")
    if options.timeout <= 0:
        raise UsageError(f"--timeout {options.timeout} must be a positive number of seconds")
    part = Shard.parse(options.shard) if options.shard else None
    loaded = scenario_files.load(options.scenarios or None)
    target = load_target(options.target)
    red = None if options.red_target == NO_TARGET else load_target(options.red_target)
    planned = plan(loaded, options.seed)
    chosen = select(planned, options.select)
    if options.select and not chosen:
        patterns = " ".join(f"--select {p!r}" for p in options.select)
        raise UsageError(f"{patterns} matched none of the {len(planned)} planned cases")
    return Session(
        options=options,
        scenarios=loaded,
        planned=planned,
        cases=shard(chosen, part),
        runner=Runner(loaded, target, red, options.timeout),
        target_name=target_name(target, options.target),
        red_target_name=None if red is None else target_name(red, options.red_target),
    )


def find_case(session: Session, case_id: str) -> Case:
    for case in session.planned:
        if case.id == case_id:
            return case
    raise UsageError(f"no case {case_id!r} in the plan for seed {session.options.seed} (see `toolsurface list cases`)")


def reproduce(options: RunOptions, case_id: str) -> Reproduction:
    """Re-run one case on `options.target`, keeping the refusal's own words."""
    session = prepare(RunOptions(**{**options.__dict__, "red_target": NO_TARGET}))
    case = find_case(session, case_id)
    runner = session.runner
    scenario, expected = runner.scenarios[case.scenario], runner.expected(case)
    observed = observe(runner.target, case, scenario, options.timeout, explain=True)
    verdict = EQUIVALENT if case.equivalent else judge(case, observed, scenario, expected)
    summary = scenario.contract.summary
    sent = tuple(
        tuple(map(str, diff_snapshots(expected, d.surface))) + diff_summaries(summary, d.summary)
        for d in observed.dispatches
    )
    facts = rulings(observed.facts, scenario.binding, scenario.contract.web_tools)
    return Reproduction(case, session.target_name, observed, verdict, sent, facts)


_KILLS = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})


def defect_kills(options: RunOptions) -> dict[str, list[CaseResult]]:
    """For every defect variant, the cases it lets survive or falsely rejects that pass on `reference:guarded`.

    Pairing with the guard keeps a case that fails everywhere (a broken scenario, say) from
    counting as a kill, and an `error` is never a kill: a crashing variant proves nothing.
    """
    session = prepare(RunOptions(**{**options.__dict__, "target": DEFAULT_TARGET, "red_target": NO_TARGET}))
    green = {result.case.id for result in session.results() if result.verdict.kind.ok}
    kills: dict[str, list[CaseResult]] = {}
    for name, pipeline in DEFECTS.items():
        runner = Runner(session.scenarios, pipeline(), timeout=options.timeout)
        kills[name] = [r for r in runner.run(session.cases) if r.verdict.kind in _KILLS and r.case.id in green]
    return kills
