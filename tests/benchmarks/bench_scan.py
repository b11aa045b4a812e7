"""Scan speed on two corpora, side by side: the Python standard library of the running
interpreter, and the installed sources of the agent frameworks the `dev` extra brings (pydantic_ai,
langchain, langchain_core, langgraph, agents, mcp, openai, anthropic) under all four presets.

Measured in the same run against two named alternatives, one file after another in one process:
"libcst parse" of every file, and "libcst parse + PositionProvider" of every file, what a scanner
that parses everything and asks for positions everywhere would cost. toolsurface is measured cold
(an empty cache) and warm (the same tree scanned again), on every core. Ratios are printed by
conftest.py at the end of the run.
"""

import dataclasses
import importlib.util
import os
import shutil
import sysconfig
import tempfile
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from toolsurface.scan import ScanConfig, python_files, scan_paths
from toolsurface.scan._presets import PRESETS, with_presets

FRAMEWORKS = ("pydantic_ai", "langchain", "langchain_core", "langgraph", "agents", "mcp", "openai", "anthropic")


def _framework_folders() -> list[Path]:
    specs = [importlib.util.find_spec(name) for name in FRAMEWORKS]
    return [Path(spec.origin).parent for spec in specs if spec is not None and spec.origin]


_DEFAULTS = {field.name: field.default for field in dataclasses.fields(ScanConfig)}
CORPORA = {
    "stdlib": ([Path(sysconfig.get_paths()["stdlib"])], ScanConfig()),
    "frameworks": (_framework_folders(), ScanConfig(**with_presets(_DEFAULTS, tuple(PRESETS)))),
}
PARSE = "libcst parse of every file"
POSITIONS = "libcst parse + PositionProvider of every file"


def _files(corpus: str) -> list[Path]:
    # A walk also names what it will not read (sockets, unreadable folders): only files are parsed here.
    folders, _ = CORPORA[corpus]
    return [found for found in python_files(folders) if isinstance(found, Path)]


def _parse_everything(files: list[Path], positions: bool) -> None:
    for file in files:
        try:
            module = cst.parse_module(file.read_bytes().decode("utf-8"))
            if positions:
                MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
        except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
            pass  # a handful of test files are invalid or nested past the stack on purpose


@pytest.fixture(params=sorted(CORPORA))
def corpus(request):
    if not CORPORA[request.param][0]:
        pytest.skip("no framework is installed here: install the `dev` extra")
    return request.param


@pytest.mark.parametrize("positions", [False, True], ids=["parse", "positions"])
def test_baseline(benchmark, corpus, positions):
    files = _files(corpus)
    benchmark.group = f"scan {corpus}"
    benchmark.name = POSITIONS if positions else PARSE
    benchmark.extra_info["files"] = len(files)
    benchmark.pedantic(_parse_everything, args=(files, positions), rounds=1, iterations=1)


def test_cold_scan(benchmark, corpus):
    folders, config = CORPORA[corpus]
    benchmark.group = f"scan {corpus}"
    benchmark.name = f"toolsurface scan, cold cache, {os.cpu_count()} cores"
    benchmark.extra_info["against"] = [PARSE, POSITIONS]
    caches = []

    def fresh_cache():
        caches.append(Path(tempfile.mkdtemp()))
        return (), {}

    def cold():
        return list(scan_paths(folders, config, cache_dir=caches[-1]))

    results = benchmark.pedantic(cold, setup=fresh_cache, rounds=2, iterations=1)
    assert len(results) == len(_files(corpus))
    for cache in caches:
        shutil.rmtree(cache)


def test_warm_scan(benchmark, corpus, tmp_path):
    folders, config = CORPORA[corpus]
    benchmark.group = f"scan {corpus}"
    benchmark.name = f"toolsurface scan, warm cache, {os.cpu_count()} cores"
    benchmark.extra_info["against"] = [PARSE, POSITIONS]
    first = list(scan_paths(folders, config, cache_dir=tmp_path))
    again = benchmark.pedantic(lambda: list(scan_paths(folders, config, cache_dir=tmp_path)), rounds=3, iterations=1)
    assert again == first
