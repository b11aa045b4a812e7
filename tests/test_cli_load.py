"""End to end: a correct host gets the same results.json on a loaded machine as on an idle one.

A CI runner is often busy: other jobs, a parallel test suite, a noisy neighbour. Nothing in a
verdict may depend on it. Each run here is made twice, once with one busy process per core
spinning beside it, and the two results.json must be byte for byte the same.
"""

import contextlib
import importlib.util
import os
import subprocess
import sys

import pytest

from tests.test_cli_exit import command

#: The date expectations are judged on: the same in both runs, whenever the test runs.
TODAY = ["--today", "2026-01-01"]


@contextlib.contextmanager
def cpu_hog():
    """One process per core that spins until the block ends."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def results_of(tmp_path, name, *args):
    out = tmp_path / name
    done = subprocess.run(
        [command(), "run", *args, *TODAY, "--out", str(out)], cwd=tmp_path, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return (out / "results.json").read_bytes()


def test_the_reference_guard_gets_the_same_results_on_a_loaded_machine(tmp_path):
    # Every 32nd case of the default matrix, the legacy path paired: about 430 cases, from every
    # recording and of every kind but the rare provider failure, at a 32nd of the whole matrix's cost.
    idle = results_of(tmp_path, "idle", "--shard", "1/32")
    with cpu_hog():
        loaded = results_of(tmp_path, "loaded", "--shard", "1/32")
    assert idle == loaded


def _framework(target, module):
    """The target as a parameter, skipped with the extra to install where its framework is missing."""
    extra = target.partition(":")[0]
    missing = importlib.util.find_spec(module) is None
    return pytest.param(
        target, marks=pytest.mark.skipif(missing, reason=f"needs the {extra} extra: pip install 'toolsurface[{extra}]'")
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    "target",
    [
        _framework("langchain:guarded", "langchain"),
        _framework("pydantic-ai:guarded", "pydantic_ai"),
        _framework("openai-agents:guarded", "agents"),
        _framework("mcp-host:guarded", "mcp"),
    ],
)
def test_each_framework_guard_and_the_mcp_host_get_the_same_results_on_a_loaded_machine(tmp_path, target):
    # Every 160th case of the default matrix (about 86 cases): most recordings, points and kinds; the
    # MCP host, whose every case starts servers, every 320th.
    shard = "1/320" if target.startswith("mcp-host") else "1/160"
    args = ["--target", target, "--red-target", "none", "--shard", shard]
    idle = results_of(tmp_path, "idle", *args)
    with cpu_hog():
        loaded = results_of(tmp_path, "loaded", *args)
    assert idle == loaded
