"""Guard cost on a 128-tool surface with ~2 KB schemas: baseline capture + early + final check.

The reference guard takes its baseline from the contract's recorded descriptors and checks the
live request twice. Compared in the same run with:
(a)  `==` of two independently built trees (parsed from JSON: no leaf is shared, every byte read);
(a′) `==` of a tree and its deepcopy (leaf strings shared, so compared by identity — a floor);
(b)  the same guard with a `copy.deepcopy` capture and `==` checks.
Ratios are printed by conftest.py at the end of the run.
"""

import copy

import orjson

from tests.benchmarks._surfaces import schema_bytes, surface
from toolsurface.harness._canonical import capture, snapshot_of
from toolsurface.scenarios import ToolDescriptor

TOOLS = surface(128)
DESCRIPTORS = [ToolDescriptor.of(t["name"], t["description"], t["input_schema"]) for t in TOOLS]
INDEPENDENT = orjson.loads(orjson.dumps(TOOLS))
SHARED = copy.deepcopy(TOOLS)


def test_schema_size_is_realistic():
    assert 1500 <= schema_bytes(TOOLS) <= 2600


def guard_with_snapshot():
    baseline = snapshot_of(DESCRIPTORS)
    return capture(TOOLS) == baseline and capture(TOOLS) == baseline


def guard_with_deepcopy():
    baseline = copy.deepcopy(TOOLS)
    return TOOLS == baseline and TOOLS == baseline


def test_snapshot_guard(benchmark):
    benchmark.group = "guard"
    benchmark.name = "snapshot capture + early + final"
    assert benchmark(guard_with_snapshot)


def test_independent_equality(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(a) == of two independently built trees"
    assert benchmark(lambda: TOOLS == INDEPENDENT)


def test_shared_leaf_equality(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(a') == of a tree and its deepcopy"
    assert benchmark(lambda: TOOLS == SHARED)


def test_deepcopy_guard(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(b) deepcopy capture + early + final"
    assert benchmark(guard_with_deepcopy)
