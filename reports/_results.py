"""results.json: the run's record, streamed case by case and published atomically.

Cases are written as they finish into a temporary file beside the target; only a run that
completes renames it into place, so an interrupted or failed run never leaves a partial report.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from harness import CaseResult, Session, UsageError, Verdict, VerdictKind, totals, version
from scenarios import Ruling

SCHEMA_VERSION = 2
RESULTS_FILE = "results.json"


def case_record(result: CaseResult, reproduce: str) -> dict[str, Any]:
    case, mutation, proof = result.case, result.case.mutation, result.evidence
    return {
        "id": case.id,
        "scenario": case.scenario,
        "lane": case.lane.value,
        "hooks": case.hooks,
        "point": case.point,
        "kind": mutation.kind.value,
        "variant": mutation.variant,
        "delivery": mutation.delivery.value,
        "target": mutation.target,
        "expect": mutation.expect.value,
        "change": list(case.change),
        "verdict": result.verdict.kind.value,
        "reason": result.verdict.reason,
        "red_verdict": _kind(result.red_verdict),
        "red_reason": result.red_verdict.reason if result.red_verdict else None,
        "controlled": result.controlled,
        "reproduce": reproduce,
        "outcome": proof.ending.value,
        "evidence": {
            "dispatches": proof.dispatches,
            "settlements": list(proof.settlements),
            "error_type": proof.error_type,
            "error": proof.error,
            "diff": list(proof.diff),
            "points": list(proof.points),
            "availability": [ruling_record(ruling) for ruling in proof.availability],
        },
    }


def ruling_record(ruling: Ruling) -> dict[str, Any]:
    """Which owner fact, bound to whom, narrowed what — or why it was ignored."""
    fact = ruling.fact
    return {
        "fact": fact.kind.value,
        "owner": fact.owner,
        "bound_to": {
            "run": fact.bound_to.run,
            "scope": fact.bound_to.scope,
            "invocation": fact.bound_to.invocation,
            "connection": fact.bound_to.connection,
        },
        "source_refs": list(fact.source_refs),
        "trusted": ruling.trusted,
        "ignored_because": ruling.ignored_because or None,
        "hides": list(ruling.hides),
        "keeps": list(ruling.keeps),
    }


def _kind(verdict: Verdict | None) -> str | None:
    return verdict.kind.value if verdict else None


class ResultsWriter:
    """Writes `results.json` for one session; use as a context manager around the run."""

    def __init__(self, out: Path, session: Session) -> None:
        self.path = out / RESULTS_FILE
        self._session = session
        self._verdicts: list[VerdictKind] = []
        self._red_verdicts: list[VerdictKind] = []
        self._controlled = 0
        self._file: IO[bytes] | None = None
        self._first = True

    def __enter__(self) -> ResultsWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".results-", suffix=".json.part", dir=self.path.parent)
        except OSError as error:
            raise UsageError(f"--out {self.path.parent}: cannot write results there: {error.strerror}") from None
        self._file = os.fdopen(handle, "wb")
        self._temp = Path(name)
        options = self._session.options
        header = {
            "schema_version": SCHEMA_VERSION,
            "tool": {"name": "toolsurface", "version": version()},
            "seed": options.seed,
            "target": self._session.target_name,
            "red_target": self._session.red_target_name,
            "select": options.select,
            "shard": options.shard,
            "scenarios": [
                {"id": s.id, "source": s.source, "mode": s.mode.value, "lane": s.lane.value, "outcome": s.outcome.value}
                for s in self._session.scenarios
            ],
        }
        self._file.write(orjson.dumps(header)[:-1] + b',"cases":[')
        return self

    def write(self, result: CaseResult) -> None:
        assert self._file is not None
        record = case_record(result, self._session.options.reproduce_command(result.case.id))
        self._file.write((b"\n" if self._first else b",\n") + orjson.dumps(record))
        self._first = False
        self._verdicts.append(result.verdict.kind)
        if result.red_verdict is not None:
            self._red_verdicts.append(result.red_verdict.kind)
        self._controlled += result.controlled

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        assert self._file is not None
        if kind is not None:
            self._file.close()
            self._temp.unlink(missing_ok=True)
            return
        summary = {
            "totals": totals(self._verdicts),
            "red_totals": totals(self._red_verdicts) if self._session.red_target_name else None,
            "controlled": self._controlled,
        }
        self._file.write(b"\n]," + orjson.dumps(summary)[1:] + b"\n")
        self._file.close()
        os.replace(self._temp, self.path)


def write_results(out: Path, session: Session, results: Iterable[CaseResult]) -> Path:
    with ResultsWriter(out, session) as writer:
        for result in results:
            writer.write(result)
    return writer.path


