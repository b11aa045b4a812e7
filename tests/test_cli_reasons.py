"""End to end: a host that sorts its 46 tools fails every case with a reason a person can read on
one line, while results.json, the HTML case view and `reproduce` keep every change it made."""

import json
import re

import pytest

from tests.test_cli import ROOT, results, toolsurface
from toolsurface.harness._reasons import MAX_REASON, fits

TARGET = "tests.fixtures.reason_hosts:SortsTools"
SELECT = "desk-review-main-openai-46-tools/*"
#: The fixed prefix of each terminal line that shows a reason or a change, by what follows it.
CAUSE_LINE = re.compile(r"^ *\w+ × \d+: ")
INDENTED = re.compile(r"^ {13,15}(?!toolsurface reproduce |desk-review-main)")


@pytest.fixture(scope="module")
def sorted_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sorted")
    done = toolsurface(
        "run", "--target", TARGET, "--red-target", "none", "--select", SELECT, "--format", "html", "--out", str(out)
    )
    assert done.returncode == 1, done.stderr
    return done, out, results(out)


def test_every_reason_in_results_json_is_one_short_line(sorted_run):
    _, _, record = sorted_run
    reasons = [case.verdict.reason for case in record.cases]
    assert reasons and all(map(fits, reasons)), max(reasons, key=len)
    moved = [case for case in record.cases if "moved " in case.verdict.reason]
    assert len(moved) > 200
    for case in moved:
        # The count names every change; the evidence holds each of them.
        counted = re.search(r"\bmoved (\d+) tools", case.verdict.reason)
        assert counted and int(counted[1]) == sum(line.startswith("moved ") for line in case.evidence.diff)


def test_every_terminal_line_that_shows_a_reason_fits_beside_its_prefix(sorted_run):
    done, _, _ = sorted_run
    shown = 0
    for line in done.stdout.splitlines():
        if (prefix := CAUSE_LINE.match(line) or INDENTED.match(line)) is not None:
            shown += 1
            assert len(line) - prefix.end() <= MAX_REASON, line
    assert shown >= 5


def test_the_html_case_view_and_reproduce_show_every_change(sorted_run):
    _, out, record = sorted_run
    case = max(record.cases, key=lambda c: len(c.evidence.diff))
    assert len(case.evidence.diff) > 30
    page = (out / "report.html").read_text()
    data = json.loads(re.search(r'<script type="application/json" id="case-data">(.*?)</script>', page, re.S)[1])
    assert all(line in data["strings"] for line in case.evidence.diff)
    shown = toolsurface("reproduce", case.id, "--target", TARGET, cwd=ROOT)
    assert shown.returncode == 1, shown.stderr
    listed = [line.strip() for line in shown.stdout.splitlines()]
    assert all(change in listed for change in case.evidence.diff)
