"""`toolsurface merge`: the shards of one run combined into the results.json the whole run writes.

Shards are accepted only as a complete set of one run: every part K of the same N exactly once,
the same plan (tool, environment, seed, targets, selection, scenarios and their digests,
expectations, thresholds, date), and no case in two shards. The cases go back into plan order
and the totals and the gate are judged anew over all of them — a stale expectation is only
stale once every shard has had its say.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolsurface.harness._errors import UsageError
from toolsurface.harness._expectations import Expectation
from toolsurface.harness._gate import CaseOutcome, Thresholds, judge_gate
from toolsurface.harness._types import VerdictKind

from ._results import case_line, closing, opening, summary_record

#: Header fields that may differ between the shards of one run.
_PER_SHARD = frozenset({"shard", "scenarios", "cases", "totals", "red_totals", "controlled", "gate"})


def merge_results(shards: Sequence[tuple[Path, dict[str, Any]]]) -> bytes:
    """The merged results.json, as bytes; a `UsageError` naming the shard at fault otherwise."""
    if not shards:
        raise UsageError("merge needs at least one results.json")
    _check_parts(shards)
    first_path, first = shards[0]
    for path, document in shards[1:]:
        _check_same_run(first_path, first, path, document)
    records = _cases_in_plan_order(shards)
    header = {key: value for key, value in first.items() if key not in ("cases", "totals", "red_totals", "controlled", "gate")}
    header["shard"] = None
    outcomes = [CaseOutcome(r["id"], VerdictKind(r["verdict"]), r["controlled"]) for r in records]
    entries = first["gate"]["expectations"]
    gate = judge_gate(
        outcomes,
        [Expectation(e["case"], VerdictKind(e["verdict"]), e["reason"], datetime.date.fromisoformat(e["expires"])) for e in entries],
        [e["planned"] for e in entries],
        datetime.date.fromisoformat(first["date"]),
        Thresholds(**first["thresholds"]),
        partial=False,
    )
    red = None if first["red_target"] is None else [VerdictKind(r["red_verdict"]) for r in records]
    body = b"".join(case_line(record, index == 0) for index, record in enumerate(records))
    return opening(header) + body + closing(summary_record(outcomes, red, gate))


def _check_parts(shards: Sequence[tuple[Path, dict[str, Any]]]) -> None:
    parts: dict[int, Path] = {}
    counts = set()
    for path, document in shards:
        shard = document["shard"]
        if shard is None:
            raise UsageError(f"{path}:$.shard: not a shard (run it with --shard K/N)")
        index, count = map(int, shard.split("/"))
        counts.add(count)
        if index in parts:
            raise UsageError(f"{path}:$.shard: shard {shard} is also {parts[index]}")
        parts[index] = path
    if len(counts) > 1:
        raise UsageError(f"shards of different splits: {', '.join(f'/{n}' for n in sorted(counts))}")
    (count,) = counts
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in parts]
    if missing:
        raise UsageError(f"shard {', '.join(missing)} missing: merge needs every part of the split")


def _check_same_run(first_path: Path, first: dict[str, Any], path: Path, document: dict[str, Any]) -> None:
    for key in first.keys() - _PER_SHARD:
        if document[key] != first[key]:
            raise UsageError(f"{path}:$.{key}: differs from {first_path} ({document[key]!r} vs {first[key]!r}): not shards of one run")
    if _recordings(document) != _recordings(first):
        raise UsageError(f"{path}:$.scenarios: other recordings than {first_path} (ids or digests differ): not shards of one run")
    if _entries(document) != _entries(first):
        raise UsageError(f"{path}:$.gate.expectations: other expectations than {first_path}: not shards of one run")


def _entries(document: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The expectations as written, without how they stood in one shard."""
    return [(e["case"], e["verdict"], e["reason"], e["expires"], e["planned"]) for e in document["gate"]["expectations"]]


def _recordings(document: dict[str, Any]) -> list[tuple[str, ...]]:
    """The scenarios without their file paths, which differ from machine to machine."""
    return [(s["id"], s["digest"], s["mode"], s["lane"], s["outcome"]) for s in document["scenarios"]]


def _cases_in_plan_order(shards: Sequence[tuple[Path, dict[str, Any]]]) -> list[dict[str, Any]]:
    seen: dict[str, Path] = {}
    records = []
    for path, document in shards:
        for record in document["cases"]:
            if record["id"] in seen:
                raise UsageError(f"{path}: case {record['id']!r} is also in {seen[record['id']]}: shards overlap")
            seen[record["id"]] = path
            records.append(record)
    return sorted(records, key=lambda record: record["index"])
