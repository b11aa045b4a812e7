"""Scan results cached by content: the file's bytes, the settings, and the scanner's own code.

The key digests the source of the engine and of every rule (read once per process), so an edited
rule never serves a finding the old code made. An entry is read defensively: anything that is not
exactly the shape `store` writes (a truncated file, another version's layout) is a miss.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
from pathlib import Path
from typing import Any

import orjson

from .._version import version
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
    """What every key starts with: the settings that decide findings, the scanner's code and version."""
    settings = {key: value for key, value in dataclasses.asdict(config).items() if key not in _NOT_KEYED}
    return orjson.dumps([settings, version()]) + code_digest() + b"\0"


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
        Finding(path=path, **{**finding, "flow": tuple(Step(**step) for step in finding["flow"])}) for finding in entry["findings"]
    )
    return FileScanned(path, findings, parsed=entry["parsed"], dispatches=entry["dispatches"])


def _is_finding(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.keys() == {*_FIELDS, "flow"}
        and all(type(value[name]) is _TYPES[kind if isinstance(kind, str) else kind.__name__] for name, kind in _FIELDS.items())
        and isinstance(value["flow"], list)
        and bool(value["flow"])
        and all(_is_step(step) for step in value["flow"])
    )


def _is_step(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == _STEP.keys() and all(type(value[name]) is kind for name, kind in _STEP.items())


def store(cache_dir: Path, key: str, result: FileScanned) -> None:
    findings = [{k: v for k, v in dataclasses.asdict(f).items() if k != "path"} for f in result.findings]
    target = cache_dir / key[:2] / key
    temporary = target.with_suffix(f".{os.getpid()}.part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(orjson.dumps({"parsed": result.parsed, "dispatches": result.dispatches, "findings": findings}))
        os.replace(temporary, target)
    except OSError:  # a cache that cannot be written only costs time, but leaves no partial entry
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
