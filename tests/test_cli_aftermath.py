"""End to end: ordinary host bugs that act after a case, once in a while, or past their time never pass.

Each host in tests/fixtures/hostile_hosts.py below is the reference guard with one such bug: a
retry that fires after the grace period, a pool that fails one request in a process, a slow host
that catches the interrupt, a finalizer that settles again. Every run must exit 1 with a
complete results.json whose failing cases name the bug.
"""

import signal

import pytest

from tests.test_cli import results
from tests.test_cli_exit import finish, parts, start, stoppable, wait_for
from tests.test_cli_isolation import failing, no_temporaries, run
from toolsurface.harness._types import Ending, VerdictKind


@pytest.mark.parametrize("host", ["RetriesInTwoSeconds", "RetriesInTwoSecondsNonDaemon"])
@pytest.mark.parametrize("jobs", ["2", "0"])
def test_a_retry_that_outlasts_the_grace_period_fails_every_case_it_came_from(tmp_path, host, jobs):
    done = run(tmp_path, host, "--grace", "1", "--jobs", jobs)
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    refused = [case for case in record.cases if case.evidence.ending is Ending.REFUSED]
    assert refused and all(not case.verdict.kind.ok for case in refused)
    # Whatever fired within the watch is a late dispatch; what was still waiting when it ended, an error.
    unwatched = [case for case in refused if case.verdict.kind is VerdictKind.ERROR]
    assert unwatched, "the retries still sleeping when the grace period ended"
    for case in unwatched:
        assert case.verdict.reason.startswith("the host left 1 thread running ('retry')")
        assert case.evidence.aftermath
    assert all(case.verdict.kind.ok for case in record.cases if case not in refused)
    assert no_temporaries(tmp_path)


@pytest.mark.parametrize(
    ("host", "error"), [("FailsThirdRequest", "RuntimeError"), ("RunsOutOfMemoryOnThirdRequest", "MemoryError")]
)
@pytest.mark.parametrize("jobs", ["2", "0"])
def test_a_request_that_fails_once_in_a_process_is_reported_not_run_away(tmp_path, host, error, jobs):
    done = run(tmp_path, host, "--jobs", jobs)
    assert done.returncode == 1, done.stdout + done.stderr
    bad = failing(results(tmp_path / "out"))
    assert bad and all(case.verdict.kind is VerdictKind.ERROR for case in bad)
    assert all(f"{error}: connection pool exhausted" in case.verdict.reason for case in bad)


def test_a_host_that_catches_the_interrupt_and_runs_on_past_its_time_is_an_error(tmp_path):
    done = run(tmp_path, "SlowAndSwallowsInterrupts", "--timeout", "0.2", "--shard", "1/10")
    assert done.returncode == 1, done.stdout + done.stderr
    ran = [case for case in results(tmp_path / "out").cases if not case.case.equivalent]
    assert ran and all(case.verdict.reason == "target timed out" for case in ran)


@pytest.mark.parametrize("host", ["SettlesAgainWhenCollected", "SettlesAgainWhenReplaced"])
@pytest.mark.parametrize("shard", ["1/40", "1/3"])
def test_a_finalizer_that_settles_again_fails_every_refused_case(tmp_path, host, shard):
    done = run(tmp_path, host, "--jobs", "2", "--shard", shard)
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    refused = [case for case in record.cases if case.evidence.ending is Ending.REFUSED]
    assert refused and all(case.verdict.kind is VerdictKind.SURVIVED for case in refused)
    assert all("pre_dispatch_rejected" in case.verdict.reason for case in refused)
    assert all(case.verdict.kind.ok for case in record.cases if case not in refused)


def test_a_factory_that_closes_stdout_and_stderr_still_gets_its_summary_printed(tmp_path):
    done = run(tmp_path, "closes_its_output", "--shard", "1/10")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS" in done.stdout and (tmp_path / "out" / "results.json").is_file()


def test_a_factory_that_changes_directory_does_not_move_the_reports(tmp_path):
    done = run(tmp_path, "changes_directory", "--shard", "1/10", "--format", "md")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "out" / "results.json").is_file() and (tmp_path / "out" / "audit.md").is_file()


def test_a_factory_that_ignores_sigterm_does_not_make_the_command_ignore_it(tmp_path):
    (tmp_path / "deaf.py").write_text(DEAF)
    process = start(
        "run",
        "--target",
        "deaf:factory",
        "--red-target",
        "none",
        "--timeout",
        "3600",
        "--out",
        "out",
        cwd=tmp_path,
        preexec_fn=stoppable,
    )
    wait_for(tmp_path / "running", process)
    process.send_signal(signal.SIGTERM)
    done = finish(process)
    assert done.returncode == 143, done.stderr
    assert "interrupted by SIGTERM" in done.stderr
    assert parts(tmp_path) == [] and not (tmp_path / "out" / "results.json").exists()


#: A target whose factory makes the process ignore SIGTERM, and which blocks in its first case.
DEAF = """\
import signal
import threading
from pathlib import Path


class Blocking:
    def run(self, scenario, ports):
        Path("running").touch()
        threading.Event().wait()


def factory():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return Blocking()
"""
