"""The plan: every case of scenario × lane × hook mode × injection point × mutation.

Case ids are stable: they depend only on the scenario, the mutator, the seed and the point, never
on which other cases were selected, so `--select` and `--shard` keep every id.
"""

from __future__ import annotations

import fnmatch
import functools
import itertools
import random
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass

from toolsurface.common._errors import UsageError
from toolsurface.contract._canonical import (
    Snapshot,
    capture,
    entries_to_read,
    logical_tools,
    snapshot_of,
)
from toolsurface.contract._diff import diff, diff_summaries
from toolsurface.contract._facts import OwnerFact
from toolsurface.contract._formats import LOGICAL, ToolDescriptor
from toolsurface.mutators import (
    MUTATORS,
    Edit,
    Mutation,
    MutationNotApplicable,
    Mutator,
    Reach,
)
from toolsurface.scenarios import Boundary, Scenario

from ._examples import Explored, cases_of
from ._mcp import McpCatalogue
from ._ports import Gateway
from ._types import Case

#: `K/N`, each a number of ASCII digits.
_SHARD = re.compile(r"(?P<index>[0-9]{1,19})/(?P<count>[0-9]{1,19})")


@dataclass(frozen=True, slots=True)
class Shard:
    """Run every N-th case, starting at the K-th (1-based)."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        # ASCII digits, and few enough for results.json's 64-bit integers: `str.isdigit` takes
        # digits `int` refuses (²), and `int` refuses more than 4300 of them.
        found = _SHARD.fullmatch(text)
        if not (found and 1 <= int(found["index"]) <= int(found["count"]) < 2**63):
            raise UsageError(f"{text!r} must look like K/N with 1 ≤ K ≤ N < 2**63, e.g. 2/4", option="shard")
        return cls(int(found["index"]), int(found["count"]))

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def share(self, cases: int) -> int:
        """How many of `cases` this part runs."""
        return len(range(self.index - 1, cases, self.count))


#: What makes a `--select` pattern a glob rather than one id.
_GLOB = re.compile(r"[*?[]")

#: The boundaries a target offers on a scenario, in order.
Checkpoints = Callable[[Scenario], tuple[Boundary, ...]]


def recorded_checkpoints(scenario: Scenario) -> tuple[Boundary, ...]:
    """The boundaries after the recorded stages: what a host that runs the recording offers."""
    return tuple(scenario.checkpoints)


def plan(
    scenarios: Iterable[Scenario],
    seed: int,
    mutators: Sequence[Mutator] = MUTATORS,
    checkpoints: Checkpoints = recorded_checkpoints,
    patterns: Sequence[str] = (),
) -> tuple[Case, ...]:
    """Every case for these scenarios, in a deterministic order, at each boundary `checkpoints` gives.

    With `patterns`, only the cases whose id matches one have their change worked out (a dry run
    of the mutation, most of the plan's cost); the others keep their id and place, change None.
    """
    return tuple(
        planned(
            scenarios, seed, mutators, checkpoints, work_out=lambda case_id: not patterns or matches(case_id, patterns)
        )
    )


def planned(
    scenarios: Iterable[Scenario],
    seed: int,
    mutators: Sequence[Mutator] = MUTATORS,
    checkpoints: Checkpoints = recorded_checkpoints,
    *,
    keep: Callable[[str], bool] | None = None,
    work_out: Callable[[str], bool] = lambda case_id: True,
) -> Iterator[Case]:
    """The cases of `plan`, made one at a time: those whose id `keep` takes (asked once per case,
    in plan order), each with its change worked out when `work_out` says so. Ids and indexes are
    the plan's whatever is kept."""
    positions = itertools.count()
    for scenario in scenarios:
        hooks = "hooks" if scenario.hooks else "no-hooks"
        prefix = f"{scenario.id}/{scenario.lane}/{hooks}"
        offered = checkpoints(scenario)
        for mutator in at_edge(mutators, scenario):
            # Seeded per scenario and mutator: adding a scenario or mutator never moves another's ids.
            rng = random.Random(f"{seed}:{scenario.id}:{mutator.key()}")
            for mutation in mutator.mutations(scenario, rng):
                changes: dict[int, tuple[str, ...]] = {}
                for at in reached(mutator, offered, last=scenario.edge is not None):
                    case_id = f"{prefix}/{at}/{mutation.label}"
                    index = next(positions)
                    if keep is not None and not keep(case_id):
                        continue
                    change = None
                    if work_out(case_id):
                        if at.call not in changes:
                            changes[at.call] = dry_run(scenario, mutator, mutation, at.call)
                        change = changes[at.call]
                    yield Case(
                        id=case_id,
                        index=index,
                        scenario=scenario.id,
                        lane=scenario.lane,
                        hooks=scenario.hooks,
                        point=at.point,
                        mutation=mutation,
                        change=change,
                        call=at.call,
                    )


def at_edge(mutators: Sequence[Mutator], scenario: Scenario) -> Sequence[Mutator]:
    """The mutators planned on a scenario: on one derived at a limit's edge, those planned at its
    offset (`Mutator.at_edges`); on a recording, all."""
    if scenario.edge is None:
        return mutators
    return [mutator for mutator in mutators if scenario.edge.offset in mutator.at_edges]


def reached(mutator: Mutator, offered: tuple[Boundary, ...], last: bool = False) -> tuple[Boundary, ...]:
    """The boundaries of `offered` a mutator's changes are tried at (`Mutator.reach`; `last`: those
    it would try at every boundary, at the last before each model call only)."""
    if mutator.reach is Reach.EVERY and not last:
        return offered
    # Each call's boundary met last in the walk: its last in order, or for `Reach.FIRST` its first.
    ends = {at.call: at for at in (reversed(offered) if mutator.reach is Reach.FIRST else offered)}
    return tuple(at for at in offered if ends[at.call] == at)


class Plan(Collection[Case]):
    """The cases one run executes, made as they are iterated (each pass makes them again), so a
    run of any size holds only the cases in flight: the plan's cases that `--select` keeps, and of
    those, this shard's share. Counted when made. Explored examples (`_examples`) come after the
    planned cases, as cases of the run like any other."""

    def __init__(
        self,
        scenarios: Sequence[Scenario],
        seed: int,
        checkpoints: Checkpoints,
        patterns: Sequence[str],
        part: Shard | None,
        explored: Sequence[Explored] = (),
    ) -> None:
        self._scenarios, self._seed, self._patterns, self._part = tuple(scenarios), seed, tuple(patterns), part
        self._explored = tuple(explored)
        #: Where the explored cases' indexes start: after every planned one (counted by `every`).
        self._first = 0
        # Ids given whole (`verify` selects each case it samples so) are looked up, not matched one
        # glob after another: thousands of them against every planned id would take minutes.
        self._ids = frozenset(p for p in self._patterns if not _GLOB.search(p))
        self._globs = tuple(p for p in self._patterns if _GLOB.search(p))
        self._checkpoints = _once_each(checkpoints)
        #: How many cases the plan holds, and how many of them `--select` keeps.
        self.planned = self.selected = 0
        #: The recordings this run runs cases of, in plan order: the only ones its targets run on.
        self.recordings: tuple[str, ...] = ()
        ran: dict[str, None] = {}
        for case in self.every():
            self.planned += 1
            if self.selects(case.id):
                if part is None or self.selected % part.count == part.index - 1:
                    ran[case.scenario] = None
                self.selected += 1
        self.recordings = tuple(ran)
        self._count = part.share(self.selected) if part else self.selected

    def selects(self, case_id: str) -> bool:
        return not self._patterns or case_id in self._ids or matches(case_id, self._globs)

    def every(self, work_out: Callable[[str], bool] = lambda case_id: False) -> Iterator[Case]:
        """Every planned case, before `--select` and `--shard`; by default no change is worked out."""
        return self._cases(None, work_out)

    def named(self, ids: Collection[str]) -> Iterator[Case]:
        """The planned cases with these ids, whatever `--select` and `--shard` keep, changes worked out."""
        return self._cases(lambda case_id: case_id in ids)

    def __iter__(self) -> Iterator[Case]:
        return self._cases(self._keeps())

    def _cases(
        self, keep: Callable[[str], bool] | None, work_out: Callable[[str], bool] = lambda case_id: True
    ) -> Iterator[Case]:
        """The planned cases, then the explored ones (whose change is always worked out: they are few)."""
        made = 0
        for case in planned(self._scenarios, self._seed, checkpoints=self._checkpoints, keep=keep, work_out=work_out):
            made += 1
            yield case
        if keep is None:  # every planned case was made: the explored ones are numbered on from there
            self._first = made
        for case in cases_of(self._explored, self._scenarios, self._first):
            if keep is None or keep(case.id):
                yield case

    def _keeps(self) -> Callable[[str], bool]:
        position = itertools.count()
        part = self._part

        def keeps(case_id: str) -> bool:
            if not self.selects(case_id):
                return False
            return part is None or next(position) % part.count == part.index - 1

        return keeps

    def __len__(self) -> int:
        return self._count

    def __contains__(self, item: object) -> bool:
        return isinstance(item, Case) and any(case.id == item.id for case in self)


def _once_each(checkpoints: Checkpoints) -> Checkpoints:
    """`checkpoints` asked once per scenario: for a target with boundaries of its own, asking runs it."""
    found: dict[str, tuple[Boundary, ...]] = {}

    def once(scenario: Scenario) -> tuple[Boundary, ...]:
        if scenario.id not in found:
            found[scenario.id] = checkpoints(scenario)
        return found[scenario.id]

    return once


def dry_run(scenario: Scenario, mutator: Mutator, mutation: Mutation, call: int = 1) -> tuple[str, ...]:
    """What the mutation does to the expected surface of the `call`-th model call and to the
    capability summary, as diff lines, and which facts it records and what it changes on the MCP
    server (those change no surface, but a reader wants to see them)."""
    expected, before = _expected(scenario, call)
    tools = logical_tools(expected)
    messages = [message.as_dict() for message in scenario.request_messages]
    facts: list[OwnerFact] = []
    server, provider = McpCatalogue(scenario), _Provider(call)
    edit = Edit(tools, messages, LOGICAL, mutation.delivery, mutation.aim, scenario, facts, server, provider)
    try:
        changed, changed_messages = mutator.apply(edit)
    except MutationNotApplicable as problem:
        return (f"not applicable: {problem}",)
    after = capture(changed, LOGICAL)
    # The expected side is the same for every mutation of the scenario: decoded once, only read.
    surface = (
        ()
        if before == after
        else tuple(map(str, diff(entries_to_read(before), after.entries()))) or ("canonical form differs",)
    )
    summary = diff_summaries(scenario.contract.summary, Gateway.summary_of(changed_messages))
    facts_said = tuple(f"records fact: {fact}" for fact in facts)
    return surface + summary + facts_said + tuple(server.changes) + tuple(provider.changes)


class _Provider:
    """The model provider a planned mutation sees: what it is made to do, in words."""

    def __init__(self, call: int) -> None:
        self.call = call
        self.changes: list[str] = []

    def fail(self) -> None:
        self.changes.append(f"the model provider fails model call {self.call} and every one after it")


@functools.lru_cache(maxsize=16)
def _expected(scenario: Scenario, call: int) -> tuple[tuple[ToolDescriptor, ...], Snapshot]:
    """The expected surface of a model call and its snapshot: the same for every mutation planned
    there. A recording's cases are planned together, so a few entries serve them."""
    expected = scenario.surface_at(call)
    return expected, snapshot_of(expected)


def select(cases: Sequence[Case], patterns: Sequence[str]) -> tuple[Case, ...]:
    """Cases whose id matches any glob (all cases when there are no patterns)."""
    if not patterns:
        return tuple(cases)
    return tuple(case for case in cases if matches(case.id, patterns))


def matches(case_id: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(case_id, p) for p in patterns)


def shard(cases: Sequence[Case], part: Shard | None) -> tuple[Case, ...]:
    if part is None:
        return tuple(cases)
    return tuple(cases[part.index - 1 :: part.count])
