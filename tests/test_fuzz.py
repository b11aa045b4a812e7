"""Every input the command line reads, made wrong, ends as the CLI promises: exit 0, 1 or 2, never
3; on exit 2 one `error:` line per problem naming the file, flag or key at fault, no traceback;
and nothing half-written left behind (see `tests/fixtures/fuzz/runs.py`).

A few dozen inputs of each kind on every run, in this process; `tests/benchmarks/bench_fuzz.py`
runs ten thousand and counts how each ended.
"""

import json

import pytest
import typer.main
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixtures.fuzz.documents import DOCUMENTS, RUN
from tests.fixtures.fuzz.flags import BASE, VALUES, flag_attempts, parameters
from tests.fixtures.fuzz.runs import Attempt, Ended, breaches, run_attempt, work_folder
from tests.fixtures.fuzz.seeds import (
    CASE,
    CONFIG_FILE,
    EXPECTATIONS_FILE,
    GUARD_FILE,
    LOG_FILE,
    RESULTS_FILE,
    SHARD_FILES,
    seeds,
)
from tests.scenarios.test_import import LOGS
from toolsurface.cli._app import app
from toolsurface.common._printable import printable

#: Every kind of input: each file format, and the flags.
ATTEMPTS = {**DOCUMENTS, "flag": flag_attempts}
#: A file per kind is a fraction of a second; the seeds' run costs about a second once.
#: The app runs in this process, and `explore` searches with Hypothesis of its own: a nested search.
FUZZ = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.nested_given,
    ],
)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Where the attempts' work folders go, and the user's cache folder they share (scenarios found valid)."""
    return tmp_path_factory.mktemp("fuzz"), tmp_path_factory.mktemp("cache")


def attempted(attempt, folders):
    ended = run_attempt(attempt, work_folder(folders[0]), folders[1])
    assert not breaches(attempt, ended), f"{attempt.args!r} ended {ended.status}: {breaches(attempt, ended)}"
    return ended


@pytest.mark.parametrize("kind", ATTEMPTS)
@FUZZ
@given(data=st.data())
def test_every_input_made_wrong_ends_as_promised(kind, folders, data):
    attempted(data.draw(ATTEMPTS[kind]()), folders)


def nested(depth):
    value = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_the_crashes_the_issue_names_end_with_one_line_naming_their_input(folders):
    """Each was an internal error (exit 3): a stop type that is not a string, a timeout past what a
    clock holds (from a flag and from the config), call arguments nested 500 deep, a threshold past 64 bits."""
    results = seeds().results.replace(b'"stop":{"type":"refused"', b'"stop":{"type":["refused"]', 1)
    config = b"[tool.toolsurface]\ntimeout = 9223372036854775807\n"
    threshold = b"[tool.toolsurface.thresholds]\nmin_cases = 18446744073709551616\n"
    call = {
        "role": "assistant",
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "web", "arguments": nested(500)}}],
    }
    tool = {"type": "function", "function": {"name": "web", "parameters": {"type": "object"}}}
    log = json.dumps({"messages": [call], "tools": [tool]}).encode()  # orjson writes 254 levels at most
    cases = [
        (("report", RESULTS_FILE), {RESULTS_FILE: results}, "$.cases[0].evidence.stop.type: expected one of"),
        (
            ("merge", RESULTS_FILE, RESULTS_FILE),
            {RESULTS_FILE: results},
            "$.cases[0].evidence.stop.type: expected one of",
        ),
        ((*RUN, "--timeout", "1e308"), {}, "--timeout 1e+308 must be a positive number of seconds, at most 86400"),
        (
            (*RUN, "--config", CONFIG_FILE),
            {CONFIG_FILE: config},
            "[tool.toolsurface].timeout: 9223372036854775807 must be",
        ),
        (
            (*RUN, "--config", CONFIG_FILE),
            {CONFIG_FILE: threshold},
            "[tool.toolsurface].thresholds.min_cases: 18446744073709551616 is past",
        ),
        (
            ("import", "openai", LOG_FILE),
            {LOG_FILE: log},
            "$.messages[0].tool_calls[0].function.arguments: nested more than 254 levels",
        ),
    ]
    for args, files, problem in cases:
        attempt = Attempt(
            "issue",
            args,
            tuple({**seeds().files(), **files}.items()),
            (RESULTS_FILE, "--timeout", CONFIG_FILE, LOG_FILE),
        )
        ended = attempted(attempt, folders)
        assert ended.status == 2 and problem in ended.stderr and ended.stderr.count("\n") == 1, ended.stderr


#: What the fuzz found, each once an internal error, a traceback-free but many-line exit 2, or worse:
#: the command line, the files changed from the seeds, and how the one line names the input.
FOUND = {
    "a pyproject whose tool table is a string": (
        ("run", "--config", CONFIG_FILE),
        {CONFIG_FILE: b'tool = "toolsurface"\n'},
        "[tool]: expected a table, found str",
    ),
    "a scan table that is a number": (
        ("scan", GUARD_FILE, "--config", CONFIG_FILE),
        {CONFIG_FILE: b"[tool.toolsurface]\nscan = 1\n"},
        "[tool.toolsurface.scan]: expected a table",
    ),
    "TOML arrays nested 3000 deep": (
        ("run", "--config", CONFIG_FILE),
        {CONFIG_FILE: b"[tool.toolsurface]\nselect = " + b"[" * 3000 + b"]" * 3000},
        "nested too deeply",
    ),
    "TOML tables nested 3000 deep by one dotted key": (
        ("scan", GUARD_FILE, "--config", CONFIG_FILE),
        {CONFIG_FILE: b"[tool.toolsurface.scan]\n" + b".".join([b"a"] * 3000) + b" = 1"},
        "nested more than 100 levels deep",
    ),
    "a TOML integer of 5000 digits": (
        ("run", "--expectations", EXPECTATIONS_FILE),
        {EXPECTATIONS_FILE: b"a = 1" + b"0" * 5000},
        "an integer too long to read",
    ),
    "a TOML integer of 16000 bits": (
        ("run", "--config", CONFIG_FILE),
        {CONFIG_FILE: b"[tool.toolsurface]\nseed = 0x" + b"f" * 4000},
        "an integer of 16000 bits",
    ),
    "an --out that is not UTF-8, printed to a strict UTF-8 stdout": (
        ("merge", *SHARD_FILES, "--out", "\udcff"),
        {},
        None,
    ),
    "a scan time limit past what a clock holds": (
        ("scan", GUARD_FILE, "--time-limit", "1e9"),
        {},
        "--time-limit 1000000000.0 must be",
    ),
    "a scenario path longer than a file name may be": (
        ("list", "cases", "--scenarios", "a" * 300),
        {},
        ": cannot read: File name too long",
    ),
    "a path with a newline, once two lines": (("report", "new\nline"), {}, "error: new\\nline: cannot read"),
    "an import whose notes came before its failed write": (
        ("import", "openai", LOG_FILE, "--output", "missing/x"),
        {},
        "--output missing/x: cannot write there",
    ),
    "a shard count past 64 bits, which results.json cannot hold": (
        (*RUN, "--shard", "1/" + "9" * 30),
        {},
        "--shard '1/999",
    ),
    "a shard of digits int() refuses": ((*RUN, "--shard", "²/³"), {}, "--shard '²/³' must look like K/N"),
    "a target that crashes while it is recorded, once named by no input": (
        ("record", "--scenarios", "s.json", "--target", "tests.fixtures.user_targets:Crashing"),
        {},
        "--target 'tests.fixtures.user_targets:Crashing': recording web-read-child-single-tool: the "
        "target crashed: RuntimeError",
    ),
    "a flag typer refuses, once typer's usage block of four lines": (
        ("run", "--jobs", "x"),
        {},
        "error: Invalid value for '--jobs'",
    ),
    "an --out too long to look up, once a crash looking for symbolic links": (
        ("merge", *SHARD_FILES, "--out", "a" * 300),
        {},
        "cannot write there",
    ),
    "a reproduce path too long to look up, once a crash reading it as printed": (
        ("reproduce", CASE, "--scenarios", "a" * 300),
        {},
        "File name too long",
    ),
    "one shard of two, once refused naming no input": (
        ("merge", "--out", "merged", SHARD_FILES[0]),
        {},
        ":$.run.shard: shard 2/2 missing",
    ),
}


@pytest.mark.parametrize(("args", "files", "problem"), FOUND.values(), ids=FOUND.keys())
def test_what_the_fuzz_found_ends_as_promised(folders, args, files, problem):
    names = (CONFIG_FILE, EXPECTATIONS_FILE, printable(args[-1]), args[-2])
    import_log = (
        {LOG_FILE: json.dumps(LOGS["openai"]).encode()} if args[0] == "import" else {}
    )  # a custom tool: a note to print
    ended = attempted(Attempt("found", args, tuple({**seeds().files(), **import_log, **files}.items()), names), folders)
    if problem is None:  # written as the byte the name stands for
        assert (
            ended.status in (0, 1)
            and "results: \\udcff/results.json" in ended.stdout
            and ended.new[0] == "\udcff/results.json"
        )
    else:
        assert ended.status == 2 and problem in ended.stderr and ended.stderr.count("\n") == 1, ended.stderr


ATTEMPT = Attempt("flag", ("run", "--seed", "x"), (), ("--seed",))


@pytest.mark.parametrize(
    ("ended", "breach"),
    [
        (Ended(3, "", "internal error: KeyError: 'x' (a bug in toolsurface …)\n"), "exit 3: internal error: KeyError"),
        (
            Ended(2, "", "Usage: toolsurface run [OPTIONS]\n\nError: Invalid value for '--seed'\n"),
            "exit 2 line names no input",
        ),
        (Ended(2, "", "error: s.json: no such scenario file or folder\n"), "exit 2 line names no input"),
        (Ended(2, "", ""), "exit 2 with nothing on stderr"),
        (Ended(1, "", "Traceback (most recent call last):\n"), "a traceback on stderr"),
        (Ended(1, "", "", escaped="KeyError: 'x'"), "an exception escaped the command"),
        (
            Ended(2, "", "error: --seed 'x' is not a number\n", new=("out/results.json",)),
            "a failed command left files: out/results.json",
        ),
        (Ended(0, "", "", temporaries=("out/.results.json-1-abc.part",)), "temporaries left"),
        (
            Ended(2, "", "error: --seed 'x' is not a number\n", gone=("a/results.json",)),
            "inputs removed: a/results.json",
        ),
    ],
)
def test_the_promise_is_checked_in_full(ended, breach):
    """A check that cannot fail proves nothing: each way of breaking the promise is caught."""
    found = breaches(ATTEMPT, ended)
    assert any(line.startswith(breach) for line in found), found
    assert breaches(ATTEMPT, Ended(2, "", "error: --seed 'x' is not a number\n")) == ()


def test_every_flag_and_argument_of_every_command_is_fuzzed():
    commands = set(typer.main.get_command(app).list_commands(None))
    assert set(BASE) == commands
    unfuzzed = [
        f"{command} {param.name}" for command in commands for param in parameters(command) if param.name not in VALUES
    ]
    assert unfuzzed == []
