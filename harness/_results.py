"""results.json on disk: streamed case by case and published whole, read back typed, and merged.

Cases are written as they finish into a temporary file beside the target; only a run that
completes renames it into place, so an interrupted or failed run never leaves a partial file.
The run's info, the cases one per line, then the summary with the digest of those lines: `merge`
writes through the same three pieces, so the merge of a run's shards is byte for byte the file
one unsharded run writes.

Reading trusts a file only as far as it holds together: every case's verdict must be one its own
evidence could have been given (`_integrity`), the case lines must still have their digest, and
the summary must add up to the cases.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson

from ._api import Session
from ._codec import DecodeError, decode, dumps
from ._errors import UsageError
from ._expectations import Expectation
from ._files import cannot_write, publish, temporary
from ._integrity import check_cases
from ._oracles import amended as amended_record
from ._record import SCHEMA_VERSION, Results, RunInfo, Summary, summarize
from ._types import Amendment, CaseRecord, Tally

RESULTS_FILE = "results.json"


def opening(run: RunInfo) -> bytes:
    return b'{"schema_version":%d,"run":%s,"cases":[' % (SCHEMA_VERSION, dumps(run))


def case_line(record: CaseRecord, first: bool) -> bytes:
    return (b"\n" if first else b",\n") + dumps(record)


def closing(summary: Summary) -> bytes:
    return b'\n],"summary":%s}\n' % dumps(summary)


def encode(results: Results) -> bytes:
    body = b"".join(case_line(record, index == 0) for index, record in enumerate(results.cases))
    return opening(results.run) + body + closing(results.summary)


def digest_of(cases: Sequence[CaseRecord]) -> str:
    """The sha256 (hex) of the case lines as `encode` and `ResultsWriter` write them."""
    digest = hashlib.sha256()
    for index, record in enumerate(cases):
        digest.update(case_line(record, index == 0))
    return digest.hexdigest()


class ResultsWriter:
    """Writes `results.json` for one session; use as a context manager around the run.

    Any failed write (a full disk, a file size limit) is a `UsageError` naming results.json, and
    leaves no temporary behind.
    """

    def __init__(self, out: Path, session: Session, publish: Callable[[Path, Path], None] = publish) -> None:
        self.path = out / RESULTS_FILE
        self._session = session
        self._tallies: list[Tally] = []
        self._digest = hashlib.sha256()
        self._file: IO[bytes] | None = None
        #: What cases did after their records were written, by plan index: applied when the run ends.
        self._late: dict[int, list[Amendment]] = {}
        #: Where each written case is among the written ones, by plan index.
        self._written: dict[int, int] = {}
        #: Renames the finished temporary into place; `Publication.stage` instead, to publish it with the reports.
        self._publish = publish

    def __enter__(self) -> ResultsWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file, self._temp = temporary(self.path)
        except OSError as error:
            raise cannot_write(self.path.parent, error, "out") from None
        with self._writing():
            self._file.write(opening(self._session.info))
        return self

    def write(self, item: CaseRecord | Amendment) -> None:
        assert self._file is not None
        if isinstance(item, Amendment):
            self._late.setdefault(item.index, []).append(item)
            return
        line = case_line(item, not self._tallies)
        with self._writing():
            self._file.write(line)
        self._digest.update(line)
        self._written[item.case.index] = len(self._tallies)
        self._tallies.append(item.tally)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        assert self._file is not None
        if kind is not None:
            self._discard()
            return
        with self._writing():
            if self._late:
                self._amend()
            self.summary = self._session.summarize(self._tallies, self._digest.hexdigest())
            self._file.write(closing(self.summary))
            self._file.close()  # flushes: a full disk may only show here
            self._publish(self._temp, self.path)

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Remove the temporary if the block fails; an `OSError` becomes an input error naming results.json."""
        try:
            yield
        except BaseException as error:
            self._discard()
            if isinstance(error, OSError):
                raise cannot_write(self.path, error, "out") from None
            raise

    def _discard(self) -> None:
        assert self._file is not None
        with contextlib.suppress(OSError):  # closing flushes again what a full disk refused
            self._file.close()
        self._temp.unlink(missing_ok=True)

    def _amend(self) -> None:
        """Rewrite the cases written so far with what came late: each line is one case, so the
        file is copied line by line and only the amended ones are decoded again."""
        assert self._file is not None
        self._file.close()
        amend_at = {self._written[index]: late for index, late in self._late.items() if index in self._written}
        target, amended = temporary(self.path)
        self._digest = hashlib.sha256()
        try:
            with self._temp.open("rb") as source, target:
                target.write(source.readline().rstrip(b"\n"))  # the opening
                for at, line in enumerate(source):  # each a case, then `,\n` unless it is the last
                    body = line.rstrip(b",\n")
                    if at in amend_at:
                        record = amended_record(decode(CaseRecord, orjson.loads(body)), amend_at[at])
                        self._tallies[at] = record.tally
                        line = dumps(record) + line[len(body) :]
                    # The same bytes as the case lines they replace: `\n` + case, `,\n` + case, …
                    written = b"\n" + line.rstrip(b"\n")
                    target.write(written)
                    self._digest.update(written)
            amended.replace(self._temp)
        except BaseException:
            amended.unlink(missing_ok=True)
            raise
        self._file = self._temp.open("ab")


def write_results(out: Path, session: Session, records: Iterable[CaseRecord | Amendment]) -> Path:
    with ResultsWriter(out, session) as writer:
        for record in records:
            writer.write(record)
    return writer.path


def read_results(path: Path) -> Results:
    """The record in `path`; a `UsageError` naming the file and JSON path when it is not one: a
    case whose verdict its evidence contradicts, case lines that no longer have their digest, or a
    summary that does not add up to the cases."""
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except orjson.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != SCHEMA_VERSION:
        raise UsageError(f"{path}:$.schema_version: expected results.json schema version {SCHEMA_VERSION}, found {version!r}")
    try:
        results = decode(Results, document)
    except DecodeError as error:
        raise UsageError(f"{path}:{error}") from None
    if (inconsistency := check_cases(results.run, results.cases)) is not None:
        raise UsageError(f"{path}:{inconsistency.where}: {inconsistency.what}")
    if (digest := digest_of(results.cases)) != results.summary.digest:
        edited = f"the case lines hash to {digest}, not to the digest written: a case was edited"
        raise UsageError(f"{path}:$.summary.digest: {edited}")
    if (judged := _summary_of(results.run, results.cases, _expectations(results), digest)) != results.summary:
        where, stored, given = _first_difference(results.summary, judged)
        raise UsageError(f"{path}:{where}: {stored} does not add up to the cases, which give {given}")
    return results


def _summary_of(
    run: RunInfo, cases: Sequence[CaseRecord], expectations: Sequence[tuple[Expectation, int]], digest: str
) -> Summary:
    tallies = [case.tally for case in cases]
    return summarize(run, tallies, [e for e, _ in expectations], [n for _, n in expectations], digest)


def _expectations(results: Results) -> tuple[tuple[Expectation, int], ...]:
    """The expectations the run judged, as written, with how many planned cases each names."""
    return tuple((judged.expectation, judged.planned) for judged in results.summary.gate.expectations)


def _first_difference(stored: Any, judged: Any, path: str = "$.summary") -> tuple[str, str, str]:
    """Where two summaries first differ, and the two values there, short, for a one-line error."""
    if dataclasses.is_dataclass(stored) and type(stored) is type(judged):
        for field in dataclasses.fields(stored):
            left, right = getattr(stored, field.name), getattr(judged, field.name)
            if left != right:
                return _first_difference(left, right, f"{path}.{field.name}")
    return path, _short(stored), _short(judged)


def _short(value: Any) -> str:
    text = dumps(value).decode()
    return text if len(text) <= 60 else text[:59] + "…"


def merge_results(shards: Sequence[tuple[Path, Results]]) -> Results:
    """The record of the whole run whose shards these are; a `UsageError` naming the shard at fault otherwise.

    Shards are accepted only as a complete set of one run: every part K of the same N exactly
    once, the same plan (tool, environment, seed, targets, selection, recordings and their
    digests, expectations, thresholds, date), and no case in two shards. The cases go back into
    plan order and the summary is judged anew over all of them: a stale expectation is only stale
    once every shard has had its say.
    """
    if not shards:
        raise UsageError("merge needs at least one results.json")
    _check_parts(shards)
    first_path, first = shards[0]
    for path, results in shards[1:]:
        _check_same_run(first_path, first, path, results)
    cases = sorted(_every_case_once(shards), key=lambda record: record.case.index)
    run = dataclasses.replace(first.run, shard=None)
    # Each shard's digest was checked on reading; the merged file gets the digest of its own lines.
    return Results(SCHEMA_VERSION, run, tuple(cases), _summary_of(run, cases, _expectations(first), digest_of(cases)))


def _check_parts(shards: Sequence[tuple[Path, Results]]) -> None:
    parts: dict[int, Path] = {}
    counts = set()
    for path, results in shards:
        shard = results.run.shard
        if shard is None:
            raise UsageError(f"{path}:$.run.shard: not a shard (run it with --shard K/N)")
        counts.add(shard.count)
        if shard.index in parts:
            raise UsageError(f"{path}:$.run.shard: shard {shard} is also {parts[shard.index]}")
        parts[shard.index] = path
    if len(counts) > 1:
        raise UsageError(f"shards of different splits: {', '.join(f'/{n}' for n in sorted(counts))}")
    (count,) = counts
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in parts]
    if missing:
        raise UsageError(f"shard {', '.join(missing)} missing: merge needs every part of the split")


def _check_same_run(first_path: Path, first: Results, path: Path, results: Results) -> None:
    mine, theirs = _what_ran(first.run), _what_ran(results.run)
    for field in dataclasses.fields(RunInfo):
        left, right = getattr(theirs, field.name), getattr(mine, field.name)
        if left != right:
            shown = "other recordings (ids or digests differ)" if field.name == "scenarios" else f"{left!r} vs {right!r}"
            raise UsageError(f"{path}:$.run.{field.name}: differs from {first_path} ({shown}): not shards of one run")
    if _expectations(results) != _expectations(first):
        raise UsageError(f"{path}:$.summary.gate.expectations: other expectations than {first_path}: not shards of one run")


def _what_ran(run: RunInfo) -> RunInfo:
    """The run without what differs between the shards of one run or between machines: which
    shard it is, and where the recordings and scenario paths lie."""
    scenarios = tuple(dataclasses.replace(s, source="") for s in run.scenarios)
    return dataclasses.replace(run, shard=None, scenario_paths=(), scenarios=scenarios)


def _every_case_once(shards: Sequence[tuple[Path, Results]]) -> list[CaseRecord]:
    seen: dict[str, Path] = {}
    cases = []
    for path, results in shards:
        for record in results.cases:
            if record.id in seen:
                raise UsageError(f"{path}: case {record.id!r} is also in {seen[record.id]}: shards overlap")
            seen[record.id] = path
            cases.append(record)
    return cases
