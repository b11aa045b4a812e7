"""End to end: hosts that misbehave the way real ones do never get a false pass, and the run completes.

Each host in tests/fixtures/hostile_hosts.py is the reference guard plus one misbehaviour. Every
run here must exit 1 with a complete results.json in which the misbehaving cases, and only they,
fail with a reason that says what happened, and leave no temporary file behind. Nothing waits on
a clock: the hosts misbehave on a run count, and a late retry waits for the host's next request.
"""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import results
from toolsurface.harness._types import Died, Ending, Interrupted, TimedOut, VerdictKind

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
#: One scenario's cases: enough runs for every host to misbehave, few enough to be quick.
ONE_SCENARIO = "web-read-child-single-tool/*"


def run(tmp_path, host, *flags, nth=25, out="out"):
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    env = {**os.environ, "PYTHONPATH": str(FIXTURES), "TOOLSURFACE_TEST_NTH": str(nth)}
    args = [
        command,
        "run",
        "--target",
        f"hostile_hosts:{host}",
        "--select",
        ONE_SCENARIO,
        "--out",
        str(tmp_path / out),
        *flags,
    ]
    # SIGINT as a terminal leaves it: a suite started in the background (`cmd &`) has it ignored, and
    # the workers would then ignore the signal the interrupting host sends itself.
    return subprocess.run(
        args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, preexec_fn=_interruptible
    )


def _interruptible():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def failing(record):
    return [case for case in record.cases if not case.verdict.kind.ok]


def no_temporaries(folder):
    return not [
        path.name for path in folder.rglob("*") if path.name.endswith(".part") or path.name.startswith(".results-")
    ]


@pytest.mark.parametrize(
    ("host", "stop", "words"),
    [
        ("Exits", Died, "worker process exited with status 0"),
        ("Segfaults", Died, "worker process was killed by SIGSEGV"),
        # SIGINT in a worker once read as a worker that `exited with status 0`: it is an interrupt.
        ("InterruptsItself", Interrupted, "worker process was interrupted by SIGINT"),
        ("SwallowsInterrupts", TimedOut, "ignored the interrupt, so its worker process was killed"),
        ("HangsInC", TimedOut, "ignored the interrupt, so its worker process was killed"),
    ],
)
def test_a_host_that_kills_or_hangs_its_process_costs_that_case_an_error(tmp_path, host, stop, words):
    # Every fifth case of the scenario: each worker still misbehaves on its Nth run, several times over.
    done = run(tmp_path, host, "--timeout", "0.5", "--jobs", "2", "--shard", "1/5")
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    assert record.summary.totals.cases == len(record.cases) > 25
    bad = failing(record)
    assert bad, "the misbehaving case must fail"
    for case in bad:
        assert case.verdict.kind is VerdictKind.ERROR and words in case.verdict.reason
        assert isinstance(case.evidence.stop, stop) and case.evidence.ending is stop.ending
        assert "status 0" not in case.verdict.reason or host == "Exits"
    # A fresh worker took over after each: cases after the first failure were run, and pass.
    after = [case for case in record.cases if case.case.index > bad[0].case.index]
    assert [case for case in after if case.verdict.kind.ok]
    assert no_temporaries(tmp_path)
    assert "FAIL" in done.stdout and "Traceback" not in done.stderr


def test_a_host_that_forks_fails_the_case_and_its_copy_never_writes(tmp_path):
    done = run(tmp_path, "Forks", "--jobs", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    bad = failing(results(tmp_path / "out"))
    assert len(bad) == 1 and "forked 1 process(es)" in bad[0].verdict.reason
    assert no_temporaries(tmp_path)


def test_a_dispatch_after_the_case_returned_fails_the_case_it_belongs_to(tmp_path):
    done = run(tmp_path, "RetriesLater", "--jobs", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    late = [case for case in record.cases if "after run() returned: dispatched request" in case.verdict.reason]
    refused = [case for case in record.cases if case.evidence.ending is Ending.REFUSED]
    # Every refused request is re-sent once its host takes the next one, the follow-up included.
    assert late and len(late) == len(refused)
    assert all(case.verdict.kind is VerdictKind.SURVIVED and case.evidence.aftermath for case in late)
    assert all(case.verdict.kind.ok for case in record.cases if case not in late)


def test_a_change_that_outlives_its_request_fails_that_case_alone_for_any_number_of_workers(tmp_path):
    one, two = (
        run(tmp_path, "CachesTools", "--jobs", "1", out="one"),
        run(tmp_path, "CachesTools", "--jobs", "2", out="two"),
    )
    assert one.returncode == two.returncode == 1, one.stdout + one.stderr
    assert (tmp_path / "one" / "results.json").read_bytes() == (tmp_path / "two" / "results.json").read_bytes()
    bad = failing(results(tmp_path / "one"))
    assert bad and all("the change outlived its request" in case.verdict.reason for case in bad)
    # Only edits made in place reach the tool objects the host keeps; a replaced list is its own.
    assert {case.case.mutation.delivery.value for case in bad} == {"in_place"}
    # The printed reproduce command shows the same verdict, follow-up request included.
    culprit = bad[0].case.id
    env = {**os.environ, "PYTHONPATH": str(FIXTURES)}
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    shown = subprocess.run(
        [command, "reproduce", culprit, "--target", "hostile_hosts:CachesTools"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert shown.returncode == 1 and "outlived its request" in shown.stdout


def test_in_process_a_host_that_leaked_is_loaded_again_and_the_results_are_the_workers(tmp_path):
    zero, one = (
        run(tmp_path, "CachesTools", "--jobs", "0", out="zero"),
        run(tmp_path, "CachesTools", "--jobs", "1", out="one"),
    )
    assert zero.returncode == one.returncode == 1, zero.stdout + zero.stderr
    assert (tmp_path / "zero" / "results.json").read_bytes() == (tmp_path / "one" / "results.json").read_bytes()
    bad = failing(results(tmp_path / "zero"))
    assert bad and all(case.verdict.reason.startswith("the change outlived its request") for case in bad)


def test_in_process_state_a_host_keeps_past_its_reload_names_the_case_it_came_from(tmp_path):
    done = run(tmp_path, "ONE_CACHE", "--jobs", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    stale = [case for case in record.cases if case.verdict.reason.startswith("host state left by an earlier case")]
    ids = {case.case.id for case in record.cases}
    assert stale and all(case.verdict.kind is VerdictKind.ERROR for case in stale)
    # The case it came from is named whole in the evidence (an id fills most of a reason's line).
    assert all(
        any(case.evidence.before[0].startswith(f"after {other}: ") for other in ids - {case.case.id}) for case in stale
    )


def test_the_guard_gives_the_same_results_for_any_number_of_workers_and_in_process(tmp_path):
    env = {**os.environ}
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    outputs = []
    for jobs in ("0", "1", "2", "3"):
        out = tmp_path / jobs
        done = subprocess.run(
            # Every 32nd case of the plan: every recording, every kind but the rare provider failure.
            [command, "run", "--shard", "1/32", "--jobs", jobs, "--out", str(out)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append((out / "results.json").read_bytes())
    assert len(set(outputs)) == 1


def test_in_process_a_host_that_exits_costs_a_case_not_the_run(tmp_path):
    done = run(tmp_path, "Exits", "--jobs", "0")
    assert done.returncode == 1, done.stdout + done.stderr
    record = results(tmp_path / "out")
    assert record.summary.totals.cases == len(record.cases) > 25
    bad = failing(record)
    exited = "the host called os._exit(0) in the toolsurface process"
    # Said in the reason where it fits; whole in the evidence (the follow-up request's, in its aftermath).
    assert bad and all(exited in case.verdict.reason or exited in "".join(case.evidence.aftermath) for case in bad)
    assert any(exited in case.verdict.reason for case in bad)
