"""Scan speed on the Python standard library of the running interpreter.

Measured in the same run against the named alternative, "libcst parse + PositionProvider on
every file", one file after another: what a scanner that parses everything and asks for
positions everywhere would cost. toolsurface is measured cold (an empty cache) and warm (the same
tree scanned again), on every core. Ratios are printed by conftest.py at the end of the run.
"""

import os
import shutil
import sysconfig
import tempfile
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from toolsurface.harness._scan import ScanConfig, python_files, scan_paths

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A walk also names what it will not read (sockets, unreadable folders): only files are parsed here.
FILES = [found for found in python_files([STDLIB]) if isinstance(found, Path)]
BASELINE = "libcst parse + PositionProvider on every file"
CONFIG = ScanConfig()


def parse_everything():
    for file in FILES:
        try:
            MetadataWrapper(cst.parse_module(file.read_bytes().decode("utf-8"))).resolve(PositionProvider)
        except (cst.ParserSyntaxError, UnicodeDecodeError, RecursionError):
            pass  # a handful of test files are invalid or nested past the stack on purpose


def test_baseline(benchmark):
    benchmark.group = "scan"
    benchmark.name = BASELINE
    benchmark.extra_info["files"] = len(FILES)
    benchmark.pedantic(parse_everything, rounds=1, iterations=1)


def test_cold_scan(benchmark):
    benchmark.group = "scan"
    benchmark.name = f"toolsurface scan, cold cache, {os.cpu_count()} cores"
    benchmark.extra_info["against"] = BASELINE
    caches = []

    def fresh_cache():
        caches.append(Path(tempfile.mkdtemp()))
        return (), {}

    def cold():
        return list(scan_paths([STDLIB], CONFIG, cache_dir=caches[-1]))

    results = benchmark.pedantic(cold, setup=fresh_cache, rounds=2, iterations=1)
    assert len(results) == len(FILES)
    for cache in caches:
        shutil.rmtree(cache)


def test_warm_scan(benchmark, tmp_path):
    benchmark.group = "scan"
    benchmark.name = f"toolsurface scan, warm cache, {os.cpu_count()} cores"
    benchmark.extra_info["against"] = BASELINE
    first = list(scan_paths([STDLIB], CONFIG, cache_dir=tmp_path))
    again = benchmark.pedantic(lambda: list(scan_paths([STDLIB], CONFIG, cache_dir=tmp_path)), rounds=3, iterations=1)
    assert again == first
