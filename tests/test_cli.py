"""End to end: the installed `toolsurface` command, as CI and a user run it."""

import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from tests.fixtures.strata import default_strata, sample, strata
from toolsurface.contract import GuardedRequest, SurfaceGuard
from toolsurface.harness._reference import DEFECTS
from toolsurface.harness._results import read_results
from toolsurface.harness._types import Ending, VerdictKind
from toolsurface.mutators import Must
from toolsurface.reports import Audit

ROOT = Path(__file__).resolve().parent.parent
RESULTS_SCHEMA = json.loads((ROOT / "harness" / "results.schema.json").read_text())
SIX_KINDS = {"add", "delete", "rename", "reorder", "description", "schema"}
#: One small bundled scenario, for commands that need not run the whole matrix.
SMALL = ROOT / "scenarios" / "bundled" / "web-read-child-single-tool.json"


def toolsurface(*args, cwd=ROOT):
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    if command is None:
        pytest.fail("the `toolsurface` console script is not installed: run the README's install command first")
    return subprocess.run([command, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def results(out):
    """The record a run wrote to `out`, checked against the published schema and read back typed."""
    path = out / "results.json"
    jsonschema.validate(json.loads(path.read_text()), RESULTS_SCHEMA, format_checker=jsonschema.FormatChecker())
    return read_results(path)


def failed(verdict):
    return verdict is not None and not verdict.kind.ok


@pytest.mark.whole_matrix
@pytest.mark.xdist_group("default-run")
def test_default_run_passes_the_gate(default_run):
    done, _, record = default_run
    assert done.returncode == 0, done.stdout + done.stderr
    totals = record.summary.totals
    assert totals.cases >= 500
    assert totals.survived == totals.false_reject == totals.error == 0
    assert record.run.target == "reference:guarded" and record.run.red_target == "reference:legacy"
    red_failures = [c for c in record.cases if failed(c.red_verdict)]
    assert red_failures and all(c.controlled and c.red_verdict.reason for c in red_failures)
    assert record.summary.controlled == len(red_failures)
    assert "PASS:" in done.stdout


def test_legacy_alone_fails_with_survivors_over_all_six_kinds(tmp_path):
    # Every eighth case: each recording and kind, at an eighth of the cost.
    args = ("--target", "reference:legacy", "--red-target", "none", "--shard", "1/8")
    done = toolsurface("run", *args, "--out", str(tmp_path))
    assert done.returncode == 1
    record = results(tmp_path)
    survivors = [c for c in record.cases if c.verdict.kind is VerdictKind.SURVIVED]
    assert len(survivors) >= 13 and {c.case.mutation.kind for c in survivors} >= SIX_KINDS
    assert record.run.red_target is None and all(c.red_verdict is None for c in record.cases)
    # The summary shows each cause by its representative, with the command that reproduces it.
    shown = Audit(record).causes[0].representative
    reproduce = record.run.reproduce(shown.id)
    assert reproduce == f"toolsurface reproduce {shlex.quote(shown.id)} --target reference:legacy --seed 0"
    assert reproduce in done.stdout


def test_reproduce_shows_gateway_and_ledger(tmp_path):
    listed = toolsurface("list", "cases", "--select", "*/no-hooks/async_prep/schema.in_place:type:*")
    case = listed.stdout.split()[0]
    done = toolsurface("reproduce", case, "--target", "reference:legacy")
    assert done.returncode == 1
    assert "sent req_" in done.stdout and "settle" in done.stdout and "survived" in done.stdout
    guarded = toolsurface("reproduce", case)
    assert guarded.returncode == 0 and "pre_dispatch_rejected" in guarded.stdout and "killed" in guarded.stdout


def test_the_record_and_every_report_name_the_target_by_the_spec_given(tmp_path):
    # A subclass of the reference guard carries its `name`, reference:guarded, yet lets every change through.
    impostor = "tests.fixtures.user_targets:Impostor"
    select = ["--select", "web-read-child-single-tool/*/post_seal/*"]
    done = toolsurface(
        "run",
        "--target",
        impostor,
        "--red-target",
        "none",
        *select,
        "--format",
        "md,html,junit,json",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 1
    run = results(tmp_path).run
    assert (run.target, run.red_target) == (impostor, None)
    assert f"toolsurface — {impostor} (seed 0)" in done.stdout
    reports = [
        done.stdout,
        *((tmp_path / name).read_text() for name in ("audit.md", "report.html", "junit.xml", "audit.json")),
    ]
    assert all(impostor in report and "reference:guarded" not in report for report in reports)
    case = toolsurface("list", "cases", *select).stdout.split()[0]
    reproduced = toolsurface("reproduce", case, "--target", impostor)
    assert reproduced.returncode == 1 and f"target   {impostor}   must refuse\n" in reproduced.stdout


def hostile_scenario(folder):
    """A bundled scenario whose only tool takes one argument named with a title-setting OSC
    sequence, a clear-screen CSI sequence and a newline."""
    document = json.loads(SMALL.read_text())
    document["id"] = "hostile-child"
    name = "q\x1b]0;pwned\x07\x1b[2J\nx"
    document["contract"]["admitted"][0]["input_schema"] = {
        "type": "object",
        "properties": {name: {"type": "string"}},
        "required": [name],
    }
    folder.mkdir()
    (folder / "hostile.json").write_text(json.dumps(document))
    return str(folder)


def test_control_characters_from_a_scenario_never_reach_the_terminal(tmp_path):
    scenarios = hostile_scenario(tmp_path / "scenarios")
    shown = "q\\x1b]0;pwned\\x07\\x1b[2J\\nx"  # as the terminal shows it
    common = ["--scenarios", scenarios, "--target", "reference:legacy"]
    out = tmp_path / "out"
    done = toolsurface(
        "run", *common, "--red-target", "none", "--select", "*pwned*", "--format", "html,junit", "--out", str(out)
    )
    listed = toolsurface("list", "cases", "--scenarios", scenarios, "--select", "*pwned*")
    assert done.returncode == 1 and listed.returncode == 0
    ids = listed.stdout.splitlines()
    assert ids and all(shown in line for line in ids) and len(ids) == len(results(out).cases)
    # An id copied from `list cases`, and a command copied from `run`, reproduce their case.
    reproduced = toolsurface("reproduce", ids[0], *common)
    assert reproduced.returncode == 1 and f"case     {ids[0]}\n" in reproduced.stdout
    command = next(
        line.strip() for line in done.stdout.splitlines() if line.strip().startswith("toolsurface reproduce")
    )
    again = toolsurface(*shlex.split(command)[1:])
    assert again.returncode == 1 and shown in again.stdout
    # The raw id, as results.json holds it, reproduces the case too.
    raw = toolsurface("reproduce", results(out).cases[0].id, *common)
    assert raw.returncode == 1 and raw.stdout.splitlines()[0] == f"case     {ids[0]}"
    # The reports show it as the terminal does: the page (in JSON, whose own escape doubles the backslash) and JUnit.
    assert json.dumps(shown)[1:-1] in (out / "report.html").read_text()
    names = [case.get("name") for case in ET.parse(out / "junit.xml").getroot().iter("testcase")]
    assert names and all(shown in name for name in names) and set(names) == set(ids)
    # The defect matrix names a hostile case as the first to kill shared-ref.
    defects = toolsurface("defects", "--scenarios", scenarios, "--select", "*pwned*")
    assert defects.returncode == 1 and "shared-ref" in defects.stdout
    for output in (done, listed, reproduced, again, raw, defects):
        assert "\x1b" not in output.stdout + output.stderr and "\x07" not in output.stdout + output.stderr


def test_defects_shows_which_cases_kill_which_defect_and_fails_on_any_left_alive():
    # Two recordings kill some defects and leave the rest alive; that every defect dies on the whole
    # matrix is tests/harness/test_reference.py's (each fails there, the guard passes every case).
    done = toolsurface(
        "defects", "--select", "entry-main-portfolio-document/*", "--select", "etf-compare-main-recovery/*"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    rows = dict(re.findall(r"^  (\S+) +([\d,]+) cases  ", done.stdout, re.MULTILINE))
    assert set(rows) == set(DEFECTS)
    alive = sorted(name for name, count in rows.items() if count == "0")
    assert alive and len(alive) < len(DEFECTS)
    (last,) = [line for line in done.stdout.splitlines() if line.startswith("not killed by any case: ")]
    assert sorted(last.removeprefix("not killed by any case: ").split(", ")) == alive
    for name in ("entry-overclaim", "recovery-reparse", "diagnostic-authority", "identity-blind", "second-receipt"):
        (line,) = [line for line in done.stdout.splitlines() if line.startswith(f"  {name} ")]
        # A count and the first case that kills it, which belongs to one of the two recordings.
        assert re.search(r" [1-9][\d,]* cases  (entry-main-portfolio-document|etf-compare-main-recovery)/\S+", line)


def test_reproduce_names_the_fact_that_narrowed_and_the_one_ignored():
    case = "etf-news-main-budget-exhausted/main/hooks/evidence/availability.replace:forged_fact:invocation"
    done = toolsurface("reproduce", case)
    assert done.returncode == 0, done.stdout
    binding = "run_2026_11_05_a · scope:research/etf-news · inv_11 · conn_market_mcp_2"
    assert (
        f"facts    search_budget_exhausted from web_gateway, bound to {binding}: trusted; hides market__web_search; "
        "keeps market__web_read (source refs src_2c81, src_e4a0, src_77f9)\n"
    ) in done.stdout
    # A look-alike one step past the real value: a comparison of all but its last character is blind to it.
    assert (
        "bound to invocation inv_12, not this request's inv_11 (invisible to a length or head match)\n" in done.stdout
    )
    assert "  sent req_main_0021: 3 tools; identical to the expected surface\n" in done.stdout
    assert "ending   dispatched\n" in done.stdout and "verdict  passed" in done.stdout


def test_a_refused_child_request_is_settled_on_the_child_lane(tmp_path):
    case = "filings-scan-child-deadline/child/no-hooks/post_revalidation/availability.replace:reveal:market__web_read"
    done = toolsurface("reproduce", case)
    assert done.returncode == 0, done.stdout
    assert "  child: reserve req_child_0022\n  child: settle req_child_0022 as pre_dispatch_rejected\n" in done.stdout
    assert "main:" not in done.stdout and "ending   refused\n" in done.stdout
    wrong = toolsurface("reproduce", case, "--target", "reference:defect/wrong-lane-settle")
    assert wrong.returncode == 1 and "main: settle req_child_0022 as pre_dispatch_rejected — REFUSED" in wrong.stdout


def test_over_capacity_results_are_their_own_outcome(tmp_path):
    done = toolsurface("run", "--select", "holdings-review-main-over-capacity/*", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    cases = results(tmp_path).cases
    legit = [c for c in cases if c.case.must is Must.DISPATCH]
    assert (
        legit
        and {c.evidence.ending for c in legit} == {Ending.CAPACITY}
        and {c.verdict.kind for c in legit} == {VerdictKind.PASSED}
    )
    assert "capacity" in done.stdout.split("requests ended:")[1].splitlines()[0]
    dropped = toolsurface(
        "run",
        "--select",
        "holdings-review-main-over-capacity/*",
        "--target",
        "reference:defect/silent-capacity-drop",
        "--red-target",
        "none",
        "--out",
        str(tmp_path / "drop"),
    )
    assert dropped.returncode == 1
    dropped_cases = results(tmp_path / "drop").cases
    assert any(c.evidence.ending is Ending.DISPATCHED and c.verdict.kind is VerdictKind.SURVIVED for c in dropped_cases)


def test_a_malformed_scenario_is_one_line_and_exit_2(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "toolsurface.scenario/1", "id": "x"}))
    out = tmp_path / "out"
    done = toolsurface("run", "--scenarios", str(broken), "--out", str(out))
    assert done.returncode == 2
    assert done.stderr.splitlines()[0] == f"error: {broken}:$: 'description' is a required property"
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert not out.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--shard", "5/4"], "error: --shard '5/4' must look like K/N"),
        (["--target", "reference:nope"], "error: --target 'reference:nope': no such reference target"),
        (
            ["--red-target", "nope"],
            "error: --red-target 'nope': expected 'reference:<name>', 'package.module:factory' or "
            "'<framework>:package.module:factory'",
        ),
        (["--select", "nothing/*"], "error: --select 'nothing/*' matched none of the"),
        (["--format", "md,pdf"], "error: --format 'pdf' is not a report format (known: md, html, junit, json)"),
        (["--today", "soon"], "error: --today 'soon' must be a date, YYYY-MM-DD"),
        (["--config", "missing.toml"], "error: --config missing.toml: cannot read: No such file or directory"),
    ],
)
def test_bad_flags_exit_2(tmp_path, args, message):
    done = toolsurface("run", *args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.startswith(message) and len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_an_unwritable_out_folder_is_bad_input(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    done = toolsurface("run", "--select", "*/post_seal/delete.*", "--out", str(blocker))
    assert done.returncode == 2
    assert done.stderr == f"error: --out {blocker}: cannot write there: File exists\n"


@pytest.fixture(scope="module")
def shard_results(tmp_path_factory):
    """The results.json of a small run, written as shard 1 of 1 so that `merge` takes it."""
    out = tmp_path_factory.mktemp("shard")
    done = toolsurface("run", "--shard", "1/1", "--select", "*/post_seal/delete.*", "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out / "results.json"


@pytest.mark.parametrize(
    ("command", "flag", "written"),
    [
        (["record", "--scenarios", str(SMALL)], "--out", ""),
        (["merge", "{results}"], "--out", ""),
        (["report", "{results}"], "--output", "audit.md"),
        (["scan", str(ROOT / "tests" / "fixtures" / "small_guard.py")], "--output", "scan.txt"),
    ],
)
def test_a_place_a_command_cannot_write_is_named_by_that_command_s_flag(
    tmp_path, shard_results, command, flag, written
):
    blocker = tmp_path / "file"
    blocker.write_text("")
    # A folder flag is given the file, a file flag a file in that "folder"; the error names the file
    # the command could not write (`written`), or the folder itself when it is checked before any write.
    target = blocker if flag == "--out" else blocker / written
    done = toolsurface(*(word.format(results=shard_results) for word in command), flag, str(target))
    assert done.returncode == 2
    problem = "File exists" if flag == "--out" else "Not a directory"
    assert done.stderr == f"error: {flag} {blocker / written}: cannot write there: {problem}\n"


@pytest.mark.parametrize(
    "command",
    [["report", "{results}", "--format", "md"], ["scan", str(ROOT / "tests" / "fixtures" / "small_guard.py")]],
)
def test_an_output_file_in_a_folder_that_does_not_exist_is_an_error_not_a_new_folder(tmp_path, shard_results, command):
    output = tmp_path / "mistyped" / "audit.md"
    done = toolsurface(*(word.format(results=shard_results) for word in command), "--output", str(output))
    assert done.returncode == 2
    assert done.stderr == f"error: --output {output}: cannot write there: No such file or directory\n"
    assert not (tmp_path / "mistyped").exists()


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ('select = ["nothing/*"]\n', "select: 'nothing/*' matched none of the "),
        ('select = ["*/post_seal/delete.*"]\nout = "file"\n', "out: {folder}/file: cannot write there: File exists"),
    ],
)
def test_a_bad_value_from_the_config_is_named_by_its_file_and_key(tmp_path, settings, problem):
    (tmp_path / "file").write_text("")
    config = tmp_path / "pyproject.toml"
    config.write_text(f"[tool.toolsurface]\n{settings}")
    done = toolsurface("run", "--config", str(config))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(f"error: {config}:[tool.toolsurface].{problem.format(folder=tmp_path)}")


def test_the_commands_that_run_and_report_cases_never_load_libcst_or_hypothesis(tmp_path):
    case = toolsurface("list", "cases", "--select", "*/post_seal/delete.*").stdout.split()[0]
    out = tmp_path / "out"
    commands = [
        ["run", "--shard", "1/1", "--select", "*/post_seal/delete.*", "--out", str(out)],
        ["report", str(out / "results.json")],
        ["merge", str(out / "results.json"), "--out", str(tmp_path / "merged")],
        ["list", "cases", "--select", "*/post_seal/delete.*"],
        ["reproduce", case],
    ]
    # One process runs every command in turn, each as the console script would, and says after
    # each which of the two it has loaded so far.
    code = (
        "import json, sys\n"
        "from toolsurface.cli._app import main\n"
        f"for argv in {commands!r}:\n"
        "    sys.argv = ['toolsurface', *argv]\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit as exit:\n"
        "        status = exit.code\n"
        "    loaded = [name for name in ('libcst', 'hypothesis') if name in sys.modules]\n"
        "    print('loaded:', json.dumps([argv[0], status, loaded]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=tmp_path)
    reports = [
        json.loads(line.removeprefix("loaded: ")) for line in done.stdout.splitlines() if line.startswith("loaded: ")
    ]
    assert reports == [[argv[0], 0, []] for argv in commands], done.stderr


def test_a_failing_user_target_is_reported_not_passed(tmp_path):
    done = toolsurface(
        "run",
        "--target",
        "tests.fixtures.user_targets:Crashing",
        "--red-target",
        "none",
        "--select",
        "*/post_seal/delete.*",
        "--out",
        str(tmp_path),
    )
    assert done.returncode == 1
    totals = results(tmp_path).summary.totals
    assert totals.error == totals.cases > 0


def test_shards_split_the_run(tmp_path):
    ids = []
    for k in (1, 2):
        done = toolsurface(
            "run", "--shard", f"{k}/2", "--select", "*/child/*/evidence/*", "--out", str(tmp_path / str(k))
        )
        assert done.returncode == 0, done.stderr
        ids.append({c.id for c in results(tmp_path / str(k)).cases})
    whole = toolsurface("list", "cases", "--select", "*/child/*/evidence/*").stdout.split()
    assert ids[0].isdisjoint(ids[1]) and ids[0] | ids[1] == set(whole)


REFERENCE = ROOT / "harness" / "_reference"


def line_of(path, text):
    """The 1-based line of `path` holding `text`, so a test names a flaw by its code, not its place."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


#: Where `_legacy.py` shares the baseline and where it skips a settlement.
SHARED_BASELINE = "recapture([dict(tool) for tool in admitted]"
SKIPPED_SETTLEMENT = "def settle_refusal(self, refusal: RequestRefused) -> None:"


def test_scan_reports_the_flaws_of_the_old_path_and_none_in_the_guard(tmp_path):
    flawed = [str(REFERENCE / name) for name in ("_legacy.py", "_defects.py", "_careless.py")]
    legacy = toolsurface("scan", *flawed, "--no-cache")
    assert legacy.returncode == 1, legacy.stdout + legacy.stderr
    line = line_of(REFERENCE / "_legacy.py", SHARED_BASELINE)
    assert f"{REFERENCE / '_legacy.py'}:{line}:9 TS104 shared-baseline:" in legacy.stdout
    for flaw in (
        "TS102 conditional-check:",
        "TS105 unsettled-rejection:",
        "TS106 diagnostic-authority:",
        "TS107 silent-truncation:",
    ):
        assert flaw in legacy.stdout, flaw
    guarded = toolsurface("scan", str(REFERENCE / "_guarded.py"))
    assert guarded.returncode == 0, guarded.stdout
    assert "0 findings, 0 suppressed, 0 files not scanned; 1 of 1 files parsed" in guarded.stdout


def test_scan_writes_sarif_whole_and_goes_on_past_a_file_that_does_not_parse(tmp_path):
    (tmp_path / "broken.py").write_text("tools = (\n")
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "scan.sarif"
    done = toolsurface(
        "scan", str(REFERENCE / "_legacy.py"), str(tmp_path / "broken.py"), "--format", "sarif", "--output", str(out)
    )
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path / 'broken.py'}:1:9: cannot parse: '(' was never closed\n"
    log = json.loads(out.read_text())
    jsonschema.validate(
        log, json.loads((ROOT / "tests" / "fixtures" / "schemas" / "sarif-2.1.0.schema.json").read_text())
    )
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in log["runs"][0]["results"]
    ] == [
        ("TS104", line_of(REFERENCE / "_legacy.py", SHARED_BASELINE)),
        ("TS105", line_of(REFERENCE / "_legacy.py", SKIPPED_SETTLEMENT)),
    ]
    assert [p.name for p in out.parent.iterdir()] == ["scan.sarif"]


def test_scan_of_a_missing_path_is_one_line_and_exit_2(tmp_path):
    done = toolsurface("scan", str(tmp_path / "nope.py"), "--output", str(tmp_path / "report.json"), "--format", "json")
    assert done.returncode == 2
    assert done.stderr == f"error: {tmp_path / 'nope.py'}: no such file or folder to scan\n"
    assert not (tmp_path / "report.json").exists()


def test_scan_reports_each_bad_file_once_and_scans_the_rest(tmp_path):
    for index in range(20):
        (tmp_path / f"m{index:02}.py").write_text("def take_baseline(run):\n    return list(run.tools)\n")
    # CPython refuses this, and libcst's native parser would overflow its stack on it.
    (tmp_path / "nested.py").write_text("tools = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    os.mkfifo(tmp_path / "pipe.py")
    for jobs in ("1", "2"):
        done = toolsurface("scan", str(tmp_path), "--no-cache", "--jobs", jobs)
        assert done.returncode == 2, done.stdout + done.stderr
        assert done.stderr == ""  # the listing on stdout names the error; stderr does not repeat it
        lines = done.stdout.splitlines()
        assert lines.count(f"error: {tmp_path / 'nested.py'}:1:209: cannot parse: too many nested parentheses") == 1
        assert f"skipped: {tmp_path / 'pipe.py'}: a FIFO, never opened" in lines
        assert lines[-2].startswith("note: no dispatch seam recognised")
        assert lines[-1] == "20 findings (TS104 ×20), 0 suppressed, 1 files not scanned; 20 of 21 files parsed"
    as_json = toolsurface("scan", str(tmp_path / "nested.py"), "--format", "json")
    assert as_json.returncode == 2 and as_json.stderr.count("error: ") == 1
    assert json.loads(as_json.stdout)["failures"][0]["problem"].endswith("too many nested parentheses")


def test_scan_names_a_path_that_is_not_python_and_checks_its_time_limit(tmp_path):
    (tmp_path / "notes.txt").write_text("baseline = list(tools)\n")
    done = toolsurface("scan", str(tmp_path / "notes.txt"))
    assert done.returncode == 2
    assert done.stdout.splitlines()[0].startswith(f"error: {tmp_path / 'notes.txt'}: not Python source (")
    bad = toolsurface("scan", str(tmp_path), "--time-limit", "0")
    assert (bad.returncode, bad.stderr) == (
        2,
        "error: --time-limit 0.0 must be a positive number of seconds, at most 86400 (a day)\n",
    )
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.toolsurface.scan]\ntime_limit = -1\n")
    refused = toolsurface("scan", str(tmp_path), "--config", str(config))
    assert (refused.returncode, refused.stderr) == (
        2,
        f"error: {config}:[tool.toolsurface.scan].time_limit: expected a positive number of seconds, at "
        "most 86400 (a day), got -1\n",
    )


@pytest.mark.whole_matrix
def test_mutants_of_the_shipped_guard_survive_only_where_the_recorded_pipeline_never_goes(tmp_path):
    report = tmp_path / "mutants.json"
    # The kinds of change that reach the guard's steps: deletes, legitimate changes, entry summaries
    # and the recordings over capacity (a sixth of the matrix; the whole of it kills the same three).
    kinds = ["*/delete.*", "*/legit.*", "*/entry.*", "*over-capacity*"]
    done = toolsurface("mutants", "reference:guarded", *(f"--select={glob}" for glob in kinds), "--output", str(report))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "contract/_guard.py on reference:guarded" in done.stdout.splitlines()[0]
    assert "mutation score 43%: 3 of 7 mutants killed" in done.stdout
    # The survivors are the settlements of a request that ends in an error other than the guard's
    # own refusal, which no recorded stage raises, and the capture of tools handed without their
    # snapshot (the pipeline hands the recorded one): framework targets reach them.
    (entry,) = json.loads(report.read_text())["files"].values()
    survivors = {m["location"]["start"]["line"] for m in entry["mutants"] if m["status"] == "Survived"}
    unreached = set()
    for step in (GuardedRequest.settling, SurfaceGuard.take_baseline):
        lines, first = inspect.getsourcelines(step)
        unreached |= set(range(first, first + len(lines)))
    assert survivors and survivors <= unreached
    document = json.loads(report.read_text())
    jsonschema.validate(
        document,
        json.loads(
            (ROOT / "tests" / "fixtures" / "schemas" / "stryker-mutation-testing-report.schema.json").read_text()
        ),
    )
    (entry,) = document["files"].values()
    assert all(m["killedBy"] for m in entry["mutants"] if m["status"] == "Killed")


def test_a_surviving_mutant_fails_the_gate_and_shows_its_diff():
    done = toolsurface(
        "mutants", "tests.fixtures.small_guard:factory", "--select", "web-read-child-single-tool/*/legit.*"
    )
    assert done.returncode == 1
    assert (
        "Survived RemoveCheck@" in done.stdout
        and "-            check_parity(tools, ports.fmt, baseline)" in done.stdout
    )


def test_mutants_names_the_seams_of_the_config_it_is_given(tmp_path):
    # The guard's parity check goes by a name of its own, named as a check only in the given file.
    source = (ROOT / "tests" / "fixtures" / "small_guard.py").read_text().replace("check_parity", "verify_tools")
    (tmp_path / "own_guard.py").write_text(source)
    config = tmp_path / "settings" / "pyproject.toml"
    config.parent.mkdir()
    config.write_text('[tool.toolsurface.scan]\ncheck = ["verify_tools"]\n')
    args = ["mutants", "own_guard:factory", "--select", "web-read-child-single-tool/*"]
    default = toolsurface(*args, cwd=tmp_path)
    assert default.returncode == 0 and "3 of 3 mutants killed" in default.stdout and "RemoveCheck" not in default.stdout
    configured = toolsurface(*args, "--config", str(config), cwd=tmp_path)
    assert configured.returncode == 0, configured.stdout + configured.stderr
    assert "4 of 4 mutants killed" in configured.stdout and "RemoveCheck@" in configured.stdout


def test_mutants_refuses_an_unknown_scan_setting_in_its_config(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.toolsurface.scan]\nchecks = ["verify_tools"]\n')
    done = toolsurface(
        "mutants", "reference:guarded", "--select", "web-read-child-single-tool/*", "--config", str(config)
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"error: {config}:[tool.toolsurface.scan].checks: unknown setting (known: baseline, check,"
    )
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_an_imported_log_runs_as_a_scenario(tmp_path):
    log = tmp_path / "request.json"
    tool = {
        "type": "function",
        "function": {"name": "market__web_search", "description": "Search the web.", "parameters": {"type": "object"}},
    }
    log.write_text(json.dumps({"messages": [{"role": "user", "content": "Compare two funds."}], "tools": [tool]}))
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    done = toolsurface("import", "openai", str(log), "--output", str(recordings / "request.json"))
    assert done.returncode == 0, done.stderr
    run = toolsurface("run", "--scenarios", str(recordings), "--red-target", "none", "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert {c.case.scenario for c in results(tmp_path / "out").cases} == {"request"}
    bad = toolsurface("import", "mcp", str(log))
    assert bad.returncode == 2 and bad.stderr.startswith(
        f"error: {log}:$.tools[0]: this is an OpenAI Chat Completions body"
    )


def test_a_logged_body_with_provider_tools_imports_its_function_tools_and_says_what_it_kept_out(tmp_path):
    log = tmp_path / "responses.json"
    tools = [
        {"type": "web_search_preview"},
        {"type": "function", "name": "fx__quote", "parameters": {"type": "object"}},
    ]
    log.write_text(json.dumps({"model": "m", "input": "Quote EUR in USD.", "tools": tools}))
    done = toolsurface("import", "openai", str(log))
    assert done.returncode == 0, done.stderr
    assert (
        done.stderr
        == "kept out of the contract: 1 built-in tool: web_search_preview (a provider tool the host does not admit)\n"
    )
    assert json.loads(done.stdout)["contract"]["admitted"] == [
        {"name": "fx__quote", "description": "", "input_schema": {"type": "object"}}
    ]
    wrong = toolsurface("import", "anthropic", str(log))
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr == (
        f"error: {log}:$.tools[0].type: this is an OpenAI Responses body ('web_search_preview' is an "
        "OpenAI built-in tool); "
        "import it with `toolsurface import openai`\n"
    )


def test_an_otel_span_export_imports_one_scenario_per_model_call_and_they_run_clean(tmp_path):
    pytest.importorskip(
        "opentelemetry.sdk", reason="writes its span export with the OpenTelemetry SDK: pip install -e '.[dev]'"
    )
    from tests.fixtures.otel_export import chat_span, otlp_json, record

    search = {
        "type": "function",
        "name": "market__web_search",
        "description": "Search the web.",
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    read = {
        "type": "function",
        "name": "market__web_read",
        "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
    }
    messages = [{"role": "user", "parts": [{"type": "text", "content": "Compare two funds."}]}]

    def calls(tracer):
        chat_span(
            tracer,
            {
                "gen_ai.tool.definitions": json.dumps([search, read, {"type": "web_search_preview"}]),
                "gen_ai.input.messages": json.dumps(messages),
            },
        )
        chat_span(
            tracer,
            {"gen_ai.tool.definitions": json.dumps([search]), "gen_ai.input.messages": json.dumps(messages)},
            name="chat again",
        )
        chat_span(tracer, {}, name="chat bare")

    spans = record(calls)
    ids = {span.name: format(span.context.span_id, "016x") for span in spans}
    export = tmp_path / "traces.json"
    export.write_text(json.dumps(otlp_json(spans)))
    out = tmp_path / "imported"
    done = toolsurface("import", "otel", str(export), "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr.splitlines() == [
        f"span {ids['chat bare']} (chat bare) has no gen_ai.tool.definitions: skipped",
        f"span {ids['chat gpt-4o']} (chat gpt-4o): kept out of the contract: 1 built-in tool: "
        "web_search_preview (a provider tool the host does not admit)",
        f"wrote 2 scenarios to {out}",
    ]
    expected = {f"traces-{ids['chat gpt-4o']}", f"traces-{ids['chat again']}"}
    assert {path.stem for path in out.glob("*.json")} == expected
    run = toolsurface("run", "--scenarios", str(out), "--red-target", "none", "--out", str(tmp_path / "report"))
    assert run.returncode == 0, run.stdout + run.stderr
    outcome = results(tmp_path / "report")
    totals = outcome.summary.totals
    assert totals.cases > 0 and totals.survived == totals.false_reject == totals.error == 0
    assert {c.case.scenario for c in outcome.cases} == expected
    several = toolsurface("import", "otel", str(export))
    assert several.returncode == 2 and several.stdout == ""
    assert (
        several.stderr.splitlines()[-1]
        == f"error: {export} holds 2 model-call spans with tools: name a folder for their scenarios with --output DIR"
    )
    wrong = toolsurface("import", "openai", str(export))
    assert (
        wrong.returncode == 2
        and wrong.stderr
        == f"error: {export}:$.resourceSpans: this is an OTLP trace export; import it with `toolsurface import otel`\n"
    )
    bad_id = toolsurface("import", "otel", str(export), "--output", str(tmp_path / "other"), "--id", "Traces 1")
    assert (
        bad_id.returncode == 2
        and bad_id.stderr == "error: --id 'Traces 1' must be a scenario id: lower-case letters, digits and dashes\n"
    )
    broken = tmp_path / "broken.json"  # one span of three cannot be read: nothing is written
    broken.write_text(
        export.read_text().replace('\\"name\\": \\"market__web_read\\"', '\\"name\\": \\"market web read\\"')
    )
    failed = toolsurface("import", "otel", str(broken), "--output", str(tmp_path / "other"))
    assert failed.returncode == 2 and failed.stderr.splitlines()[-1].startswith(
        f"error: {broken}:$.resourceSpans[0].scopeSpans[0].spans[0].attributes["
    )
    assert "gen_ai.tool.definitions[1].name: 'market web read' is not a tool name" in failed.stderr
    assert not (tmp_path / "other").exists()


def test_help_shows_toml_tables_as_written():
    done = toolsurface("run", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "pyproject.toml with [tool.toolsurface]" in text and "([[expect]] entries)" in text
    assert "[default: reference:guarded]" in text


@pytest.mark.parametrize(
    "command", ["run", "report", "merge", "reproduce", "defects", "list", "import", "record", "scan", "mutants"]
)
def test_help_names_each_value_as_the_docs_do_never_by_its_python_type(command):
    done = toolsurface(command, "--help")
    assert done.returncode == 0
    # Choices (`<md|html|junit|json>`) are values; `<list[Path]>`, `<str>` or `<float>` are Python types.
    assert not re.findall(r"<(?:list\[\w+\]|str|int|float|path|bool)>", done.stdout, re.IGNORECASE), done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("framework", "module"), [("pydantic-ai", "pydantic_ai"), ("langchain", "langchain"), ("openai-agents", "agents")]
)
def test_the_framework_targets_run_offline_stock_lets_changes_through_and_guarded_passes(tmp_path, framework, module):
    pytest.importorskip(module, reason=f"needs the {framework} extra: pip install 'toolsurface[{framework}]'")
    # A third of two recordings' cases: each kind of change, at each point of one, at the other's hook
    # (its 140 tools make its cases the dearest).
    select = ["--select", "etf-compare-main-hooked/*", "--select", "holdings-review-main-over-capacity/*/hook/*"]
    select += ["--shard", "1/3"]
    guarded = toolsurface(
        "run", "--target", f"{framework}:guarded", "--red-target", "none", *select, "--out", str(tmp_path / "guarded")
    )
    assert guarded.returncode == 0, guarded.stdout[-2000:] + guarded.stderr
    stock = toolsurface(
        "run", "--target", f"{framework}:stock", "--red-target", "none", *select, "--out", str(tmp_path / "stock")
    )
    assert stock.returncode == 1
    cases = results(tmp_path / "stock").cases
    assert {c.case.mutation.kind for c in cases if c.verdict.kind is VerdictKind.SURVIVED} >= {
        "delete",
        "reorder",
        "description",
        "schema",
    }
    # A change that breaks a schema's references (a near miss on a `$ref`, `$defs` removed) makes a
    # framework's tool converter raise before anything is sent: a crash, so an error. Nothing else is.
    broken_refs = ("/$ref~", ":/$defs")
    assert not [
        c for c in cases if c.verdict.kind is VerdictKind.ERROR and not any(part in c.case.id for part in broken_refs)
    ]


def test_recorded_scenarios_replay_to_the_totals_of_the_live_run(tmp_path):
    done = toolsurface("record", "--out", str(tmp_path / "recorded"))
    assert done.returncode == 0, done.stderr
    assert len(list((tmp_path / "recorded").glob("*.json"))) == len(
        toolsurface("list", "scenarios").stdout.splitlines()
    )
    # The claim is about the recording, not about each case: a stratified sample, every recording at
    # every point with every kind of change, is judged the same live and replayed.
    select = [word for pattern in sample() for word in ("--select", pattern)]
    live = toolsurface("run", "--red-target", "none", *select, "--out", str(tmp_path / "live"))
    replay = toolsurface(
        "run",
        "--scenarios",
        str(tmp_path / "recorded"),
        "--red-target",
        "none",
        *select,
        "--out",
        str(tmp_path / "replay"),
    )
    assert live.returncode == replay.returncode == 0
    live_record, replayed = results(tmp_path / "live"), results(tmp_path / "replay")
    assert strata(live_record.cases) == default_strata()
    assert [c.id for c in replayed.cases] == [c.id for c in live_record.cases]
    assert replayed.summary.totals == live_record.summary.totals
    legacy = toolsurface("record", "--target", "reference:legacy", "--out", str(tmp_path / "legacy"))
    assert legacy.returncode == 2 and "first boundary lacks 'market__web_search'" in legacy.stderr
    assert not (tmp_path / "legacy").exists()


LANGCHAIN_AGENT = "langchain:tests.fixtures.agents.langchain_app:build_guarded"
#: A request of three model calls: its later calls' boundaries are recorded as their steps' stages.
TOOL_LOOP = ROOT / "scenarios" / "bundled" / "etf-compare-main-tool-loop.json"


def test_an_agent_s_recording_replays_on_it_and_on_the_reference_pipelines(tmp_path):
    pytest.importorskip("langchain")
    recorded = tmp_path / "recorded"
    done = toolsurface(
        "record",
        "--target",
        LANGCHAIN_AGENT,
        "--scenarios",
        str(SMALL),
        "--scenarios",
        str(TOOL_LOOP),
        "--out",
        str(recorded),
    )
    assert done.returncode == 0, done.stderr
    loop = json.loads((recorded / TOOL_LOOP.name).read_text())
    assert [stage["point"] for stage in loop["stages"]] == ["before:tracing", "after:tracing", "after:ProviderLimit"]
    assert [[stage["point"] for stage in step["stages"]] for step in loop["steps"]] == [
        ["before:tracing", "after:tracing", "after:ProviderLimit"]
    ] * 2
    select = ["--select", "*/after:tracing*/delete.*", "--select", "*/before:tracing@3/legit.*"]
    live = toolsurface(
        "run",
        "--target",
        LANGCHAIN_AGENT,
        "--scenarios",
        str(SMALL),
        "--scenarios",
        str(TOOL_LOOP),
        *select,
        "--out",
        str(tmp_path / "live"),
    )
    replay = toolsurface(
        "run", "--target", LANGCHAIN_AGENT, "--scenarios", str(recorded), *select, "--out", str(tmp_path / "replay")
    )
    assert live.returncode == replay.returncode == 0, replay.stdout
    verdicts = {case.id: case.verdict.kind for case in results(tmp_path / "live").cases}
    assert (
        len(verdicts) > 20 and {case.id: case.verdict.kind for case in results(tmp_path / "replay").cases} == verdicts
    )
    guarded = toolsurface(
        "run",
        "--scenarios",
        str(recorded),
        "--select",
        "*/delete.*",
        "--select",
        "*/legit.*",
        "--out",
        str(tmp_path / "guarded"),
    )
    assert guarded.returncode == 0, guarded.stdout
    assert {case.case.point for case in results(tmp_path / "guarded").cases} == {
        "before:tracing",
        "after:tracing",
        "after:ProviderLimit",
    }


def test_a_target_with_boundaries_of_its_own_is_paired_with_no_red_target_unless_one_is_given(tmp_path):
    pytest.importorskip("langchain")
    select = ("--select", "*/before:tracing/delete.*")
    unpaired = toolsurface(
        "run", "--target", LANGCHAIN_AGENT, "--scenarios", str(SMALL), *select, "--out", str(tmp_path / "unpaired")
    )
    assert unpaired.returncode == 0, unpaired.stderr
    said = [line for line in unpaired.stderr.splitlines() if line.startswith("no red target")]
    assert said == [
        f"no red target: {LANGCHAIN_AGENT} offers boundaries of its own, which no reference target "
        "offers, so its cases are not "
        "paired (--red-target pairs them)"
    ]
    assert results(tmp_path / "unpaired").run.red_target is None
    paired = toolsurface(
        "run",
        "--target",
        LANGCHAIN_AGENT,
        "--red-target",
        "reference:legacy",
        "--scenarios",
        str(SMALL),
        *select,
        "--out",
        str(tmp_path / "paired"),
    )
    assert "no red target" not in paired.stderr and results(tmp_path / "paired").run.red_target == "reference:legacy"
    reference = toolsurface(
        "run", "--scenarios", str(SMALL), "--select", "*/post_seal/delete.*", "--out", str(tmp_path / "reference")
    )
    assert (
        "no red target" not in reference.stderr and results(tmp_path / "reference").run.red_target == "reference:legacy"
    )


def test_a_target_paired_with_itself_is_warned_of(tmp_path):
    done = toolsurface(
        "run", "--red-target", "reference:guarded", "--select", "*/post_seal/delete.*", "--out", str(tmp_path / "out")
    )
    assert done.returncode == 0, done.stderr
    assert (
        "warning: the red target is the target itself (reference:guarded): a case fails on both or on neither"
        in done.stderr
    )
    assert "0 controlled" in done.stdout


def test_scan_runs_the_rules_selected_by_id_and_names_an_unknown_one():
    legacy = str(REFERENCE / "_legacy.py")
    done = toolsurface("scan", legacy, "--select", "TS104,TS105", "--ignore", "TS105", "--no-cache")
    assert done.returncode == 1
    assert {line.split()[1] for line in done.stdout.splitlines() if " TS1" in line and line.startswith(legacy)} == {
        "TS104"
    }
    done = toolsurface("scan", legacy, "--select", "TS999")
    assert done.returncode == 2
    assert (
        done.stderr.startswith("error: --select 'TS999' is not a rule (known: TS100, TS101,")
        and done.stderr.count("\n") == 1
    )
