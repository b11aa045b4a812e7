"""Scan paths: walk them, reuse cached results for unchanged files, parse the rest on every core.

Results come back in path order whatever order the workers finish in, so a scan is
deterministic. A cache entry is keyed by the file's bytes, the configuration and the rule set,
so a changed rule or setting never serves a stale finding.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import orjson

from .._errors import UsageError
from .._version import version
from ._engine import scan_source, worth_parsing
from ._types import FileFailed, FileResult, FileScanned, Finding, ScanConfig
from .rules import RULES

#: Below this many files to parse, worker start-up costs more than it saves.
_POOL_FROM = 16
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


def python_files(paths: Iterable[Path | str]) -> list[Path]:
    """Files as given, and every `*.py` below each folder (hidden folders skipped), sorted per folder."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            files.append(path)
        elif path.is_dir():
            files.extend(
                sorted(
                    p for p in path.rglob("*.py")
                    if not any(part.startswith(".") or part in _SKIPPED_DIRS for part in p.relative_to(path).parts[:-1])
                )
            )
        else:
            raise UsageError(f"{path}: no such file or folder to scan")
    return files


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolsurface" / "scan"


def scan_paths(
    paths: Iterable[Path | str],
    config: ScanConfig,
    *,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> Iterator[FileResult]:
    """The result for every file under `paths`, in order; `cache_dir=None` turns the cache off."""
    files = python_files(paths)
    salt = _salt(config)
    results: dict[int, FileResult] = {}
    pending: list[tuple[int, str, str, str]] = []  # (index, path, source, cache key)
    for index, file in enumerate(files):
        path = str(file)
        try:
            raw = file.read_bytes()
            source = raw.decode("utf-8")
        except OSError as error:
            results[index] = FileFailed(path, f"{path}: cannot read: {error.strerror}")
            continue
        except UnicodeDecodeError as error:
            results[index] = FileFailed(path, f"{path}: not UTF-8 text (byte {error.start})")
            continue
        key = hashlib.sha256(salt + raw).hexdigest()
        cached = _load(cache_dir, key, path) if cache_dir else None
        if cached is not None:
            results[index] = cached
        elif not worth_parsing(source, config):
            results[index] = FileScanned(path, (), parsed=False)
        else:
            pending.append((index, path, source, key))
    for (index, _, _, key), result in zip(pending, _scan_all(pending, config, jobs), strict=True):
        results[index] = result
        if cache_dir and isinstance(result, FileScanned):
            _store(cache_dir, key, result)
    return (results[index] for index in range(len(files)))


def _scan_all(pending: Sequence[tuple[int, str, str, str]], config: ScanConfig, jobs: int | None) -> Iterator[FileResult]:
    workers = jobs or os.cpu_count() or 1
    if workers == 1 or len(pending) < _POOL_FROM:
        return (scan_source(source, path, config) for _, path, source, _ in pending)
    paths = [path for _, path, _, _ in pending]
    sources = [source for _, _, source, _ in pending]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        chunk = max(1, len(pending) // (workers * 8))
        return iter(list(pool.map(scan_source, sources, paths, [config] * len(paths), chunksize=chunk)))


def _salt(config: ScanConfig) -> bytes:
    rules = ",".join(f"{rule.id}:{type(rule).__module__}" for rule in RULES)
    return orjson.dumps([dataclasses.asdict(config), rules, version()]) + b"\0"


def _load(cache_dir: Path, key: str, path: str) -> FileScanned | None:
    try:
        entry = orjson.loads((cache_dir / key[:2] / key).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    findings = tuple(Finding(path=path, **finding) for finding in entry["findings"])
    return FileScanned(path, findings, parsed=entry["parsed"])


def _store(cache_dir: Path, key: str, result: FileScanned) -> None:
    findings = [{k: v for k, v in dataclasses.asdict(f).items() if k != "path"} for f in result.findings]
    target = cache_dir / key[:2] / key
    temporary = target.with_suffix(f".{os.getpid()}.part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(orjson.dumps({"parsed": result.parsed, "findings": findings}))
        os.replace(temporary, target)
    except OSError:  # a cache that cannot be written only costs time, but leaves no partial entry
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
