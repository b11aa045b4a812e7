"""Scan paths: walk them, reuse cached results for unchanged files, parse the rest in workers.

Results come back in path order whatever order the workers finish in, so a scan is
deterministic. A cache entry is keyed by the file's bytes, the configuration and the scanner's
own code, so a changed rule or setting never serves a stale finding.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import _cache
from ._cache import default_cache_dir
from ._files import python_files, read_source
from ._types import FileResult, FileScanned, ScanConfig
from ._workers import Task, scan_isolated

__all__ = ["default_cache_dir", "python_files", "scan_paths"]


def _default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def scan_paths(
    paths: Iterable[Path | str],
    config: ScanConfig,
    *,
    jobs: int | None = None,
    cache_dir: Path | None = None,
) -> Iterator[FileResult]:
    """The result for every path under `paths`, in order; `cache_dir=None` turns the cache off."""
    found = python_files(paths)
    salt = _cache.salt(config)
    results: dict[int, FileResult] = {}
    pending: list[Task] = []
    keys: dict[int, str] = {}
    cache = _cache.Cache(cache_dir) if cache_dir else None
    for index, item in enumerate(found):
        if not isinstance(item, Path):
            results[index] = item
            continue
        read = read_source(item)
        if not isinstance(read, tuple):
            results[index] = read
            continue
        raw, source = read
        path = str(item)
        keys[index] = key = _cache.key(salt, raw)
        cached = cache.load(key, path) if cache else None
        if cached is not None:
            results[index] = cached
        else:  # the text filter runs in the workers: it reads every byte, and the parent is one core
            pending.append(Task(index, path, source))
    for index, result in scan_isolated(pending, config, jobs or _default_jobs()):
        results[index] = result
        if cache and isinstance(result, FileScanned):
            cache.store(keys[index], result)
    if cache:
        cache.save()
    return (results[index] for index in range(len(found)))
