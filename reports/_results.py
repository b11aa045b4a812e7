"""results.json: the run's record, streamed case by case and published atomically.

Cases are written as they finish into a temporary file beside the target; only a run that
completes renames it into place, so an interrupted or failed run never leaves a partial report.
"""

from __future__ import annotations

import os
import platform
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from toolsurface.harness._api import Session
from toolsurface.harness._errors import UsageError
from toolsurface.harness._expectations import Judged
from toolsurface.harness._gate import CaseOutcome, Gate
from toolsurface.harness._types import CaseResult, Verdict, VerdictKind, totals
from toolsurface.harness._version import version
from toolsurface.scenarios import Ruling

from ._files import publish

SCHEMA_VERSION = 3
RESULTS_FILE = "results.json"


def case_record(result: CaseResult, reproduce: str, index: int) -> dict[str, Any]:
    case, mutation, proof = result.case, result.case.mutation, result.evidence
    return {
        "id": case.id,
        "index": index,
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
        "defects_killed": None if result.defects_killed is None else list(result.defects_killed),
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


def gate_record(gate: Gate) -> dict[str, Any]:
    return {
        "ok": gate.ok,
        "failing": [outcome.id for outcome in gate.failing],
        "accepted": list(gate.accepted),
        "shortfalls": list(gate.shortfalls),
        "expectations": [expectation_record(judged) for judged in gate.expectations],
    }


def expectation_record(judged: Judged) -> dict[str, Any]:
    entry = judged.expectation
    return {
        "case": entry.case,
        "verdict": entry.verdict.value,
        "reason": entry.reason,
        "expires": entry.expires.isoformat(),
        "planned": judged.planned,
        "standing": judged.standing.value,
        "why": judged.why,
        "cases": list(judged.cases),
    }


def header_record(session: Session) -> dict[str, Any]:
    """Everything results.json says about the run before its cases."""
    options = session.options
    return {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "toolsurface", "version": version()},
        "environment": {"python": platform.python_version(), "platform": platform.system().lower()},
        "spec": None if options.spec is None else {"id": options.spec.id, "title": options.spec.title},
        "seed": options.seed,
        "target": session.target_name,
        "red_target": session.red_target_name,
        "select": options.select,
        "shard": options.shard,
        "date": session.today.isoformat(),
        "planned": len(session.planned),
        "thresholds": {"min_cases": options.thresholds.min_cases, "min_controlled": options.thresholds.min_controlled},
        "defects": list(session.runner.probe.defects) if session.runner.probe else None,
        "scenarios": [
            {"id": s.id, "source": s.source, "digest": s.digest, "mode": s.mode.value, "lane": s.lane.value, "outcome": s.outcome.value}
            for s in session.scenarios
        ],
    }


def _kind(verdict: Verdict | None) -> str | None:
    return verdict.kind.value if verdict else None


# results.json is written as a stream: the header's fields, the cases one per line, then the
# summary. `merge` writes through the same three pieces, so a merge of shards is byte for byte
# the file one unsharded run writes.


def opening(header: dict[str, Any]) -> bytes:
    return orjson.dumps(header)[:-1] + b',"cases":['


def case_line(record: dict[str, Any], first: bool) -> bytes:
    return (b"\n" if first else b",\n") + orjson.dumps(record)


def closing(summary: dict[str, Any]) -> bytes:
    return b"\n]," + orjson.dumps(summary)[1:] + b"\n"


def summary_record(outcomes: Sequence[CaseOutcome], red_verdicts: Sequence[VerdictKind] | None, gate: Gate) -> dict[str, Any]:
    """The fields after the cases; `red_verdicts` is None when pairing is off."""
    return {
        "totals": totals(outcome.verdict for outcome in outcomes),
        "red_totals": None if red_verdicts is None else totals(red_verdicts),
        "controlled": sum(outcome.controlled for outcome in outcomes),
        "gate": gate_record(gate),
    }


class ResultsWriter:
    """Writes `results.json` for one session; use as a context manager around the run."""

    def __init__(self, out: Path, session: Session) -> None:
        self.path = out / RESULTS_FILE
        self._session = session
        self._index = {case.id: index for index, case in enumerate(session.planned)}
        self._outcomes: list[CaseOutcome] = []
        self._red_verdicts: list[VerdictKind] = []
        self._file: IO[bytes] | None = None
        self._first = True

    def __enter__(self) -> ResultsWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".results-", suffix=".json.part", dir=self.path.parent)
        except OSError as error:
            raise UsageError(f"{self.path.parent}: cannot write results there: {error.strerror}", option="out") from None
        self._file = os.fdopen(handle, "wb")
        self._temp = Path(name)
        self._file.write(opening(header_record(self._session)))
        return self

    def write(self, result: CaseResult) -> None:
        assert self._file is not None
        case_id = result.case.id
        record = case_record(result, self._session.options.reproduce_command(case_id), self._index[case_id])
        self._file.write(case_line(record, self._first))
        self._first = False
        self._outcomes.append(CaseOutcome(case_id, result.verdict.kind, result.controlled))
        if result.red_verdict is not None:
            self._red_verdicts.append(result.red_verdict.kind)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        assert self._file is not None
        if kind is not None:
            self._file.close()
            self._temp.unlink(missing_ok=True)
            return
        self.gate = self._session.gate(self._outcomes)
        paired = self._session.red_target_name is not None
        self._file.write(closing(summary_record(self._outcomes, self._red_verdicts if paired else None, self.gate)))
        self._file.close()
        publish(self._temp, self.path)


def write_results(out: Path, session: Session, results: Iterable[CaseResult]) -> Path:
    with ResultsWriter(out, session) as writer:
        for result in results:
            writer.write(result)
    return writer.path


