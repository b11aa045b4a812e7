"""The explorer: a Hypothesis search for a change the target fails on that the catalogue does not name.

It draws a recording, a boundary the target offers on it (any model call's), and one change: a
near miss (`mutators/_near_miss.py`: a change each lossy comparison cannot see, on any name,
description or string in a schema, where the plan tries one per comparison and recording) or
any registered mutator with an aim drawn afresh (`edit_sequences`: owner facts trusted, forged
and look-alike, legitimate changes, reorders…), by either delivery. Each is
made a `Case` (`_examples.explored_case`) and run by the same `Runner` as `run`, judged by the same
oracle; a change that leaves the surface as it was is `equivalent` there, as in the plan.

The search is `hypothesis.find`: it stops at the first `survived` or `false_reject` (an `error` too
where asked) and shrinks it to a minimal change. It is seeded (`random=Random(seed)`) and keeps no
database (`database=None`), so one seed gives one search; the examples folder is what is kept.
"""

from __future__ import annotations

import random
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, find, reject, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning, NoSuchExample, Unsatisfiable

from toolsurface.mutators import Kind, Mutation, MutationNotApplicable, Text
from toolsurface.mutators._base import shown_admitted
from toolsurface.mutators._composed import compose
from toolsurface.mutators._near_miss import TEXT_COMPARISONS, TEXT_MUTATORS, near_miss
from toolsurface.mutators._strategies import edit_sequences
from toolsurface.scenarios import Boundary, Scenario

from ._examples import EXAMPLE_VERSION, Explored, explored_case
from ._oracles import amend_all
from ._plan import Checkpoints
from ._runner import Runner
from ._types import Amendment, Case, CaseRecord, VerdictKind

#: Verdicts that are findings; an `error` is one only where the user asks (`errors=True`).
_FAILING = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})
#: Errors met on the way are reported, this many at most.
_ERRORS_SHOWN = 3


@dataclass(frozen=True, slots=True)
class Budget:
    """How long a search may go on: `examples` changes tried while searching (and as many again
    while shrinking a finding), and, where given, `seconds` of the whole."""

    examples: int
    seconds: float | None = None


@dataclass(frozen=True, slots=True)
class Found:
    """A change the target fails on, shrunk, with its record and the example to save."""

    record: CaseRecord
    example: Explored
    #: Changes run on the target, search and shrink together, and how long it took.
    tried: int
    seconds: float
    #: When the first failing change came (before shrinking): changes run by then, and seconds.
    first: tuple[int, float]
    #: Cases that errored on the way (not findings unless asked for).
    errors: tuple[CaseRecord, ...]


@dataclass(frozen=True, slots=True)
class NotFound:
    """The budget ran out, or the search space did, with nothing found."""

    tried: int
    seconds: float
    errors: tuple[CaseRecord, ...]
    #: The time limit ended the search, not the number of examples.
    out_of_time: bool


Exploration = Found | NotFound


@dataclass(frozen=True, slots=True, repr=False)
class Change:
    """One change: the recording, where it lands, what it does."""

    scenario: Scenario
    boundary: Boundary
    mutation: Mutation

    def __repr__(self) -> str:
        # Hypothesis shows what it draws; a recording's own repr runs to hundreds of kilobytes.
        return f"Change({self.scenario.id!r}, {str(self.boundary)!r}, {self.mutation.label!r})"


@st.composite
def near_misses(draw: st.DrawFn, scenario: Scenario) -> Mutation:
    """A near miss on any string of any tool the recording shows, for any lossy comparison (the
    plan tries one string per comparison and recording)."""
    mutator = draw(st.sampled_from(TEXT_MUTATORS))
    tool = draw(st.sampled_from(shown_admitted(scenario) or reject()))
    places = list(mutator.places(tool))
    if not places:
        reject()  # a schema with no string in it
    place, text = draw(st.sampled_from(places))
    lossy = draw(st.sampled_from(TEXT_COMPARISONS))
    made = near_miss(text, lossy)
    if made is None or (place == "name" and made in {shown.name for shown in scenario.surface}):
        reject()
    delivery = draw(st.sampled_from(mutator.deliveries))
    return Mutation(mutator.key(), mutator.kind, mutator.variant, delivery, Text(tool.name, place, lossy), mutator.must)


#: Kinds a composed change leaves out: each is judged by rules of its own (an MCP list change, a
#: wire field a format may not carry, an entry request's summary), which hold for it alone.
_ALONE = frozenset({Kind.MCP, Kind.WIRE, Kind.ENTRY})


@st.composite
def changes(draw: st.DrawFn, scenarios: Sequence[Scenario], checkpoints: Checkpoints) -> Change:
    """A recording, a boundary the target offers on it, and a change to make there: one to three
    edits, each a near miss or a registered mutator's, made in turn. Recordings are offered
    smallest first, and a list of edits shrinks toward one, so a finding shrinks toward the
    fewest tools and edits."""
    scenario = draw(st.sampled_from(sorted(scenarios, key=lambda s: (len(s.surface), s.model_calls, s.id))))
    boundary = draw(st.sampled_from(checkpoints(scenario) or reject()))
    catalogue = edit_sequences(scenario, min_size=1, max_size=1).map(lambda steps: steps[0])
    edits = draw(st.lists(st.one_of(near_misses(scenario), catalogue), min_size=1, max_size=3))
    if len(edits) == 1:
        return Change(scenario, boundary, edits[0])
    if any(edit.kind in _ALONE for edit in edits):
        reject()
    try:
        return Change(scenario, boundary, compose(scenario, edits, boundary.call))
    except MutationNotApplicable:
        reject()  # an edit aims at what one before it took away


class Explorer:
    """Runs drawn changes on the runner's target, each once, and keeps what they gave."""

    def __init__(
        self,
        runner: Runner,
        budget: Budget,
        planned: frozenset[str] = frozenset(),
        errors: bool = False,
        tried: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.runner, self.budget, self.errors_count, self.tried_one, self.clock = runner, budget, errors, tried, clock
        #: The plan's case ids: a change the catalogue names is not what the search is for.
        self.planned = planned
        self.records: dict[str, CaseRecord] = {}
        self.errors: list[CaseRecord] = []
        self.started = clock()
        #: How many changes had run when the first finding came (shrinking gets as many again), and when.
        self.found_at: int | None = None
        self.found_after = 0.0
        self.out_of_time = False

    @property
    def tried(self) -> int:
        return len(self.records)

    def spent(self) -> bool:
        """Whether the budget allows no more runs (a cached change is always answered)."""
        seconds = self.budget.seconds
        if seconds is not None and self.clock() - self.started > seconds:
            self.out_of_time = True
            return True
        limit = self.budget.examples if self.found_at is None else self.found_at + self.budget.examples
        return self.tried >= limit

    def fails(self, change: Change) -> bool:
        """Whether the target fails the change: the condition `find` searches and shrinks on."""
        scenario, boundary, mutation = change.scenario, change.boundary, change.mutation
        case = explored_case(scenario, boundary, mutation, index=0)
        if case.change is not None and any(line.startswith("not applicable:") for line in case.change):
            return False
        hooks = "hooks" if scenario.hooks else "no-hooks"
        if f"{scenario.id}/{scenario.lane}/{hooks}/{boundary}/{mutation.label}" in self.planned:
            return False
        record = self.records.get(case.id)
        if record is None:
            if self.spent():
                return False
            record = self.records[case.id] = self.run(case)
            self.tried_one()
            if record.verdict.kind is VerdictKind.ERROR and len(self.errors) < _ERRORS_SHOWN:
                self.errors.append(record)
        failing = record.verdict.kind in _FAILING or (self.errors_count and record.verdict.kind is VerdictKind.ERROR)
        if failing and self.found_at is None:
            self.found_at, self.found_after = self.tried, self.clock() - self.started
        return failing

    def run(self, case: Case) -> CaseRecord:
        """The case's record, late effects within the run's own watch included."""
        results: list[CaseRecord | Amendment] = list(self.runner.run([case]))
        (record,) = amend_all(results)
        return record


def explore(
    runner: Runner,
    scenarios: Sequence[Scenario],
    checkpoints: Checkpoints,
    *,
    planned: frozenset[str] = frozenset(),
    target: str,
    seed: int,
    budget: Budget,
    errors: bool = False,
    tried: Callable[[], None] = lambda: None,
) -> Exploration:
    """Search for a change the runner's target fails on; the first found, shrunk, or none."""
    explorer = Explorer(runner, budget, planned, errors, tried)
    search = settings(
        max_examples=budget.examples,
        database=None,  # the examples folder is what is kept; a seed gives the same search
        deadline=None,  # a host's own time is the runner's to judge (`--timeout`)
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
    )
    try:
        with warnings.catch_warnings():
            # Hypothesis warns of long reprs of what it drew (recordings): nothing a user can act on.
            warnings.simplefilter("ignore", HypothesisWarning)
            change = find(changes(scenarios, checkpoints), explorer.fails, settings=search, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return NotFound(
            explorer.tried, explorer.clock() - explorer.started, tuple(explorer.errors), explorer.out_of_time
        )
    scenario, boundary, mutation = change.scenario, change.boundary, change.mutation
    case = explored_case(scenario, boundary, mutation, index=0)
    record = explorer.records[case.id]
    example = Explored(EXAMPLE_VERSION, case.id, scenario.id, boundary, mutation, target, seed, record.verdict)
    first = (explorer.found_at or explorer.tried, explorer.found_after)
    return Found(record, example, explorer.tried, explorer.clock() - explorer.started, first, tuple(explorer.errors))
