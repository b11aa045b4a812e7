"""Scan results cached by content: the file's bytes, the settings, and the scanner's own code.

The key digests the source of the engine and of every rule (read once per process), so an edited
rule never serves a finding the old code made. A result with findings is a file of its own; a
result without, as most are, is a line of one shared file (see `Quiet`). An entry is read
defensively: anything that is not exactly the shape written (a truncated file, a torn line,
another version's layout) is a miss.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import re
import typing
from pathlib import Path
from typing import Any

import orjson

from toolsurface.common._version import version

from ._registry import packs_digest
from ._summary import Summary
from ._types import FileScanned, Finding, ScanConfig, Step

#: The scanner's code: this package and its rules. Its digest is part of every key.
_CODE = Path(__file__).parent
#: Settings that change which files finish, never what they find.
_NOT_KEYED = frozenset({"time_limit"})
#: Each stored finding's fields and their types (its path is the file's, never stored; its flow is
#: a list of steps, checked on its own).
_FIELDS = {field.name: field.type for field in dataclasses.fields(Finding) if field.name not in ("path", "flow")}
_TYPES = {"str": str, "int": int, "bool": bool}
_STEP = {field.name: _TYPES[str(field.type)] for field in dataclasses.fields(Step)}


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolsurface" / "scan"


@functools.cache
def code_digest() -> bytes:
    """A digest of every Python file of the scanner, in a stable order."""
    digest = hashlib.sha256()
    for path in sorted(_CODE.rglob("*.py")):
        digest.update(path.relative_to(_CODE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.digest()


def salt(config: ScanConfig) -> bytes:
    """What every key starts with: the settings that decide findings, the scanner's code and version,
    and the rule packs installed."""
    settings = {key: value for key, value in dataclasses.asdict(config).items() if key not in _NOT_KEYED}
    return orjson.dumps([settings, version()]) + code_digest() + packs_digest() + b"\0"


def key(salt: bytes, raw: bytes) -> str:
    return hashlib.sha256(salt + raw).hexdigest()


def load(cache_dir: Path, key: str, path: str) -> FileScanned | None:
    """The stored result for `key`, as a result for `path`; None when absent or not of the stored shape."""
    try:
        entry = orjson.loads((cache_dir / key[:2] / key).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not (
        isinstance(entry, dict)
        and isinstance(entry.get("parsed"), bool)
        and type(entry.get("dispatches")) is int
        and isinstance(entry.get("findings"), list)
        and all(_is_finding(finding) for finding in entry["findings"])
    ):
        return None
    findings = tuple(
        Finding(path=path, **{**finding, "flow": tuple(Step(**step) for step in finding["flow"])})
        for finding in entry["findings"]
    )
    return FileScanned(path, findings, parsed=entry["parsed"], dispatches=entry["dispatches"])


def _is_finding(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.keys() == {*_FIELDS, "flow"}
        and all(
            type(value[name]) is _TYPES[kind if isinstance(kind, str) else kind.__name__]
            for name, kind in _FIELDS.items()
        )
        and isinstance(value["flow"], list)
        and bool(value["flow"])
        and all(_is_step(step) for step in value["flow"])
    )


def _is_step(value: Any) -> bool:
    # A step in the finding's own file is stored without its empty `path`, as most are.
    return (
        isinstance(value, dict)
        and value.keys() in (_STEP.keys(), _STEP.keys() - {"path"})
        and all(type(value[name]) is kind for name, kind in _STEP.items() if name in value)
    )


def store(cache_dir: Path, key: str, result: FileScanned) -> None:
    findings = [
        {
            **{k: v for k, v in dataclasses.asdict(f).items() if k not in ("path", "flow")},
            "flow": [{k: v for k, v in dataclasses.asdict(step).items() if k != "path" or v} for step in f.flow],
        }
        for f in result.findings
    ]
    target = cache_dir / key[:2] / key
    temporary = target.with_suffix(f".{os.getpid()}.part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(
            orjson.dumps({"parsed": result.parsed, "dispatches": result.dispatches, "findings": findings})
        )
        os.replace(temporary, target)
    except OSError:  # a cache that cannot be written only costs time, but leaves no partial entry
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)


class Cache:
    """The cache in one folder, for one scan: a result with findings is a file of its own, one
    without a line of one shared file, `<key> <parsed 0|1> <dispatches>`.

    Most files of a tree hold nothing to report. A file each would cost a cold scan more to create
    than the rules cost to run, and a warm scan more to open; one append per scan costs neither.
    Scans that share the cache append whole lines at once, so a line is torn only by a crash, and
    a torn line is a miss. Past `_MOST` bytes the shared file starts again."""

    _QUIET = "quiet"
    _MOST = 1 << 24
    _LINE = re.compile(rb"([0-9a-f]{64}) ([01]) ([0-9]{1,9})")

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._quiet = folder / self._QUIET
        self._added: list[str] = []
        try:
            lines = self._quiet.read_bytes().split(b"\n")
        except OSError:
            lines = []
        found = (self._LINE.fullmatch(line) for line in lines)
        self._known = {line.group(1).decode(): (line.group(2) == b"1", int(line.group(3))) for line in found if line}

    def load(self, key: str, path: str) -> FileScanned | None:
        known = self._known.get(key)
        if known is not None:
            return FileScanned(path, (), parsed=known[0], dispatches=known[1])
        return load(self.folder, key, path)

    def store(self, key: str, result: FileScanned) -> None:
        if result.findings:
            store(self.folder, key, result)
        else:
            self._added.append(f"{key} {int(result.parsed)} {result.dispatches}\n")

    def save(self) -> None:
        """Append the lines stored since, in one write."""
        if not self._added:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            self.folder.mkdir(parents=True, exist_ok=True)
            full = self._quiet.exists() and self._quiet.stat().st_size > self._MOST
            descriptor = os.open(
                self._quiet, os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if full else 0), 0o644
            )
            try:
                os.write(descriptor, "".join(self._added).encode())
            finally:
                os.close(descriptor)
        self._added.clear()


class Summaries:
    """Each module's first-pass summary (`_summary`), keyed like a result, as lines of one file:
    `<key> <summary as JSON>`. A warm scan reads them all at once instead of reading every module
    again; a line that is torn or not of a summary's shape is a miss."""

    _FILE = "summaries"

    def __init__(self, folder: Path) -> None:
        self._path = folder / self._FILE
        self._added: list[bytes] = []
        self._known: dict[str, bytes] = {}
        try:
            lines = self._path.read_bytes().split(b"\n")
        except OSError:
            lines = []
        for line in lines:
            key, _, value = line.partition(b" ")
            if len(key) == 64 and value:
                self._known[key.decode("ascii", "replace")] = value

    def load(self, key: str) -> Summary | None:
        value = self._known.get(key)
        if value is None:
            return None
        try:
            return summary_of(orjson.loads(value))
        except (orjson.JSONDecodeError, TypeError, ValueError):
            return None

    def store(self, key: str, summary: Summary) -> None:
        if key in self._known:
            return  # kept already: a warm scan stores nothing again
        value = orjson.dumps(dataclasses.asdict(summary), default=sorted)
        self._known[key] = value
        self._added.append(key.encode() + b" " + value + b"\n")

    def save(self) -> None:
        if not self._added:
            return
        with contextlib.suppress(OSError):
            self._path.parent.mkdir(parents=True, exist_ok=True)
            full = self._path.exists() and self._path.stat().st_size > Cache._MOST * 4
            descriptor = os.open(
                self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if full else 0), 0o644
            )
            try:
                os.write(descriptor, b"".join(self._added))
            finally:
                os.close(descriptor)
        self._added.clear()


def summary_of(value: Any) -> Summary:
    """A summary from its JSON, every field read by its declared type; TypeError or ValueError for
    anything not of its shape."""
    if not isinstance(value, dict) or value.keys() != _SUMMARY_FIELDS:
        raise ValueError("not a summary")
    return Summary(**{name: _decoded(value[name], hint) for name, hint in _SUMMARY_TYPES.items()})


def _decoded(value: Any, hint: Any) -> Any:
    """A JSON value as the type `hint` names: `str`, `int`, `frozenset[T]`, `tuple[T, ...]`, or a
    tuple of fixed types (JSON writes tuples and sets as lists)."""
    if hint in (str, int):
        if type(value) is not hint:
            raise TypeError(f"not a {hint.__name__}")
        return value
    if not isinstance(value, list):
        raise TypeError("not a list")
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin is frozenset:
        return frozenset(_decoded(item, arguments[0]) for item in value)
    if origin is tuple and arguments[1:] == (...,):
        return tuple(_decoded(item, arguments[0]) for item in value)
    if origin is tuple and len(value) == len(arguments):
        return tuple(_decoded(item, kind) for item, kind in zip(value, arguments, strict=True))
    raise TypeError("not a row")


_SUMMARY_TYPES = typing.get_type_hints(Summary)
_SUMMARY_FIELDS = {field.name for field in dataclasses.fields(Summary)}
