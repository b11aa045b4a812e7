"""End to end: the installed command's exit status can be trusted, and no run leaves a `.part` behind.

Each fault is rebuilt for real: a write past a file size limit (RLIMIT_FSIZE fails it with EFBIG,
as a full disk fails it with ENOSPC), a folder where results.json goes, signals sent to a running
`toolsurface run`, a host thread that never ends. Nothing waits on the clock: a test waits for a
file or for the process, and a deadline is only a safety net.
"""

import os
import resource
import signal
import subprocess
import sys
import time

import pytest

from tests.test_cli import toolsurface
from toolsurface.common._version import version

#: 78 cases, whose results.json is about 100 kB.
SELECT = ["--select", "*/post_seal/delete.*"]
#: One case: its results.json is about 7 kB, its HTML report about 27 kB.
ONE_CASE = ["--select", "etf-compare-main-hooked/main/hooks/post_seal/delete.replace:first:market__search_instruments"]
ALL_FORMATS = ["--format", "md,html,junit,json"]
OUTPUTS = {"results.json", "audit.md", "report.html", "junit.xml", "audit.json"}
#: Seconds after which a test gives up on a process that should have ended long before.
SAFETY_NET = 120

#: A target that says it is running a case (a file in its folder), then blocks until stopped.
BLOCKING = """\
import threading
from pathlib import Path


class Blocking:
    def run(self, scenario, ports):
        Path("running").touch()
        threading.Event().wait()


def factory():
    return Blocking()
"""

#: The guarded reference target, whose factory leaves a non-daemon thread running forever.
LINGERING = """\
import threading

from toolsurface.harness._reference import GuardedPipeline


def factory():
    threading.Thread(target=threading.Event().wait, name="host-worker").start()
    return GuardedPipeline()
"""

#: The guarded reference target, which puts a folder where results.json is to go.
SPOILING = """\
from pathlib import Path

from toolsurface.harness._reference import GuardedPipeline


class Spoiling(GuardedPipeline):
    def run(self, scenario, ports):
        Path("out", "results.json").mkdir(exist_ok=True)
        return super().run(scenario, ports)


def factory():
    return Spoiling()
"""


def command():
    return os.path.join(os.path.dirname(sys.executable), "toolsurface")


def start(*args, cwd, preexec_fn=None):
    return subprocess.Popen(
        [command(), *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec_fn
    )


def finish(process):
    stdout, stderr = process.communicate(timeout=SAFETY_NET)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def limited(max_bytes, *args, cwd):
    """The command, run with no file allowed past `max_bytes`: a write past it fails with EFBIG."""

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process

    return finish(start(*args, cwd=cwd, preexec_fn=limit))


def problems(stderr):
    """What the command said on stderr, without its progress bar."""
    return [line for line in stderr.splitlines() if not line.startswith("running ")]


def parts(folder):
    return sorted(path.name for path in folder.rglob("*.part"))


def wait_for(path, process):
    """Wait until `path` exists, or fail if the process ends first."""
    deadline = time.monotonic() + SAFETY_NET
    while not path.exists():
        if process.poll() is not None:
            pytest.fail(f"exited {process.returncode} before {path.name} appeared: {process.stderr.read()}")
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"{path.name} did not appear")
        time.sleep(0.01)  # how often to look, not how long to wait


def stoppable():
    """The stop signals at their defaults, as a user at a terminal has them, whatever this test run
    inherited: `nohup` ignores SIGHUP and a background job SIGINT, and the command keeps a stop
    signal its starter ignores."""
    for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(stop, signal.SIG_DFL)


def blocked_run(tmp_path):
    """A `toolsurface run` of the bundled scenarios, stopped inside its first case, results.json half-written."""
    (tmp_path / "blocking.py").write_text(BLOCKING)
    args = ("run", "--target", "blocking:factory", "--red-target", "none", "--timeout", "3600", "--out", "out")
    process = start(*args, cwd=tmp_path, preexec_fn=stoppable)
    wait_for(tmp_path / "running", process)
    assert parts(tmp_path / "out"), "the run streams its results into a .part file"
    return process


def test_a_write_that_fails_while_streaming_results_is_one_line_and_leaves_nothing(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("not ours")
    done = limited(50_000, "run", *SELECT, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == [f"error: --out {out / 'results.json'}: cannot write there: File too large"]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_a_report_that_cannot_be_written_publishes_nothing_of_the_run_and_keeps_nothing_it_replaces(tmp_path):
    out = tmp_path / "out"
    assert toolsurface("run", *SELECT, *ALL_FORMATS, "--out", str(out)).returncode == 0
    assert {p.name for p in out.iterdir()} >= OUTPUTS
    (out / "notes.txt").write_text("not ours")
    # results.json fits under the limit (about 35 KB: it lists every scenario, those at each limit's
    # edge among them), the HTML report does not (about 48 KB).
    done = limited(40_000, "run", *ONE_CASE, *ALL_FORMATS, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == [f"error: --out {out / 'report.html'}: cannot write there: File too large"]
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]


def test_a_folder_where_results_json_goes_is_refused_before_any_case_runs(tmp_path):
    (tmp_path / "results.json").mkdir()
    done = toolsurface("run", *SELECT, "--out", str(tmp_path))
    assert done.returncode == 2
    # Not one case ran: the progress bar never started.
    assert done.stderr == f"error: --out {tmp_path / 'results.json'}: cannot write there: Is a directory\n"


def test_an_out_folder_that_becomes_unusable_during_the_run_fails_cleanly(tmp_path):
    (tmp_path / "spoiling.py").write_text(SPOILING)
    done = toolsurface(
        "run",
        "--target",
        "spoiling:factory",
        "--red-target",
        "none",
        *ONE_CASE,
        "--format",
        "md",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert problems(done.stderr) == ["error: --out out/results.json: cannot write there: Is a directory"]
    # audit.md went into place before results.json failed to, and was taken back.
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["results.json"] and parts(tmp_path) == []


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            ["run", "--seed", "99999999999999999999999"],
            "--seed 99999999999999999999999 must be an integer from 0 to 2**63 - 1",
        ),
        (["run", "--seed", str(2**63)], f"--seed {2**63} must be an integer from 0 to 2**63 - 1"),
        (["run", "--seed", "-1"], "--seed -1 must be an integer from 0 to 2**63 - 1"),
        (["list", "cases", "--seed", str(2**64)], f"--seed {2**64} must be an integer from 0 to 2**63 - 1"),
        (["reproduce", "some/case", "--seed", str(2**64)], f"--seed {2**64} must be an integer from 0 to 2**63 - 1"),
        (["run", "--timeout", "nan"], "--timeout nan must be a positive number of seconds, at most 86400 (a day)"),
        (["run", "--timeout", "inf"], "--timeout inf must be a positive number of seconds, at most 86400 (a day)"),
        (["run", "--timeout", "-inf"], "--timeout -inf must be a positive number of seconds, at most 86400 (a day)"),
        (["run", "--timeout", "0"], "--timeout 0.0 must be a positive number of seconds, at most 86400 (a day)"),
        (["record", "--timeout", "nan"], "--timeout nan must be a positive number of seconds, at most 86400 (a day)"),
        (["run", "--timeout", "1e308"], "--timeout 1e+308 must be a positive number of seconds, at most 86400 (a day)"),
        (
            ["record", "--timeout", "1e308"],
            "--timeout 1e+308 must be a positive number of seconds, at most 86400 (a day)",
        ),
        (["run", "--jobs", "-1"], "--jobs -1 must be 0 (run in this process) or a number of worker processes"),
    ],
)
def test_a_seed_timeout_or_jobs_out_of_range_is_one_line_and_exit_2(tmp_path, args, problem):
    done = toolsurface(*args, "--out", str(tmp_path / "out")) if args[0] in ("run", "record") else toolsurface(*args)
    assert done.returncode == 2
    assert done.stderr == f"error: {problem}\n"
    assert not (tmp_path / "out").exists()


def test_the_largest_seed_is_accepted():
    done = toolsurface("list", "cases", *SELECT, "--seed", str(2**63 - 1))
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 128


@pytest.mark.parametrize(
    ("setting", "problem"),
    [
        (
            "seed = 99999999999999999999999",
            "seed: 99999999999999999999999 is past TOML's 64-bit integers (from -2**63 to 2**63 - 1)",
        ),
        ("timeout = nan", "timeout: nan must be a positive number of seconds, at most 86400 (a day)"),
        ("timeout = inf", "timeout: inf must be a positive number of seconds, at most 86400 (a day)"),
        (f"timeout = {2**63 - 1}", f"timeout: {2**63 - 1} must be a positive number of seconds, at most 86400 (a day)"),
        (
            f"thresholds = {{ min_cases = {2**64} }}",
            f"thresholds.min_cases: {2**64} is past TOML's 64-bit integers (from -2**63 to 2**63 - 1)",
        ),
        (
            f"thresholds = {{ min_controlled = {2**63} }}",
            f"thresholds.min_controlled: {2**63} is past TOML's 64-bit integers (from -2**63 to 2**63 - 1)",
        ),
        (
            "thresholds = { min_cases = 0x" + "f" * 4000 + " }",
            "thresholds.min_cases: an integer of 16000 bits is past TOML's 64-bit integers (from -2**63 to 2**63 - 1)",
        ),
    ],
)
def test_a_setting_out_of_range_in_the_config_is_named_by_file_and_key(tmp_path, setting, problem):
    config = tmp_path / "pyproject.toml"
    config.write_text(f'[tool.toolsurface]\n{setting}\nout = "out"\n')
    done = toolsurface("run", "--config", str(config))
    assert done.returncode == 2
    assert done.stderr == f"error: {config}:[tool.toolsurface].{problem}\n"
    assert not (tmp_path / "out").exists()


def plant_fault(name, args, cwd, debug=False):
    """The console script's `main`, in its own process, with `<module>.<name>` (a module a command
    imports it from when it runs) raising as a bug in toolsurface would."""
    module, _, name = name.rpartition(".")
    code = (
        "import sys\n"
        f"import {module} as home\n"
        "import toolsurface.cli._app as cli\n"
        "def fault(*args, **kwargs):\n"
        "    raise ValueError('planted\\n fault')\n"
        f"home.{name} = fault\n"
        f"sys.argv = ['toolsurface', *{args!r}]\n"
        "cli.main()\n"
    )
    env = {**os.environ, "TOOLSURFACE_DEBUG": "1" if debug else ""}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=SAFETY_NET, env=env
    )


INTERNAL_ERROR = (
    f"internal error: ValueError: planted fault (a bug in toolsurface {version()}: please report it with "
    "the command you ran; "
    "TOOLSURFACE_DEBUG=1 shows the traceback)"
)


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("toolsurface.harness._api.prepare", ["list", "cases"]),
        # After the cases ran, with results.json streamed and not yet published.
        ("toolsurface.reports.Audit", ["run", *SELECT, "--format", "md", "--out", "out"]),
    ],
)
def test_an_internal_error_is_one_line_and_exit_3(tmp_path, name, args):
    done = plant_fault(name, args, tmp_path)
    assert done.returncode == 3
    assert problems(done.stderr) == [INTERNAL_ERROR]
    assert parts(tmp_path) == [] and not (tmp_path / "out" / "results.json").exists()
    shown = plant_fault(name, args, tmp_path, debug=True)
    assert shown.returncode == 3
    assert "Traceback (most recent call last):" in shown.stderr and problems(shown.stderr)[-1] == INTERNAL_ERROR


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_stopped_run_says_so_in_one_line_exits_128_plus_the_signal_and_leaves_no_part_file(tmp_path, stop):
    process = blocked_run(tmp_path)
    process.send_signal(stop)
    done = finish(process)
    assert done.returncode == 128 + stop
    assert problems(done.stderr) == [f"interrupted by {stop.name}: stopped before finishing; no partial file is left"]
    assert parts(tmp_path) == [] and not (tmp_path / "out" / "results.json").exists()


def test_the_part_file_of_a_killed_run_is_removed_by_the_next_run_into_its_folder(tmp_path):
    process = blocked_run(tmp_path)
    process.kill()
    finish(process)
    out = tmp_path / "out"
    (abandoned,) = parts(out)
    assert abandoned.startswith(f".results.json-{process.pid}-")
    # A temporary of a process that is still running (this one) is another run's, at work.
    live = out / f".audit.md-{os.getpid()}-abcdefgh.part"
    live.write_text("")
    done = toolsurface("run", *SELECT, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert parts(out) == [live.name]


def test_a_host_thread_that_never_ends_does_not_keep_the_command_from_exiting(tmp_path):
    (tmp_path / "lingering.py").write_text(LINGERING)
    done = finish(
        start("run", "--target", "lingering:factory", "--red-target", "none", *SELECT, "--out", "out", cwd=tmp_path)
    )
    assert done.returncode == 0, done.stderr
    assert "PASS:" in done.stdout and (tmp_path / "out" / "results.json").exists()


def test_an_out_folder_reached_through_a_symbolic_link_is_refused_unless_asked_for(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "toolsurface-report").symlink_to(elsewhere)
    done = toolsurface("run", *ONE_CASE, cwd=tmp_path)
    assert done.returncode == 2
    assert problems(done.stderr) == [
        f"error: --out toolsurface-report: is a symbolic link (to {elsewhere}); give --follow-symlinks to "
        "write through it"
    ]
    assert list(elsewhere.iterdir()) == []
    # A link to a folder on the way there is refused the same way.
    done = toolsurface("run", *ONE_CASE, "--out", "toolsurface-report/nested", cwd=tmp_path)
    assert done.returncode == 2 and "toolsurface-report: is a symbolic link" in done.stderr
    followed = toolsurface("run", *ONE_CASE, "--follow-symlinks", cwd=tmp_path)
    assert followed.returncode == 0, followed.stderr
    assert (elsewhere / "results.json").is_file()


def test_a_run_leaves_no_report_of_an_earlier_run_beside_its_results(tmp_path):
    first = toolsurface("run", *ONE_CASE, *ALL_FORMATS, "--out", "out", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    second = toolsurface("run", *ONE_CASE, "--format", "md", "--out", "out", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert {path.name for path in (tmp_path / "out").iterdir()} == {"results.json", "audit.md"}


@pytest.mark.parametrize("jobs", ["10000", "1679945453245"])
def test_more_jobs_than_a_run_can_use_are_capped_and_said_so(tmp_path, jobs):
    # Once a fork per job asked for, until the machine ran out of processes and memory.
    done = toolsurface("run", *ONE_CASE, "--jobs", jobs, "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"note: --jobs {jobs} is more than this run can use; it starts 1" in done.stderr


def test_a_timeout_shorter_than_a_timer_can_count_still_times_every_case_out(tmp_path):
    # Once an internal error: the alarm went off before the deadline's block began.
    done = toolsurface(
        "run", *ONE_CASE, "--timeout", "1e-300", "--jobs", "0", "--red-target", "none", "--out", "out", cwd=tmp_path
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
