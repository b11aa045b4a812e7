"""Work out every reference defect's kill signature and write the data file shipped beside them.

    python -m toolsurface.harness._make_kill_signatures [--jobs N]

A maintainer runs it after changing a defect, a mutator, the bundled recordings, or how an ending
or a verdict is named; `tests/harness/test_kill_signatures.py` fails until then. It runs the
guarded design and then each defect on the whole default matrix (seed 0), some thirty runs of a few
seconds to half a minute each, and keeps, per defect, the signatures of the cases it fails where
the guard passes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from ._api import DEFAULT_TARGET, RunOptions, prepare
from ._kill_signatures import (
    DATA_FILE,
    KillSignature,
    KillSignatures,
    encode,
    kill_signature,
)
from ._reference import DEFECTS
from ._targets import NO_TARGET
from ._types import CaseRecord


def run_cases(target: str, select: Sequence[str] = (), jobs: int | None = None) -> list[CaseRecord]:
    """Every case of the default matrix (or those `select` keeps) on `target`, unpaired, in plan order."""
    options = RunOptions(target=target, red_target=NO_TARGET, select=list(select), jobs=jobs, grace=0.2)
    return list(prepare(options).records())


def make(names: Iterable[str], select: Sequence[str] = (), jobs: int | None = None) -> KillSignatures:
    """The kill signatures of the defects `names`, on the cases `select` keeps (all by default)."""
    guarded = run_cases(DEFAULT_TARGET, select, jobs)
    passes = {record.id for record in guarded if record.verdict.kind.ok}
    defects: list[KillSignature] = []
    for name in names:
        failing = (record for record in run_cases(f"reference:defect/{name}", select, jobs) if record.id in passes)
        defects.append(kill_signature(name, failing))
        print(f"{name}: {len(defects[-1].signatures)} signatures", file=sys.stderr)
    return KillSignatures(seed=0, cases=len(guarded), defects=tuple(defects))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m toolsurface.harness._make_kill_signatures", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--jobs", type=int, default=None, help="worker processes per run (default: one per core)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "_reference" / DATA_FILE,
        help="where to write the data",
    )
    args = parser.parse_args(argv)
    args.out.write_bytes(encode(make(DEFECTS, jobs=args.jobs)))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
