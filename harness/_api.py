"""The API between the engine and the CLI: options in, a prepared session and results out.

Everything that can be wrong with the input (scenarios, target specs, flags) is checked in
`prepare`, before any case runs, so a bad run stops with one clear error and writes nothing.
"""

from __future__ import annotations

import contextlib
import datetime
import platform
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolsurface import scenarios as scenario_files
from toolsurface.common._errors import TargetError, ToolsurfaceError, UsageError
from toolsurface.common._printable import printable, unprintable
from toolsurface.common._version import version
from toolsurface.contract._diff import diff_snapshots, diff_summaries
from toolsurface.contract._facts import rulings
from toolsurface.scenarios import Scenario

from ._clean import CleanRun
from ._config import ProjectConfig, Spec
from ._edges import with_edges
from ._examples import example_folders, load_examples
from ._expectations import Expectation, load_expectations, planned_matches
from ._gate import Gate, Tallies, Thresholds
from ._options import OPTIONS
from ._oracles import EQUIVALENT, amend_all
from ._plan import Plan, Shard
from ._record import (
    Environment,
    Producer,
    RunInfo,
    ScenarioInfo,
    Summary,
    gate_of,
    summarize,
)
from ._reference import DEFECTS, GuardedPipeline
from ._runner import (
    DEFAULT_TIMEOUT,
    DefectProbe,
    Runner,
    offered_checkpoints,
)
from ._sources import portable_path, portable_source
from ._targets import NO_TARGET, load_with_traits
from ._traits import LoadedTarget
from ._types import (
    Amendment,
    Case,
    CaseRecord,
    Observation,
    Reproduction,
    Role,
    Tally,
)
from ._workers import WorkerPool, can_fork, default_jobs

if TYPE_CHECKING:
    from ._explore import Budget, Exploration

DEFAULT_TARGET = "reference:guarded"
#: The most worker processes a run starts per core, whatever `--jobs` asks for: enough for hosts
#: that wait on I/O, not so many that the machine runs out of processes or memory.
JOBS_PER_CORE = 4
DEFAULT_RED_TARGET = "reference:legacy"


@dataclass
class RunOptions:
    """What to run: a value for each run option that `_options` declares as a field; the front ends
    fill it from flags and `[tool.toolsurface]` (`configured`)."""

    target: str = DEFAULT_TARGET
    #: The old path each case is paired against; `none` turns pairing off; None (not given):
    #: `DEFAULT_RED_TARGET`, or none for a target with boundaries of its own (`red_target_for`).
    red_target: str | None = None
    #: Scenario files or folders; empty means the bundled scenarios.
    scenarios: list[Path] = field(default_factory=list)
    select: list[str] = field(default_factory=list)
    #: Folders of explored examples to run after the plan; `.toolsurface/examples` is read too, where it exists.
    examples: list[Path] = field(default_factory=list)
    seed: int = 0
    shard: str | None = None
    #: Seconds one request may take; None: the default, or more for a scenario whose clean run is slow
    #: (`Runner.timeout_for`).
    timeout: float | None = None
    #: Worker processes that run the targets; None: one per core; 0: in this process (for a debugger).
    jobs: int | None = None
    #: Seconds to keep watching the ports of every case after the last one, for late effects.
    grace: float = 1.0
    #: The spec the run closes, shown in every report.
    spec: Spec | None = None
    #: Known, accepted deviations (a TOML file of `[[expect]]` entries).
    expectations: Path | None = None
    #: Also run every reference defect on each case and record which ones it kills.
    defects: bool = False
    #: The folder for results.json and the reports; None leaves it to the front end.
    out: Path | None = None
    #: The reports written beside results.json, as given (`md,html` or one a value); the front end parses them.
    formats: list[str] = field(default_factory=list)
    thresholds: Thresholds = field(default_factory=Thresholds)
    #: The day expectations are judged on; None is today (UTC).
    today: datetime.date | None = None
    #: The options whose value came from `[tool.toolsurface]` rather than a flag, each with its file.
    configured_from: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def configured(cls, config: ProjectConfig, **given: Any) -> RunOptions:
        """Options from flags, where given (not None), else from `[tool.toolsurface]`, else defaults.

        Flag and key are joined by their declared name (`_options`): `given` names options, never flags."""
        settings: dict[str, Any] = {}
        configured_from: dict[str, Path] = {}
        for option in OPTIONS:
            if not option.field:
                continue
            flag, setting = given.get(option.name), config.get(option.name)
            if flag is not None and flag != []:
                settings[option.name] = flag
            elif setting is not None and setting != []:
                settings[option.name] = list(setting) if isinstance(setting, list) else setting
                if config.path is not None:
                    configured_from[option.name] = config.path
        return cls(**settings, configured_from=configured_from)

    @contextlib.contextmanager
    def naming_sources(self) -> Iterator[None]:
        """Let an input error about a value from `[tool.toolsurface]` name that file and key, not a flag."""
        try:
            yield
        except ToolsurfaceError as error:
            if error.option in self.configured_from:
                error.config = self.configured_from[error.option]
            raise


@dataclass(frozen=True)
class Session:
    """A checked, planned run, ready to go."""

    options: RunOptions
    scenarios: tuple[Scenario, ...]
    #: The cases this run executes, made as they are iterated; `cases.every()` is every planned one.
    cases: Plan
    runner: Runner
    #: What results.json says of the run before its cases; the day expectations are judged on is
    #: `options.today`, or the day the run was prepared (UTC).
    info: RunInfo
    expectations: tuple[Expectation, ...] = ()
    #: How many planned cases each expectation names.
    planned_matches: tuple[int, ...] = ()

    @property
    def today(self) -> datetime.date:
        return self.info.date

    @property
    def jobs(self) -> int:
        """Worker processes the run starts (0: none, the cases run in this process): as many as
        asked, but no more than it has cases or `JOBS_PER_CORE` per core — past that, more
        processes only share the same cores and memory."""
        if self.options.jobs is None:
            return default_jobs()
        return min(self.options.jobs, max(1, len(self.cases)), JOBS_PER_CORE * default_jobs())

    def results(self) -> Iterator[CaseRecord | Amendment]:
        """Each case's record in plan order, then what cases did after their records were made."""
        if self.jobs == 0 or not can_fork():
            return self.runner.run(self.cases, self.options.grace)
        return WorkerPool(self.runner, self.jobs, self.options.grace).run(self.cases)

    def records(self, done: Callable[[], None] = lambda: None) -> Iterator[CaseRecord]:
        """Each case's final record, in plan order; for callers that do not stream them. `done` is
        called as each case finishes, to show how far the run is."""
        finished: list[CaseRecord | Amendment] = []
        for item in self.results():
            finished.append(item)
            if isinstance(item, CaseRecord):
                done()
        return iter(amend_all(finished))

    @property
    def planned(self) -> tuple[Case, ...]:
        """Every planned case, before selection and sharding, all in memory: those `--select`
        keeps with their change worked out."""
        return tuple(self.cases.every(work_out=self.cases.selects))

    def tallies(self) -> Tallies:
        """Where to take the tallies of this run's cases as they finish."""
        return Tallies(self.expectations)

    def gate(self, tallies: Iterable[Tally]) -> Gate:
        """The gate over these cases of the run."""
        return gate_of(self.info, Tallies.of(tallies, self.expectations), self.planned_matches)

    def summarize(self, tallies: Tallies, digest: str) -> Summary:
        """The totals and the gate over these cases of the run, whose case lines have this digest."""
        return summarize(self.info, tallies, self.planned_matches, digest)


def prepare(options: RunOptions) -> Session:
    """Check every input and plan the run; raise a one-line error on the first thing wrong."""
    with options.naming_sources():
        return _prepare(options)


#: Seeds run from 0 to 2**63 - 1: results.json records the seed, and JSON readers take 64-bit integers.
SEED_LIMIT = 2**63


def check_seed(seed: int) -> None:
    """Refuse a seed out of range, naming the `seed` option."""
    if not 0 <= seed < SEED_LIMIT:
        raise UsageError(f"{seed} must be an integer from 0 to 2**63 - 1", option="seed")


#: The longest timeout, in seconds: a day. A case's timer, and a worker's budget of several
#: timeouts, must fit the clocks that arm them (a 64-bit count of nanoseconds, some 292 years).
TIMEOUT_LIMIT = 86_400


def check_timeout(seconds: float) -> None:
    """Refuse a timeout that is not a positive number of seconds up to a day, naming the `timeout` option."""
    # Not `seconds <= 0` alone: nan passes that, and neither nan nor inf can arm a timer. No
    # `math.isfinite` either: an integer too large for a float (from a config file) overflows it.
    if not 0 < seconds <= TIMEOUT_LIMIT:
        raise UsageError(
            f"{seconds} must be a positive number of seconds, at most {TIMEOUT_LIMIT} (a day)", option="timeout"
        )


def _prepare(options: RunOptions) -> Session:
    check_seed(options.seed)
    if options.timeout is not None:
        check_timeout(options.timeout)
    if options.jobs is not None and options.jobs < 0:
        raise UsageError(
            f"{options.jobs} must be 0 (run in this process) or a number of worker processes", option="jobs"
        )
    if not 0 <= options.grace <= 3600:
        raise UsageError(f"{options.grace} must be a number of seconds from 0 to 3600", option="grace")
    part = Shard.parse(options.shard) if options.shard else None
    target = load_with_traits(options.target)
    loaded = with_edges(recordings(options.scenarios, target))
    red_spec = red_target_for(options.red_target, target)
    red = None if red_spec == NO_TARGET else load_with_traits(red_spec, "red_target")
    expectations = load_expectations(options.expectations) if options.expectations else ()
    explored = load_examples(example_folders(options.examples))
    cases = Plan(
        loaded,
        options.seed,
        offered_checkpoints(target, options.timeout or DEFAULT_TIMEOUT),
        options.select,
        part,
        explored,
    )
    if options.select and not cases.selected:
        patterns = ", ".join(map(repr, options.select))
        raise UsageError(f"{patterns} matched none of the {cases.planned} planned cases", option="select")
    probe = DefectProbe(GuardedPipeline(), DEFECTS) if options.defects else None
    specs = {Role.TARGET: (options.target, "target"), Role.RED: (red_spec, "red_target")}
    runner = Runner(
        loaded,
        target,
        red,
        options.timeout,
        probe,
        renew=lambda role: load_with_traits(*specs[role]),
        recordings=cases.recordings,
    )
    return Session(
        options=options,
        scenarios=loaded,
        cases=cases,
        runner=runner,
        info=_run_info(options, runner, red_spec, loaded, (cases.planned, cases.selected), part),
        expectations=expectations,
        planned_matches=planned_matches(expectations, (case.id for case in cases.every())) if expectations else (),
    )


def recordings(paths: Sequence[Path], target: LoadedTarget) -> tuple[Scenario, ...]:
    """The scenarios a run is on: the files and folders given; else, for an agent with tools of
    its own, those derived from its tools; else the bundled ones. Such an agent runs only on
    scenarios of its own tools: given ones that admit others are refused."""
    own = getattr(target.target, "own_scenarios", None)
    spec = getattr(target.target, "name", "the target")
    try:
        derived = own() if callable(own) else ()
    except ToolsurfaceError:
        raise
    except Exception as error:  # the user's factory, run to read the agent's tools
        raise TargetError(
            f"{spec!r}: building the agent to read its tools raised {type(error).__name__}: {error}"
        ) from None
    if not paths:
        return derived or scenario_files.load(None)
    loaded = scenario_files.load(paths)
    registered = {tool.name for tool in derived[0].contract.surface} if derived else None
    for scenario in loaded:
        if registered is not None and (others := {t.name for t in scenario.contract.surface} - registered):
            raise UsageError(
                f"{scenario.source}: admits {', '.join(map(repr, sorted(others)))}, which {spec} does not register: "
                "an agent with tools of its own runs on scenarios of its tools (derived when no --scenarios is "
                "given, or written by `toolsurface record`)",
                option="scenarios",
            )
    return loaded


def red_target_for(given: str | None, target: LoadedTarget) -> str:
    """The red target a run pairs with: the one given, else the old reference path, except for a
    target that offers boundaries of its own: no reference target offers those, so none."""
    if given is not None:
        return given
    return NO_TARGET if target.traits.own_boundaries else DEFAULT_RED_TARGET


def _run_info(
    options: RunOptions,
    runner: Runner,
    red_spec: str,
    loaded: Sequence[Scenario],
    counts: tuple[int, int],
    part: Shard | None,
) -> RunInfo:
    planned, selected = counts
    red = runner.red_target
    return RunInfo(
        tool=Producer("toolsurface", version()),
        environment=Environment(platform.python_version(), platform.system().lower()),
        spec=options.spec,
        seed=options.seed,
        target=options.target,
        red_target=None if red is None else red_spec,
        scenario_paths=tuple(portable_path(str(path)) for path in options.scenarios),
        select=tuple(options.select),
        shard=part,
        date=options.today or datetime.datetime.now(datetime.UTC).date(),
        planned=planned,
        selected=selected,
        thresholds=options.thresholds,
        defects=None if runner.probe is None else tuple(runner.probe.defects),
        scenarios=tuple(
            ScenarioInfo(
                s.id,
                portable_source(s.source, s.digest),
                s.digest,
                s.mode,
                s.lane,
                s.identity.request,
                s.outcome,
                runner.outcome(Role.TARGET, s.id),
                None if red is None else runner.outcome(Role.RED, s.id),
                s.model_calls,
            )
            for s in loaded
        ),
        framework_remedy=runner.hosts[Role.TARGET].traits.framework_remedy,
    )


def find_case(planned: Iterable[Case], case_id: str, seed: int) -> Case:
    """The planned case with this id, as every report and the terminal print it or as results.json
    holds it.

    Printed first: an id exactly as `printable` shows some case is that case, even when another
    case's raw id is that very text (`a:\\x1b` is how the id holding an ESC prints, and also the
    raw id of one holding a backslash, which prints as `a:\\\\x1b`), since every printed reproduce
    command carries ids so. Then an id as written; then one with escapes typed by hand (`\\x0a`).
    """
    as_printed = unprintable(case_id)
    by_id = {case.id: case for case in planned if case.id in (case_id, as_printed)}
    printed, written = by_id.get(as_printed), by_id.get(case_id)
    if printed is not None and printable(printed.id) == case_id:
        return printed
    if found := written or printed:
        return found
    raise UsageError(f"no case {case_id!r} in the plan for seed {seed} (see `toolsurface list cases`)")


def _as_printed(path: Path) -> Path:
    """A scenario path as a reproduce command prints it: the path as given when something is
    there, else the path it is the `printable` form of."""
    try:
        there = path.exists()
    except OSError:  # a name the system cannot look up (too long): loading it says why
        there = True
    return path if there else Path(unprintable(str(path)))


def reproduce(options: RunOptions, case_id: str) -> Reproduction:
    """Re-run one case on `options.target`, keeping the refusal's own words."""
    # Any planned case can be reproduced, whatever a configured `select` leaves to `run`; the
    # target and the scenario paths are read as the printed command shows them (`RunInfo.reproduce`).
    # No importable target spec holds a backslash, so reading one as printed changes no real spec.
    settings = {"target": unprintable(options.target), "scenarios": [_as_printed(path) for path in options.scenarios]}
    session = prepare(RunOptions(**{**options.__dict__, **settings, "red_target": NO_TARGET, "select": ()}))
    case = find_case(session.cases.named({case_id, unprintable(case_id)}), case_id, options.seed)
    runner = session.runner
    runner.recordings = (case.scenario,)  # the one clean run its case is held to
    scenario, expected = runner.judged(Role.TARGET, case.scenario), runner.expected(case)
    observed = runner.observe(case, Role.TARGET, explain=True)
    verdict = EQUIVALENT if case.equivalent else runner.attributed(case, observed, scenario, expected)[0]
    summary = scenario.contract.summary
    sent = tuple(
        tuple(map(str, diff_snapshots(expected[min(d.call, len(expected)) - 1], d.surface)))
        + diff_summaries(summary, d.summary)
        for d in observed.dispatches
    )
    facts = rulings(observed.facts, scenario.binding, scenario.contract.web_tools)
    return Reproduction(
        case, session.info.target, observed, verdict, sent, facts, _next_sent_diffs(runner, case, observed)
    )


def _next_sent_diffs(runner: Runner, case: Case, observed: Observation) -> tuple[tuple[str, ...], ...]:
    """Per dispatch of the follow-up request, how its surface differs from what a clean run sent there."""
    clean = (runner.clean or {}).get((Role.TARGET, case.scenario))
    if observed.next_request is None or not isinstance(clean, CleanRun):
        return ()
    sent = [dispatch.surface for dispatch in observed.next_request.dispatches]
    return tuple(
        tuple(map(str, diff_snapshots(clean.sent[at], surface)))
        if at < len(clean.sent)
        else ("a clean run sends nothing here",)
        for at, surface in enumerate(sent)
    )


def defect_kills(options: RunOptions) -> dict[str, list[CaseRecord]]:
    """For every defect variant, the cases that kill it (see `DefectProbe`), in plan order."""
    session = prepare(
        RunOptions(**{**options.__dict__, "target": DEFAULT_TARGET, "red_target": NO_TARGET, "defects": True})
    )
    kills: dict[str, list[CaseRecord]] = {name: [] for name in DEFECTS}
    for result in session.records():
        for name in result.defects_killed or ():
            kills[name].append(result)
    return kills


#: The most tries one search makes: more is better spent as several searches, each with a seed of its own.
BUDGET_LIMIT = 100_000


def exploration(
    options: RunOptions, budget: Budget, errors: bool = False, tried: Callable[[], None] = lambda: None
) -> Exploration:
    """Search `options.target` for a failing change the plan does not hold (see `_explore`): on the
    run's recordings, through the run's runner, in this process, with no red target."""
    from ._explore import explore  # imports Hypothesis: only `explore` needs it

    if not 1 <= budget.examples <= BUDGET_LIMIT:
        raise UsageError(f"{budget.examples} must be a number of tries from 1 to {BUDGET_LIMIT}", option="budget")
    if budget.seconds is not None and not 0 < budget.seconds <= TIMEOUT_LIMIT:
        raise UsageError(
            f"{budget.seconds} must be a positive number of seconds, at most {TIMEOUT_LIMIT} (a day)",
            option="time_limit",
        )
    # The examples already saved are not the search's: it looks beyond the plan, and finds one again
    # where the same seed leads to it (its file is then written again, the same).
    settings: dict[str, Any] = {
        "red_target": NO_TARGET,
        "select": [],
        "shard": None,
        "jobs": 0,
        "defects": False,
        "examples": [],
    }
    session = prepare(RunOptions(**{**options.__dict__, **settings}))
    host = session.runner.hosts[Role.TARGET]
    planned = frozenset(case.id for case in session.cases.every())
    return explore(
        session.runner,
        # The recordings: a search over edits has nothing to find at a limit's edge it cannot on them.
        [scenario for scenario in session.scenarios if scenario.edge is None],
        offered_checkpoints(host, options.timeout or DEFAULT_TIMEOUT),
        planned=planned,
        target=options.target,
        seed=options.seed,
        budget=budget,
        errors=errors,
        tried=tried,
    )
