"""A file that kills its worker or runs past the time limit costs that file only, whatever the job count."""

import ctypes
import gc
import os
import time

import pytest

from toolsurface.scan import FileFailed, FileScanned, ScanConfig, _workers, scan_paths

FLAWED = "def take_baseline(run):\n    return list(run.tools)\n"
QUICK = ScanConfig(time_limit=1.0)

real_scan_source = _workers.scan_source


def crash_or_hang(source, path, config):
    """The engine, except on `crash.py` (a segfault, as libcst's parser gives) and `slow.py`."""
    if path.endswith("crash.py"):
        ctypes.string_at(0)
    if path.endswith("slow.py"):
        time.sleep(60)
    return real_scan_source(source, path, config)


@pytest.fixture
def misbehaving(monkeypatch):
    # Workers fork from this process, so they run the patched engine.
    if "fork" not in _workers.multiprocessing.get_all_start_methods():
        pytest.skip("workers do not fork here, so they cannot be handed a crashing engine")
    monkeypatch.setattr(_workers, "scan_source", crash_or_hang)


def folder(tmp_path, count, *bad):
    for index in range(count):
        (tmp_path / f"m{index:02}.py").write_text(FLAWED)
    for name in bad:
        (tmp_path / name).write_text(FLAWED)
    return tmp_path


@pytest.mark.parametrize(("count", "jobs"), [(0, 1), (3, 1), (20, 1), (20, 2)])
def test_a_worker_that_dies_costs_its_file_only(tmp_path, misbehaving, count, jobs):
    results = list(scan_paths([folder(tmp_path, count, "crash.py")], QUICK, jobs=jobs, cache_dir=None))
    failed = [r for r in results if isinstance(r, FileFailed)]
    assert [f.problem for f in failed] == [
        f"{tmp_path / 'crash.py'}: the worker parsing it died with SIGSEGV; the file is not scanned"
    ]
    scanned = [r for r in results if isinstance(r, FileScanned)]
    assert len(scanned) == count and all(len(r.findings) == 1 for r in scanned)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_file_past_the_time_limit_is_stopped_and_the_rest_scanned(tmp_path, misbehaving, jobs):
    started = time.monotonic()
    results = list(scan_paths([folder(tmp_path, 5, "slow.py", "crash.py")], QUICK, jobs=jobs, cache_dir=None))
    assert time.monotonic() - started < 20
    problems = {r.path: r.problem for r in results if isinstance(r, FileFailed)}
    assert problems[str(tmp_path / "slow.py")].startswith(
        f"{tmp_path / 'slow.py'}: took more than 1 s to parse and analyse; stopped"
    )
    assert "died with SIGSEGV" in problems[str(tmp_path / "crash.py")]
    assert sum(isinstance(r, FileScanned) for r in results) == 5


def test_no_worker_outlives_the_scan(tmp_path, misbehaving):
    before = set(os.listdir("/proc")) if os.path.isdir("/proc") else set()
    list(scan_paths([folder(tmp_path, 20, "slow.py")], QUICK, jobs=2, cache_dir=None))
    children = _workers.multiprocessing.active_children()
    assert children == []
    if before:
        assert not {pid for pid in set(os.listdir("/proc")) - before if pid.isdigit() and _is_child(pid)}


def _is_child(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1]) == os.getpid()
    except OSError:
        return False


def test_a_worker_never_walks_the_callers_heap_and_the_caller_gets_its_collector_back(tmp_path, monkeypatch):
    """A worker leaves collections to its own garbage, between tasks: the caller's objects are
    frozen while it forks, so no collection of the worker's walks them."""
    if "fork" not in _workers.multiprocessing.get_all_start_methods():
        pytest.skip("workers do not fork here")

    def collector_state(source, path, config):
        # The count of dispatches carries the worker's state out: 2 = collector off, caller's heap frozen.
        return FileScanned(path, (), parsed=True, dispatches=int(not gc.isenabled()) + int(gc.get_freeze_count() > 0))

    monkeypatch.setattr(_workers, "scan_source", collector_state)
    assert gc.get_freeze_count() == 0
    results = list(scan_paths([folder(tmp_path, 3)], QUICK, jobs=2, cache_dir=None))
    assert [r.dispatches for r in results] == [2, 2, 2]
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    gc.freeze()  # a caller that froze its own objects keeps them frozen
    try:
        list(scan_paths([folder(tmp_path, 1)], QUICK, jobs=1, cache_dir=None))
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
