"""Ten thousand fuzzed inputs across every file format and every flag, and how each one ended.

The same attempts as `tests/test_fuzz.py` (see `tests/fixtures/fuzz/`), many more of them, run in
this process; every one is run, whatever the ones before it did, and counted: how many ended with
exit 0, 1, 2, 3 or anything else, how many printed a traceback or let an exception escape, how
many exit-2 lines named no input, how many left a file (a `.part`, a partial results.json) or took
an input away. It fails at the end if any input broke the promise, listing the first of them.

    python -m pytest tests/benchmarks/bench_fuzz.py -s      # about 10 minutes on one core
    TOOLSURFACE_FUZZ_INPUTS=2000 TOOLSURFACE_FUZZ_SEED=7 python -m pytest tests/benchmarks/bench_fuzz.py -s
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.fixtures.fuzz.documents import DOCUMENTS
from tests.fixtures.fuzz.flags import flag_attempts
from tests.fixtures.fuzz.runs import (
    ALLOWED,
    Attempt,
    Ended,
    breaches,
    run_attempt,
    unnamed,
    work_folder,
)

#: Each kind's share of the inputs: the flags of every command, then each file format.
SHARES = {
    "flag": 0.30,
    "scenario": 0.15,
    "results": 0.15,
    "config": 0.15,
    "expectations": 0.08,
    "import": 0.12,
    "scan": 0.05,
}
ATTEMPTS = {**DOCUMENTS, "flag": flag_attempts}
INPUTS = int(os.environ.get("TOOLSURFACE_FUZZ_INPUTS", "10000"))
SEED = int(os.environ.get("TOOLSURFACE_FUZZ_SEED", "0"))


@dataclass
class Tally:
    """How the inputs of one kind ended."""

    inputs: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    tracebacks: int = 0
    #: Exits 2 with more than one line: a file with several problems gives one line for each.
    several_lines: int = 0
    unnamed_lines: int = 0
    left_files: int = 0
    breaking: list[tuple[Attempt, tuple[str, ...]]] = field(default_factory=list)

    def add(self, attempt: Attempt, ended: Ended) -> None:
        self.inputs += 1
        self.statuses[ended.status if ended.status in (*ALLOWED, 3) else -1] += 1
        self.tracebacks += ended.escaped is not None or "Traceback (most recent call last)" in ended.stderr
        self.several_lines += ended.status == 2 and ended.stderr.count("\n") > 1
        self.unnamed_lines += len(unnamed(attempt, ended.stderr, ended.stdout)) if ended.status == 2 else 0
        self.left_files += bool(ended.temporaries or ended.gone or (ended.status not in (0, 1) and ended.new))
        if found := breaches(attempt, ended):
            self.breaking.append((attempt, found))


def fuzz(kind: str, count: int, folder, cache) -> Tally:
    tally = Tally()

    @seed(SEED)
    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(ATTEMPTS[kind]())
    def attempt(attempt: Attempt) -> None:
        tally.add(attempt, run_attempt(attempt, work_folder(folder), cache))

    attempt()
    return tally


COLUMNS = (
    "inputs",
    "exit 0",
    "exit 1",
    "exit 2",
    "exit 3",
    "other",
    "tracebacks",
    "exit 2 in 2+ lines",
    "exit-2 lines naming no input",
    "files left or taken",
)


def row(name: str, tally: Tally) -> str:
    statuses = (tally.statuses[status] for status in (0, 1, 2, 3, -1))
    cells = (tally.inputs, *statuses, tally.tracebacks, tally.several_lines, tally.unnamed_lines, tally.left_files)
    return f"{name:<13}" + "".join(
        f"{cell:>{max(8, len(column) + 2)}}" for cell, column in zip(cells, COLUMNS, strict=True)
    )


def test_ten_thousand_inputs(tmp_path, capsys):
    started = time.monotonic()
    tallies = {
        kind: fuzz(kind, round(INPUTS * share), tmp_path / kind, tmp_path / "cache") for kind, share in SHARES.items()
    }
    total = Tally()
    for tally in tallies.values():
        total.inputs += tally.inputs
        total.statuses += tally.statuses
        total.tracebacks += tally.tracebacks
        total.several_lines += tally.several_lines
        total.unnamed_lines += tally.unnamed_lines
        total.left_files += tally.left_files
        total.breaking += tally.breaking
    with capsys.disabled():
        print(f"\ntoolsurface fuzz: {total.inputs} inputs, seed {SEED}, {time.monotonic() - started:.0f} s")
        print(f"{'kind':<13}" + "".join(f"{column:>{max(8, len(column) + 2)}}" for column in COLUMNS))
        for kind, tally in tallies.items():
            print(row(kind, tally))
        print(row("total", total))
    assert not total.breaking, "\n".join(f"{attempt.args!r}: {found}" for attempt, found in total.breaking[:20])
