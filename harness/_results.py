"""results.json on disk: streamed case by case and published whole, read back typed, and merged.

Cases are written as they finish into a temporary file beside the target; only a run that
completes renames it into place, so an interrupted or failed run never leaves a partial file.
The run's info, the cases one per line, then the summary with the digest of those lines and,
when a key is given, the signature of all of it (`_signing`): `merge` writes through the same three
pieces, so the merge of a run's shards is byte for byte the file one unsharded run writes.

Reading trusts a file only as far as it holds together: every case's verdict must be one its own
evidence could have been given (`_integrity`), the case lines must still have their digest, the
summary must add up to the cases, and the signature must be what the reader's key makes of it.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import hashlib
import heapq
import itertools
from array import array
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any, NoReturn, TypeVar

import orjson

from toolsurface.common._errors import UsageError
from toolsurface.common._files import cannot_write, publish, temporary

from ._api import Session
from ._codec import DecodeError, decode, dumps
from ._expectations import Expectation
from ._gate import Tallies
from ._integrity import CaseCheck, check_cases, check_count, share_of
from ._oracles import amended as amended_record
from ._record import SCHEMA_VERSION, Results, RunInfo, Summary, summarize
from ._signing import Signed, Signer, Trust
from ._types import Amendment, CaseRecord

T = TypeVar("T")

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


def signed(summary: Summary, signer: Signer) -> Summary:
    """The summary with the signature of everything before it (fed to `signer`) and of itself."""
    if not signer.signing:
        return summary
    signer.update(closing(summary.unsigned()))
    return dataclasses.replace(summary, signature=signer.signature())


def signature_of(key: bytes | None, run: RunInfo, cases: Iterable[CaseRecord], summary: Summary) -> str | None:
    """The signature of the record as `encode` writes it, worked out anew: for a file laid out otherwise."""
    signer = Signer(key)
    signer.update(opening(run))
    for index, record in enumerate(cases):
        signer.update(case_line(record, index == 0))
    signer.update(closing(summary.unsigned()))
    return signer.signature()


def digest_of(cases: Iterable[CaseRecord]) -> str:
    """The sha256 (hex) of the case lines as `encode` and `ResultsWriter` write them."""
    digest = hashlib.sha256()
    for index, record in enumerate(cases):
        digest.update(case_line(record, index == 0))
    return digest.hexdigest()


class ResultsWriter:
    """Writes `results.json` for one session; use as a context manager around the run.

    Any failed write (a full disk, a file size limit) is a `UsageError` naming results.json, and
    leaves no temporary behind. With a `key`, the file is signed as it is written.
    """

    def __init__(
        self, out: Path, session: Session, publish: Callable[[Path, Path], None] = publish, key: bytes | None = None
    ) -> None:
        self.path = out / RESULTS_FILE
        self._session = session
        self._tallies = session.tallies()
        self._digest = hashlib.sha256()
        self._key = key
        self._signer = Signer(key)
        self._file: IO[bytes] | None = None
        #: What cases did after their records were written, by plan index: applied when the run ends.
        self._late: dict[int, list[Amendment]] = {}
        #: The plan index of each case written, in order (increasing: cases are written in plan order).
        self._written = array("q")
        #: Renames the finished temporary into place; `Publication.stage` instead, to publish it with the reports.
        self._publish = publish

    def __enter__(self) -> ResultsWriter:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file, self._temp = temporary(self.path)
        except OSError as error:
            raise cannot_write(self.path.parent, error, "out") from None
        head = opening(self._session.info)
        with self._writing():
            self._file.write(head)
        self._signer.update(head)
        return self

    def write(self, item: CaseRecord | Amendment) -> None:
        assert self._file is not None
        if isinstance(item, Amendment):
            self._late.setdefault(item.index, []).append(item)
            return
        line = case_line(item, not self._written)
        with self._writing():
            self._file.write(line)
        self._digest.update(line)
        self._signer.update(line)
        self._written.append(item.case.index)
        self._tallies.add(item.case.index, item.tally)

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        assert self._file is not None
        if kind is not None:
            self._discard()
            return
        with self._writing():
            if self._late:
                self._amend()
            self.summary = signed(self._session.summarize(self._tallies, self._digest.hexdigest()), self._signer)
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
        amend_at = {at: late for index, late in self._late.items() if (at := self._position(index)) is not None}
        target, amended = temporary(self.path)
        self._digest, self._signer = hashlib.sha256(), Signer(self._key)
        try:
            with self._temp.open("rb") as source, target:
                head = source.readline().rstrip(b"\n")  # the opening
                target.write(head)
                self._signer.update(head)
                for at, line in enumerate(source):  # each a case, then `,\n` unless it is the last
                    body = line.rstrip(b",\n")
                    if at in amend_at:
                        before = decode(CaseRecord, orjson.loads(body))
                        record = amended_record(before, amend_at[at])
                        self._tallies.replace(record.case.index, before.tally, record.tally)
                        line = dumps(record) + line[len(body) :]
                    # The same bytes as the case lines they replace: `\n` + case, `,\n` + case, …
                    written = b"\n" + line.rstrip(b"\n")
                    target.write(written)
                    self._digest.update(written)
                    self._signer.update(written)
            amended.replace(self._temp)
        except BaseException:
            amended.unlink(missing_ok=True)
            raise
        self._file = self._temp.open("ab")

    def _position(self, index: int) -> int | None:
        """Where the case with this plan index is among the written ones; None if it was not written."""
        at = bisect.bisect_left(self._written, index)
        return at if at < len(self._written) and self._written[at] == index else None


def write_results(
    out: Path, session: Session, records: Iterable[CaseRecord | Amendment], key: bytes | None = None
) -> Path:
    with ResultsWriter(out, session, key=key) as writer:
        for record in records:
            writer.write(record)
    return writer.path


@dataclass(frozen=True)
class ResultsFile:
    """A results.json checked whole, whose cases stay on disk: each pass over `cases` reads them
    again, one line at a time, so reading a run of any size takes about as much memory as one case."""

    path: Path
    schema_version: int
    run: RunInfo
    summary: Summary
    cases: Collection[CaseRecord]
    #: The tallies of the cases, taken on reading: what the summary was checked against.
    tallies: Tallies
    #: Where each case's line starts, in file order (none for a file read whole), and each case's
    #: place in the plan (`merge` interleaves shards by it).
    offsets: array[int]
    indices: array[int]
    #: Whether it was signed, and if so, whether the signature was verified.
    signed: Signed = Signed.NO


class StoredCases(Collection[CaseRecord]):
    """The case lines of a results.json in the layout `run` writes, decoded as they are read."""

    def __init__(self, path: Path, offsets: array[int]) -> None:
        self._path, self._offsets = path, offsets

    def __len__(self) -> int:
        return len(self._offsets)

    def __iter__(self) -> Iterator[CaseRecord]:
        for line in self.lines():
            yield decode(CaseRecord, orjson.loads(line))

    def __contains__(self, item: object) -> bool:
        return any(record == item for record in self)

    def at(self, positions: Iterable[int]) -> Iterator[CaseRecord]:
        """The cases at these positions in file order, each read where its line starts."""
        with self._path.open("rb") as file:
            for position in positions:
                file.seek(self._offsets[position])
                yield decode(CaseRecord, orjson.loads(file.readline().rstrip(b",\n")))

    def lines(self) -> Iterator[bytes]:
        """Each case as the JSON text written, in file order."""
        if not self._offsets:
            return
        with self._path.open("rb") as file:
            file.seek(self._offsets[0])
            for _ in range(len(self._offsets)):
                yield file.readline().rstrip(b",\n")


#: How the line opening the cases ends, and how the line after the last case begins, in the layout `run` writes.
_CASES_OPEN = b',"cases":[\n'
_CASES_CLOSE = b'],"summary":'

#: No key and no demand for one: a signed file is read unverified.
_UNVERIFIED = Trust()


def read_results(path: Path, trust: Trust = _UNVERIFIED) -> Results:
    """The record in `path`, every case in memory; see `open_results`."""
    opened = open_results(path, trust=trust)
    return Results(opened.schema_version, opened.run, tuple(opened.cases), opened.summary)


#: Told how many cases a file should hold, returns what to call as each one is read.
Progress = Callable[[int], Callable[[], None]]


def open_results(path: Path, progress: Progress | None = None, trust: Trust = _UNVERIFIED) -> ResultsFile:
    """The record in `path`, checked; a `UsageError` naming the file and JSON path when it is not
    one: a case whose verdict its evidence contradicts, case lines that no longer have their digest,
    a summary that does not add up to the cases, or a signature `trust` does not accept (see
    `Trust`). `progress` shows how far the reading is.

    A file in the layout `run` writes (one case per line) is read a case at a time; any other
    layout of the same JSON (reformatted by hand or by a tool) is read whole."""
    try:
        with path.open("rb") as file:
            opened = _read_lines(path, file, progress or _unshown, trust)
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    return opened if opened is not None else _read_whole(path, trust)


def _unshown(total: int) -> Callable[[], None]:
    return lambda: None


def _read_lines(path: Path, file: IO[bytes], progress: Progress, trust: Trust) -> ResultsFile | None:
    """The record read case by case, or None when the file is not in the layout `run` writes."""
    first = file.readline()
    if not first.endswith(_CASES_OPEN):
        return None
    summary_at, closing = _closing_line(file)
    if closing is None:
        return None
    try:
        head = orjson.loads(first[: -len(_CASES_OPEN)] + b"}")
        tail = orjson.loads(b"{" + closing[len(b"]") + 1 :])
    except orjson.JSONDecodeError:
        return None
    if not (
        isinstance(head, dict)
        and isinstance(tail, dict)
        and head.keys() == {"schema_version", "run"}
        and tail.keys() == {"summary"}
    ):
        return None
    _check_version(path, head)
    run, summary = _decoded(path, RunInfo, head["run"], "$.run"), _decoded(path, Summary, tail["summary"], "$.summary")
    # Fed the file as it is read: the opening (the first line but its `\n`, which begins the first case's), each case
    # line.
    signer = Signer(trust.key if summary.signature is not None else None)
    signer.update(first[:-1])
    read = _read_cases(path, file, (len(first), summary_at), run, summary, progress, signer)
    if read is None:
        return None  # read whole, to name where the JSON breaks
    tallies, digest, offsets, indices = read
    cases = StoredCases(path, offsets)

    def signature() -> str | None:
        if digest == summary.digest and first[:-1] == opening(run):
            return signed(summary.unsigned(), signer).signature
        # Bytes written otherwise than `run` writes them (a tool reformatted a line): what was signed is their record.
        return signature_of(trust.key, run, cases, summary)

    state = trust.check(path, summary.signature, signature)
    if (inconsistency := check_count(run, len(cases))) is not None:
        raise UsageError(f"{path}:{inconsistency.where}: {inconsistency.what}")
    if digest != summary.digest and (canonical := digest_of(cases)) != summary.digest:
        _edited(path, canonical)
    _check_summary(path, run, tallies, summary)
    return ResultsFile(path, SCHEMA_VERSION, run, summary, cases, tallies, offsets, indices, state)


def _read_cases(
    path: Path,
    file: IO[bytes],
    span: tuple[int, int],
    run: RunInfo,
    summary: Summary,
    progress: Progress,
    signer: Signer,
) -> tuple[Tallies, str, array[int], array[int]] | None:
    """The case lines in `span` of the file, each checked as it is read and fed to `signer`: their
    tallies, their digest, where each starts and each one's place in the plan; None when one is not JSON."""
    tallies = Tallies(tuple(e for e, _ in _expectations(summary)))
    check, digest = CaseCheck(run), hashlib.sha256()
    offsets, indices = array("q"), array("q")
    advance = progress(share_of(run))
    start, end = span
    file.seek(start)
    while (at := file.tell()) < end:
        line = file.readline()
        body = line.rstrip(b",\n")
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
        record = _decoded(path, CaseRecord, data, f"$.cases[{len(offsets)}]")
        if (inconsistency := check(len(offsets), record)) is not None:
            raise UsageError(f"{path}:{inconsistency.where}: {inconsistency.what}")
        # The digest covers `\n` + first case, `,\n` + each next one: the bytes up to the last case's end.
        written = (b"," if offsets else b"") + b"\n" + body
        digest.update(written)
        signer.update(written)
        tallies.add(record.case.index, record.tally)
        offsets.append(at)
        indices.append(record.case.index)
        advance()
    return tallies, digest.hexdigest(), offsets, indices


def _closing_line(file: IO[bytes]) -> tuple[int, bytes | None]:
    """Where the file's last line starts, and that line if it is the one after the last case
    (None when it is not). Read backwards in blocks: the summary's line can be long, the cases long."""
    end = file.seek(0, 2)
    file.seek(max(0, end - 1))
    stop = end - 1 if file.read(1) == b"\n" else end
    at = stop
    while at > 0:
        start = max(0, at - 65536)
        file.seek(start)
        found = file.read(at - start).rfind(b"\n")
        if found != -1:
            line_at = start + found + 1
            file.seek(line_at)
            line = file.read(stop - line_at)
            return (line_at, line) if line.startswith(_CASES_CLOSE) else (end, None)
        at = start
    return end, None


def _read_whole(path: Path, trust: Trust) -> ResultsFile:
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except orjson.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}") from None
    _check_version(path, document)
    results = _decoded(path, Results, document, "$")
    if (inconsistency := check_cases(results.run, results.cases)) is not None:
        raise UsageError(f"{path}:{inconsistency.where}: {inconsistency.what}")
    run, cases, summary = results.run, results.cases, results.summary
    state = trust.check(path, summary.signature, lambda: signature_of(trust.key, run, cases, summary))
    if (digest := digest_of(cases)) != summary.digest:
        _edited(path, digest)
    tallies = Tallies.of((case.tally for case in cases), tuple(e for e, _ in _expectations(summary)))
    _check_summary(path, run, tallies, summary)
    indices = array("q", (case.case.index for case in cases))
    return ResultsFile(path, results.schema_version, run, summary, cases, tallies, array("q"), indices, state)


def _check_version(path: Path, document: Any) -> None:
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != SCHEMA_VERSION:
        other = (
            ": written by another version of toolsurface"
            if isinstance(version, int) and not isinstance(version, bool)
            else ""
        )
        raise UsageError(
            f"{path}:$.schema_version: expected results.json schema version {SCHEMA_VERSION}, found {version!r}{other}"
        )


def _decoded(path: Path, cls: type[T], data: Any, where: str) -> T:
    try:
        return decode(cls, data, where)
    except DecodeError as error:
        raise UsageError(f"{path}:{error}") from None


def _edited(path: Path, digest: str) -> NoReturn:
    edited = f"the case lines hash to {digest}, not to the digest written: a case was edited"
    raise UsageError(f"{path}:$.summary.digest: {edited}")


def _check_summary(path: Path, run: RunInfo, tallies: Tallies, summary: Summary) -> None:
    """Refuse a summary that is not the one its cases give (its signature aside: that is checked apart)."""
    planned = [n for _, n in _expectations(summary)]
    if (judged := summarize(run, tallies, planned, summary.digest)) != summary.unsigned():
        where, stored, given = _first_difference(summary.unsigned(), judged)
        raise UsageError(f"{path}:{where}: {stored} does not add up to the cases, which give {given}")


def _expectations(summary: Summary) -> tuple[tuple[Expectation, int], ...]:
    """The expectations the run judged, as written, with how many planned cases each names."""
    return tuple((judged.expectation, judged.planned) for judged in summary.gate.expectations)


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


def merge_results(shards: Sequence[ResultsFile], key: bytes | None = None) -> Merged:
    """The results.json of the whole run whose shards these are, to be written chunk by chunk; a
    `UsageError` naming the shard at fault otherwise.

    Shards are accepted only as a complete set of one run: every part K of the same N exactly
    once, the same plan (tool, environment, seed, targets, selection, recordings and their
    digests, expectations, thresholds, date), and no case in two shards. The cases go back into
    plan order and the summary is judged anew over all of them: a stale expectation is only stale
    once every shard has had its say. Each shard was checked on reading, so its case lines are
    copied as they are, never decoded again. With a `key`, the merge is signed as it is written:
    with the key the shards were run with, it is byte for byte the signed file of the unsharded run.
    """
    if not shards:
        raise UsageError("merge needs at least one results.json")
    _check_parts(shards)
    for results in shards[1:]:
        _check_same_run(shards[0], results)
    _check_disjoint(shards)
    return Merged(shards, key)


class Merged:
    """The merge of checked shards: its bytes, chunk by chunk, and then the record they make."""

    def __init__(self, shards: Sequence[ResultsFile], key: bytes | None = None) -> None:
        self._shards, self._key = shards, key
        self.run = dataclasses.replace(shards[0].run, shard=None)
        self.tallies = Tallies.merged([shard.tallies for shard in shards])
        self._offsets, self._indices = array("q"), array("q")
        self._summary: Summary | None = None

    def __iter__(self) -> Iterator[bytes]:
        digest, signer = hashlib.sha256(), Signer(self._key)
        head = opening(self.run)
        signer.update(head)
        yield head
        at = len(head)
        lines = heapq.merge(
            *(zip(shard.indices, _lines_of(shard), strict=True) for shard in self._shards), key=lambda pair: pair[0]
        )
        for position, (index, body) in enumerate(lines):
            line = (b",\n" if position else b"\n") + body
            self._offsets.append(at + len(line) - len(body))
            self._indices.append(index)
            at += len(line)
            digest.update(line)
            signer.update(line)
            yield line
        planned = [n for _, n in _expectations(self._shards[0].summary)]
        self._summary = signed(summarize(self.run, self.tallies, planned, digest.hexdigest()), signer)
        yield closing(self._summary)

    def record(self, path: Path) -> ResultsFile:
        """The merged record, once every chunk is written to `path`: its shards were checked, so it is not read back."""
        assert self._summary is not None, "the merge is not written yet"
        cases = StoredCases(path, self._offsets)
        state = (
            Signed.NO if self._summary.signature is None else Signed.VERIFIED
        )  # signed here, with the key it was read with
        return ResultsFile(
            path, SCHEMA_VERSION, self.run, self._summary, cases, self.tallies, self._offsets, self._indices, state
        )


def _lines_of(shard: ResultsFile) -> Iterator[bytes]:
    if isinstance(shard.cases, StoredCases):
        return shard.cases.lines()
    return (dumps(record) for record in shard.cases)


def _check_parts(shards: Sequence[ResultsFile]) -> None:
    parts: dict[int, Path] = {}
    counts = set()
    for results in shards:
        path, shard = results.path, results.run.shard
        if shard is None:
            raise UsageError(f"{path}:$.run.shard: not a shard (run it with --shard K/N)")
        counts.add(shard.count)
        if shard.index in parts:
            raise UsageError(f"{path}:$.run.shard: shard {shard} is also {parts[shard.index]}")
        parts[shard.index] = path
    given = ", ".join(str(path) for path in parts.values())
    if len(counts) > 1:
        raise UsageError(
            f"{given}:$.run.shard: shards of different splits: {', '.join(f'/{n}' for n in sorted(counts))}"
        )
    (count,) = counts
    missing = [f"{index}/{count}" for index in range(1, count + 1) if index not in parts]
    if missing:
        raise UsageError(
            f"{given}:$.run.shard: shard {', '.join(missing)} missing: merge needs every part of the split"
        )


def _check_same_run(first: ResultsFile, results: ResultsFile) -> None:
    mine, theirs = _what_ran(first.run), _what_ran(results.run)
    for field in dataclasses.fields(RunInfo):
        left, right = getattr(theirs, field.name), getattr(mine, field.name)
        if left != right:
            shown = (
                "other recordings (ids or digests differ)" if field.name == "scenarios" else f"{left!r} vs {right!r}"
            )
            raise UsageError(
                f"{results.path}:$.run.{field.name}: differs from {first.path} ({shown}): not shards of one run"
            )
    if _expectations(results.summary) != _expectations(first.summary):
        raise UsageError(
            f"{results.path}:$.summary.gate.expectations: other expectations than {first.path}: not shards of one run"
        )


def _what_ran(run: RunInfo) -> RunInfo:
    """The run without what differs between the shards of one run or between machines: which
    shard it is, and where the recordings and scenario paths lie."""
    scenarios = tuple(dataclasses.replace(s, source="") for s in run.scenarios)
    return dataclasses.replace(run, shard=None, scenario_paths=(), scenarios=scenarios)


def _check_disjoint(shards: Sequence[ResultsFile]) -> None:
    """Every shard in plan order, and no planned case in two of them."""
    for shard in shards:
        if (
            at := next((k for k in range(1, len(shard.indices)) if shard.indices[k] <= shard.indices[k - 1]), None)
        ) is not None:
            raise UsageError(
                f"{shard.path}:$.cases[{at}].case.index: {shard.indices[at]} comes after "
                f"{shard.indices[at - 1]}: not in plan order"
            )
    held = heapq.merge(*(zip(shard.indices, itertools.repeat(number)) for number, shard in enumerate(shards)))
    previous: tuple[int, int] | None = None
    for index, number in held:
        if previous is not None and previous[0] == index:
            case_id = _case_at(shards[number], index)
            raise UsageError(
                f"{shards[number].path}: case {case_id!r} is also in {shards[previous[1]].path}: shards overlap"
            )
        previous = (index, number)


def _case_at(shard: ResultsFile, index: int) -> str:
    """The id of the shard's case with this place in the plan."""
    return next(record.id for record in shard.cases if record.case.index == index)
