"""Scan paths: walk them, reuse cached results for unchanged files, parse the rest in workers.

Results come back in path order whatever order the workers finish in, so a scan is
deterministic. A cache entry is keyed by the file's bytes, the configuration and the scanner's
own code, so a changed rule or setting never serves a stale finding.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from . import _cache
from ._cache import default_cache_dir
from ._files import python_files, read_source
from ._project import Derived, Program, derive
from ._summary import Summary, module_name
from ._text import Text
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
    jobs = jobs or _default_jobs()
    results: dict[int, FileResult] = {}
    sources: dict[int, tuple[str, bytes, str]] = {}
    for index, item in enumerate(found):
        if not isinstance(item, Path):
            results[index] = item
            continue
        read = read_source(item)
        if not isinstance(read, tuple):
            results[index] = read
            continue
        raw, source = read
        sources[index] = (str(item), raw, source)
    configs = _per_module(sources, config, jobs, cache_dir)
    salts: dict[ScanConfig, bytes] = {}
    pending: list[Task] = []
    keys: dict[int, str] = {}
    cache = _cache.Cache(cache_dir) if cache_dir else None
    for index, (path, raw, source) in sources.items():
        own = configs.get(index, config)
        salt = salts.get(own) or salts.setdefault(own, _cache.salt(own))
        keys[index] = key = _cache.key(salt, raw)
        cached = cache.load(key, path) if cache else None
        if cached is not None:
            results[index] = cached
        else:  # the text filter runs in the workers: it reads every byte, and the parent is one core
            pending.append(Task(index, path, source, None if own is config else own))
    for index, result in scan_isolated(pending, config, jobs):
        assert not isinstance(result, Summary)
        results[index] = result
        if cache and isinstance(result, FileScanned):
            cache.store(keys[index], result)
    if cache:
        cache.save()
    return (results[index] for index in range(len(found)))


#: Rounds of the first pass: a helper that checks through a helper that checks, this many modules deep.
_ROUNDS = 8


def _per_module(
    sources: dict[int, tuple[str, bytes, str]], config: ScanConfig, jobs: int, cache_dir: Path | None
) -> dict[int, ScanConfig]:
    """Each file's settings with what the rest of the program adds to them (see `_project`): files
    that get nothing are left out. Summaries are cached like results, by content and settings."""
    modules = {index: module_name(path) for index, (path, _, _) in sources.items()}
    cache = _cache.Summaries(cache_dir) if cache_dir else None
    salts: dict[ScanConfig, bytes] = {}
    summaries: dict[int, Summary] = {}
    texts: dict[int, Text] = {}
    given = dict.fromkeys(sources, config)
    wanted = list(sources)

    def keyed(index: int, settings: ScanConfig) -> tuple[ScanConfig, str]:
        # Where names are decided elsewhere changes a flow, never what a module is summarised as.
        own = dataclasses.replace(settings, origins=()) if settings.origins else settings
        salt = salts.get(own) or salts.setdefault(own, _cache.salt(own))
        return own, _cache.key(salt + modules[index].encode() + b"\0", sources[index][1])

    for _ in range(_ROUNDS):
        tasks, keys = [], {}
        for index in wanted:
            path, _, source = sources[index]
            own, key = keyed(index, given[index])
            keys[index] = key
            cached = cache.load(key) if cache else None
            if cached is not None:
                # The same bytes may be another file's: a copy of the tree, or the checkout moved.
                summaries[index] = dataclasses.replace(cached, path=path) if cached.path != path else cached
            else:
                tasks.append(Task(index, path, source, None if own is config else own, modules[index]))
        for index, summary in scan_isolated(tasks, config, jobs):
            if isinstance(summary, Summary):
                summaries[index] = summary
                if cache:
                    cache.store(keys[index], summary)
        derived = derive(Program(summaries[index] for index in sorted(summaries)), config)
        # What a module checks, settles and hands on depends on the settings it was summarised
        # with, but only through names it mentions: a module that names none of the names its
        # settings gained is summarised as before (and kept under its new settings' key too).
        wanted = []
        for index in sources:
            own = derived.get(modules[index], _NONE).applied(config)
            gained = _gained(_summarised_by(given[index]), _summarised_by(own))
            if gained is None or any(texts.setdefault(index, Text(sources[index][2])).has(name) for name in gained):
                wanted.append(index)
            elif gained and cache:
                cache.store(keyed(index, own)[1], summaries[index])
            given[index] = own
        if not wanted:
            break
    if cache:
        cache.save()
    return {index: own for index, own in given.items() if own is not config}


_NONE = Derived()


def _gained(before: tuple[tuple[object, ...], ...], after: tuple[tuple[object, ...], ...]) -> set[str] | None:
    """The last parts of the names a module's summary settings gained (an editor's or a
    returner's name is the first of its fields): empty when they are the same, None when a name
    was dropped, which any module may have relied on."""
    if any(set(was) - set(now) for was, now in zip(before, after, strict=True)):
        return None
    added = {item for was, now in zip(before, after, strict=True) for item in set(now) - set(was)}
    names = (item[0] if isinstance(item, tuple) else item for item in added)
    return {str(name).rpartition(".")[2].partition("[")[0] for name in names}


def _summarised_by(config: ScanConfig) -> tuple[tuple[object, ...], ...]:
    return (
        config.check,
        config.settle,
        config.tool_words,
        config.schema_keys,
        config.editors,
        config.readers,
        config.controls,
    )
