"""The scan read as one program: langchain_core, the Agents SDK and MCP at once, all four
presets, one worker (`--jobs 1`), against the named alternative "libcst parse" of the same files
one after another in the same run. Cold is an empty cache; warm is a re-scan after one file was
edited (a line appended to a module that many others import), the cache otherwise full. Ratios are
printed by conftest.py at the end of the run.

    python3 -m pytest --dist no tests/benchmarks/bench_scan_program.py
"""

import dataclasses
import shutil
import tempfile
from pathlib import Path

from tests.benchmarks.bench_scan import PARSE, _parse_everything
from toolsurface.scan import ScanConfig, python_files, scan_paths
from toolsurface.scan._presets import PRESETS, with_presets

#: The module edited before the warm scan: many of langchain_core's modules import it.
EDITED = "langchain_core/tools/base.py"
_DEFAULTS = {field.name: field.default for field in dataclasses.fields(ScanConfig)}
CONFIG = ScanConfig(**with_presets(_DEFAULTS, tuple(PRESETS)))
GROUP = "whole-program scan, langchain_core + agents + mcp, --jobs 1"


def test_parse(benchmark, framework_tree):
    files = [found for found in python_files([framework_tree]) if isinstance(found, Path)]
    benchmark.group = GROUP
    benchmark.name = PARSE
    benchmark.extra_info["files"] = len(files)
    benchmark.pedantic(_parse_everything, args=(files, False), rounds=2, iterations=1)


def test_cold(benchmark, framework_tree):
    benchmark.group = GROUP
    benchmark.name = "toolsurface scan, cold cache"
    benchmark.extra_info["against"] = [PARSE]
    caches: list[Path] = []

    def fresh_cache():
        caches.append(Path(tempfile.mkdtemp()))
        return (), {}

    results = benchmark.pedantic(
        lambda: list(scan_paths([framework_tree], CONFIG, jobs=1, cache_dir=caches[-1])), setup=fresh_cache, rounds=2
    )
    assert results
    for cache in caches:
        shutil.rmtree(cache)


def test_warm_after_one_edit(benchmark, framework_tree, tmp_path):
    benchmark.group = GROUP
    benchmark.name = "toolsurface scan, warm cache, one file edited"
    benchmark.extra_info["against"] = [PARSE]
    list(scan_paths([framework_tree], CONFIG, jobs=1, cache_dir=tmp_path))
    edited = framework_tree / EDITED
    edits = iter(range(1_000))

    def edit():
        edited.write_text(edited.read_text() + f"\nEDITED_{next(edits)} = True\n")
        return (), {}

    benchmark.pedantic(
        lambda: list(scan_paths([framework_tree], CONFIG, jobs=1, cache_dir=tmp_path)), setup=edit, rounds=3
    )
