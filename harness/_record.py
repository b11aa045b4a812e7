"""The record of a run: what results.json holds, as one typed value.

`Results` is the run (`RunInfo`, known before its first case), every `CaseRecord`, and the
`Summary` judged over them. The file, every report, the gate and `merge` are views of it; the
codec writes and reads it, and its JSON Schema is derived from these declarations.
"""

from __future__ import annotations

import dataclasses
import datetime
import shlex
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from toolsurface.common._printable import printable
from toolsurface.scenarios import Lane, Mode, RequestOutcome

from ._codec import schema
from ._config import Spec
from ._gate import Gate, Tallies, Thresholds, judge_gate
from ._plan import Shard
from ._types import CaseRecord, Totals

#: Bumped on every change to what results.json holds.
SCHEMA_VERSION = 16


@dataclass(frozen=True, slots=True)
class Producer:
    """The tool that wrote the record."""

    name: str
    version: str


@dataclass(frozen=True, slots=True)
class Environment:
    """Where the run ran: the Python version and the operating system."""

    python: str
    platform: str


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    """A recording the run planned cases from; `digest` pins its content."""

    id: str
    #: The file it was loaded from, named the same on every machine (`_sources.portable_source`):
    #: `toolsurface/scenarios/bundled/…` for a bundled one, a path relative to the run's working
    #: directory for a user's, else `sha256:<digest>`.
    source: str
    digest: str
    mode: Mode
    lane: Lane
    #: The request its cases reserve and settle: a verdict's settlement is checked against it on reading.
    request: str
    #: How the unmutated request ends, as recorded.
    outcome: RequestOutcome
    #: How it must end on the target under test: the recorded outcome, or a capacity result where
    #: the target's own token estimate (`Target.estimate_tokens`) says its tools do not fit.
    target_outcome: RequestOutcome
    #: The same on the red target; None when the run is not paired.
    red_outcome: RequestOutcome | None
    #: How many model calls the recorded request makes: each must carry its expected surface.
    model_calls: int = 1


@dataclass(frozen=True, slots=True)
class RunInfo:
    """Everything known about a run before its first case."""

    tool: Producer
    environment: Environment
    #: The spec the run closes, from `[tool.toolsurface]`; None when none is configured.
    spec: Spec | None
    seed: int
    #: The target under test, by the spec it was given as: never by a name the target gives itself,
    #: which any subclass of the reference guard could borrow.
    target: str
    #: The old path each case is paired against, by its spec; None when pairing is off.
    red_target: str | None
    #: The scenario files and folders given, relative to the run's working directory where they lie
    #: under it; empty for the bundled ones.
    scenario_paths: tuple[str, ...]
    select: tuple[str, ...]
    shard: Shard | None
    #: The day expectations are judged on.
    date: datetime.date
    #: How many cases the plan holds before `--select` and `--shard`.
    planned: int
    #: How many of them `--select` keeps, before `--shard`: a record holding other than its share of these was edited.
    selected: int
    thresholds: Thresholds
    #: The reference defects every case was also run on; None when they were not.
    defects: tuple[str, ...] | None
    scenarios: tuple[ScenarioInfo, ...]
    #: What a user can do about a failure the target's framework causes itself (`Evidence.framework_own`),
    #: as the target says it (`framework_remedy`); None when it says nothing.
    framework_remedy: str | None = None

    def reproduce(self, case_id: str) -> str:
        """One command that re-runs one case on the target under test and shows its evidence, as
        every report prints it: each word as `printable` shows it, quoted for a POSIX shell.

        No one-line POSIX command can hand over a newline or an ESC (`$'\\n'` is not POSIX, and
        `$(printf)` drops a trailing newline), and a raw bidi control would reorder the line it is
        on. So the command holds only printable characters, and `reproduce` reads its case id,
        target and scenario paths as printed (`unprintable`): the same text works pasted from the
        terminal, the audit, JUnit or the HTML page. It is already inert: never `printable` it again.
        """
        words = ["toolsurface", "reproduce", case_id, "--target", self.target, "--seed", str(self.seed)]
        for path in self.scenario_paths:
            words += ["--scenarios", path]
        return shlex.join(map(printable, words))


@dataclass(frozen=True, slots=True)
class Summary:
    """What the cases add up to: totals, pairing, and the gate."""

    totals: Totals
    #: The verdicts on the red target; None when pairing is off.
    red_totals: Totals | None
    #: Cases RED on the red target and GREEN on the target under test.
    controlled: int
    gate: Gate
    #: The sha256 (hex) of the case lines as written: a case edited after the run no longer matches it.
    digest: str
    #: `hmac-sha256:` and the hex HMAC, keyed with `TOOLSURFACE_SIGNING_KEY`, of the file as written
    #: with null here; null when no key was set. Unlike the digest, no one without the key can make it again.
    signature: str | None = None

    @classmethod
    def of(cls, tallies: Tallies, paired: bool, gate: Gate, digest: str) -> Summary:
        """The summary, not yet signed."""
        red = Totals.counted(tallies.red_verdicts) if paired else None
        return cls(Totals.counted(tallies.verdicts), red, tallies.controlled, gate, digest)

    def unsigned(self) -> Summary:
        """The summary as it is signed: without its signature."""
        return dataclasses.replace(self, signature=None)


@dataclass(frozen=True, slots=True)
class Results:
    """The record of one run (or of the merge of its shards): results.json."""

    schema_version: int
    run: RunInfo
    cases: tuple[CaseRecord, ...]
    summary: Summary


class Record(Protocol):
    """A run's record as the reports read it: `Results` in memory, or a results.json whose cases
    are read from disk each time they are iterated (`_results.ResultsFile`)."""

    @property
    def schema_version(self) -> int: ...
    @property
    def run(self) -> RunInfo: ...
    @property
    def cases(self) -> Collection[CaseRecord]: ...
    @property
    def summary(self) -> Summary: ...


def results_schema() -> dict[str, object]:
    """The JSON Schema of results.json, derived from the types above."""
    document = schema(
        Results,
        **{"$id": f"https://toolsurface.dev/schemas/results-{SCHEMA_VERSION}.json"},
        title="toolsurface run results",
        description="The record of one `toolsurface run` (or of the merge of its shards): what ran, against what, "
        "the verdict on every case, and the gate.",
    )
    document["$defs"]["Results"]["properties"]["schema_version"] = {"const": SCHEMA_VERSION}
    return document


def gate_of(run: RunInfo, tallies: Tallies, planned: Sequence[int]) -> Gate:
    """The gate on these cases of `run`; `planned` counts the planned cases each of the tallies'
    expectations names."""
    return judge_gate(tallies, planned, run.date, run.thresholds, partial=run.shard is not None)


def summarize(run: RunInfo, tallies: Tallies, planned: Sequence[int], digest: str) -> Summary:
    """The summary of these cases of `run`, with its gate and the digest of their lines."""
    return Summary.of(tallies, run.red_target is not None, gate_of(run, tallies, planned), digest)
