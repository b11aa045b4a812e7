"""End to end: the reports, the expectations gate, shards and merge, through the installed command."""

import html
import json
import xml.etree.ElementTree as ET

import orjson
import pytest

from tests.fixtures.strata import sample
from tests.test_cli import results, toolsurface
from toolsurface.harness._codec import decode
from toolsurface.harness._gate import Tallies
from toolsurface.harness._oracles import KILLED
from toolsurface.harness._record import SCHEMA_VERSION, Results, RunInfo, summarize
from toolsurface.harness._results import digest_of, encode
from toolsurface.harness._types import CaseRecord

LEGACY_CHILD = [
    "--target",
    "reference:legacy",
    "--red-target",
    "none",
    "--select",
    "web-read-child-single-tool/*/evidence/*",
]


@pytest.mark.whole_matrix
@pytest.mark.xdist_group("default-run")
def test_run_writes_every_report_from_the_same_totals(default_run):
    done, out, record = default_run
    assert done.returncode == 0, done.stderr
    totals = record.summary.totals
    markdown = (out / "audit.md").read_text()
    in_scope = totals.cases - totals.equivalent
    assert f"**PASS** — {totals.killed + totals.passed}/{in_scope} in-scope checks pass" in markdown
    assert f"| **total** | **{totals.cases}** |" in markdown
    suites = ET.parse(out / "junit.xml").getroot()
    assert suites.get("tests") == str(totals.cases) and suites.get("failures") == "0"
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    report = toolsurface("report", str(out / "results.json"), "--format", "junit")
    assert report.returncode == 0 and report.stdout == (out / "junit.xml").read_text()


def test_junit_failures_are_the_failing_cases(tmp_path):
    done = toolsurface("run", *LEGACY_CHILD, "--format", "junit", "--out", str(tmp_path))
    assert done.returncode == 1
    failing = [c for c in results(tmp_path).cases if not c.verdict.kind.ok]
    suites = ET.parse(tmp_path / "junit.xml").getroot()
    assert len(suites.findall(".//failure")) == int(suites.get("failures")) == len(failing) > 0


def expectations(tmp_path, case, verdict="survived", expires="2027-01-31"):
    path = tmp_path / "known.toml"
    path.write_text(
        f'[[expect]]\ncase = "{case}"\nverdict = "{verdict}"\n'
        f'reason = "legacy path, replaced in Q1"\nexpires = {expires}\n'
    )
    return str(path)


def test_accepted_deviations_pass_the_gate(tmp_path):
    known = expectations(tmp_path, "web-read-child-single-tool/*")
    done = toolsurface("run", *LEGACY_CHILD, "--expectations", known, "--today", "2026-12-02", "--out", str(tmp_path))
    assert done.returncode == 0, done.stdout
    summary = results(tmp_path).summary
    gate = summary.gate
    assert gate.ok and gate.failing == () and len(gate.accepted) == summary.totals.survived > 0
    assert "failing cases accepted by expectations" in done.stdout


def test_an_expired_acceptance_fails_the_gate(tmp_path):
    known = expectations(tmp_path, "web-read-child-single-tool/*", expires="2026-12-01")
    done = toolsurface("run", *LEGACY_CHILD, "--expectations", known, "--today", "2026-12-02", "--out", str(tmp_path))
    assert done.returncode == 1
    assert "expired expectation web-read-child-single-tool/*: expired on 2026-12-01" in done.stdout


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("web-read-child-single-tool/*/legit.*", "now end as passed, not survived"),
        ("no-such-scenario/*", "names no planned case"),
    ],
)
def test_a_stale_expectation_fails_the_gate_until_removed(tmp_path, case, why):
    known = expectations(tmp_path, case)
    done = toolsurface(
        "run", "--select", "web-read-child-single-tool/*", "--expectations", known, "--out", str(tmp_path)
    )
    assert done.returncode == 1
    assert f"stale expectation {case}: " in done.stdout and why in done.stdout
    assert results(tmp_path).summary.totals.survived == 0


def test_a_bad_expectations_file_is_one_line_and_exit_2(tmp_path):
    known = expectations(tmp_path, "x", verdict="maybe")
    done = toolsurface("run", "--expectations", known, "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"error: {known}:$.expect[0].verdict: 'maybe' is not one of ['survived', 'false_reject', 'error']"
    ]
    assert not (tmp_path / "out").exists()


def test_shards_merge_into_the_unsharded_results(tmp_path):
    common = ["--select", "*/child/*/evidence/*", "--today", "2026-12-02"]
    assert toolsurface("run", *common, "--out", str(tmp_path / "whole")).returncode == 0
    for k in (1, 2, 3):
        assert toolsurface("run", *common, "--shard", f"{k}/3", "--out", str(tmp_path / str(k))).returncode == 0
    shards = [str(tmp_path / str(k) / "results.json") for k in (3, 1, 2)]
    done = toolsurface("merge", *shards, "--out", str(tmp_path / "merged"), "--format", "md")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "merged" / "results.json").read_bytes() == (tmp_path / "whole" / "results.json").read_bytes()
    assert "in-scope checks pass" in (tmp_path / "merged" / "audit.md").read_text()
    overlap = toolsurface("merge", shards[0], shards[0], "--out", str(tmp_path / "bad"))
    assert overlap.returncode == 2 and "is also" in overlap.stderr and not (tmp_path / "bad").exists()


def forge(path, drop):
    """Edit results.json as a forger would: every survivor called killed (its evidence left as it
    was) or dropped, and the summary and digest worked out again; the error `read_results` gives."""
    document = orjson.loads(path.read_bytes())
    survivors = [index for index, case in enumerate(document["cases"]) if case["verdict"]["kind"] == "survived"]
    if drop:
        document["cases"] = [case for case in document["cases"] if case["verdict"]["kind"] != "survived"]
        kept = len(document["cases"])
        error = f"$.cases: {kept} cases, but the run selected {kept + len(survivors)} for shard 1/2"
    else:
        for index in survivors:
            document["cases"][index]["verdict"] = {"kind": "killed", "reason": KILLED.reason, "code": KILLED.code}
        error = f"$.cases[{survivors[0]}].verdict.kind: killed, but 1 request(s) were dispatched"
    run, cases = decode(RunInfo, document["run"]), decode(tuple[CaseRecord, ...], document["cases"])
    summary = summarize(run, Tallies.of(case.tally for case in cases), (), digest_of(cases))
    assert summary.gate.ok
    path.write_bytes(encode(Results(SCHEMA_VERSION, run, cases, summary)))
    return error


@pytest.mark.parametrize("drop", [False, True], ids=["survivors called killed", "survivors dropped"])
def test_a_forged_shard_is_refused_by_merge_and_report(tmp_path, drop):
    for k in (1, 2):
        assert toolsurface("run", *LEGACY_CHILD, "--shard", f"{k}/2", "--out", str(tmp_path / str(k))).returncode == 1
    shards = [tmp_path / str(k) / "results.json" for k in (1, 2)]
    error = f"error: {shards[0]}:{forge(shards[0], drop)}"
    merged = toolsurface("merge", *map(str, shards), "--out", str(tmp_path / "merged"), "--format", "md")
    assert (
        merged.returncode == 2
        and merged.stdout == ""
        and merged.stderr.startswith(error)
        and merged.stderr.count("\n") == 1
    )
    assert not (tmp_path / "merged").exists()
    report = toolsurface("report", str(shards[0]), "--format", "md")
    assert (report.returncode, report.stdout, report.stderr) == (2, "", merged.stderr)


def test_the_headlines_count_accepted_failures_and_flag_broad_expectations(tmp_path):
    known = tmp_path / "known.toml"
    known.write_text(
        "".join(f'[[expect]]\ncase = "*"\nverdict = "{verdict}"\nreason = "the old path"\nexpires = 2027-01-31\n\n'
                for verdict in ("survived", "error"))
    )  # fmt: skip
    out = tmp_path / "out"
    # The headlines are counted the same way from any cases: a stratified sample, in which the old
    # path has both kinds of failure it has (it sends what it cut, never refusing a legitimate
    # change), stands for the whole matrix.
    select = [word for pattern in sample() for word in ("--select", pattern)]
    done = toolsurface("run", "--target", "reference:legacy", "--red-target", "none", "--expectations", str(known),
                       "--today", "2026-12-02", "--format", "md,html,json", *select, "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stdout
    record = results(out)
    totals, planned = record.summary.totals, record.run.planned
    assert totals.survived and totals.error and not totals.false_reject
    headline = (
        f"{totals.killed + totals.passed}/{totals.cases - totals.equivalent} in-scope checks pass; "
        f"{totals.survived} survived, all accepted; {totals.error} error, all accepted"
    )
    assert f"PASS: {headline}\n" in done.stdout and "no survivors" not in done.stdout
    for verdict, count in (("survived", totals.survived), ("error", totals.error)):
        reach = f"names {planned} of the {planned} planned cases (100%); {count} of them {verdict} here"
        assert f"       broad expectation * ({verdict}): {reach}\n" in done.stdout
        assert f"- **broad expectation** `*` (`{verdict}`): {reach}.\n" in (out / "audit.md").read_text()
        assert f"<code>*</code> ({verdict}): {html.escape(reach)}</p>" in (out / "report.html").read_text()
    assert f"**PASS** — {headline}. By verdict: " in (out / "audit.md").read_text()
    assert f'<span id="headline">{html.escape(headline)}</span>' in (out / "report.html").read_text()
    summary = json.loads((out / "audit.json").read_text())
    assert summary["headline"] == headline
    assert [(e["planned"], e["broad"]) for e in summary["expectations"]] == [(planned, True)] * 2


def test_the_project_config_names_the_spec_and_the_reports(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.toolsurface]\nspec = "SPEC-7"\ntitle = "Child lanes keep their surface"\nselect = ["*/child/*/hook/*"]\n'
        'formats = ["md", "json"]\nout = "audit"\n[tool.toolsurface.thresholds]\nmin_cases = 100000\n'
    )
    done = toolsurface("run", cwd=tmp_path)
    assert done.returncode == 1
    markdown = (tmp_path / "audit" / "audit.md").read_text()
    assert markdown.startswith("# Tool surface audit: SPEC-7 — Child lanes keep their surface\n")
    summary = json.loads((tmp_path / "audit" / "audit.json").read_text())
    assert summary["spec"] == {"id": "SPEC-7", "title": "Child lanes keep their surface"}
    assert summary["shortfalls"] and "fewer than min_cases = 100000" in summary["shortfalls"][0]
    assert "threshold" in done.stdout


def test_report_of_a_file_that_is_not_results_json_is_one_line(tmp_path):
    bad = tmp_path / "results.json"
    for text, problem in [
        (
            '{"schema_version": 3, "tool": {}}',
            "$.schema_version: expected results.json schema version 16, found 3: "
            "written by another version of toolsurface",
        ),
        ('{"schema_version": 16, "run": {}, "cases": [], "summary": {}}', "$.run: missing 'tool', "),
        ('{"schema_version": 16, "run": {}, "cases": [], "summary": {}', "1:61: invalid JSON: unexpected end of data"),
    ]:
        bad.write_text(text)
        done = toolsurface("report", str(bad), "--format", "md")
        assert done.returncode == 2
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith(f"error: {bad}:{problem}"), line
