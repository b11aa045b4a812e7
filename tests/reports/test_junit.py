import datetime
import shlex
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from junitparser import Failure, JUnitXml, Skipped

from tests.fixtures.hostile_records import ACTING, everywhere
from toolsurface.common._printable import hidden, printable, unprintable
from toolsurface.harness._expectations import Expectation, Judged, Standing
from toolsurface.harness._types import VerdictKind
from toolsurface.reports import Audit, render_junit
from toolsurface.reports._junit import EXPECTATIONS_SUITE, junit_chunks

FAILING = (VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT, VerdictKind.ERROR)


@pytest.fixture(scope="module")
def record(recorded):
    return recorded(target="reference:legacy", red_target="none", select=["*-child-*/*/evidence/*"])


def parsed(tmp_path, record):
    path = tmp_path / "junit.xml"
    path.write_bytes(render_junit(Audit(record)))
    return JUnitXml.fromfile(str(path))


def test_one_testcase_per_case_named_by_scenario_and_case_id(tmp_path, record):
    xml = parsed(tmp_path, record)
    cases = [(case.classname, case.name) for suite in xml for case in suite]
    assert cases == [(c.case.scenario, c.id) for c in record.cases]
    assert {suite.name for suite in xml} == {c.case.scenario for c in record.cases}


def test_the_failure_count_is_the_number_of_failing_cases(tmp_path, record):
    xml = parsed(tmp_path, record)
    failing = [c for c in record.cases if c.verdict.kind in FAILING]
    assert failing
    assert xml.failures == len(failing) == sum(suite.failures for suite in xml)
    assert xml.tests == len(record.cases) and xml.errors == 0
    results = {case.name: case.result for suite in xml for case in suite}
    for case in failing:
        (failure,) = results[case.id]
        assert isinstance(failure, Failure) and failure.type == case.verdict.kind
        assert f"reproduce: {record.run.reproduce(case.id)}" in failure.text
        assert failure.text.split("\n")[1] == f"code: {case.verdict.code}"
    equivalent = [c.id for c in record.cases if c.verdict.kind is VerdictKind.EQUIVALENT]
    assert equivalent and all(isinstance(results[i][0], Skipped) for i in equivalent)


def test_accepted_cases_are_skipped_and_a_stale_expectation_is_a_failure_of_its_own(tmp_path, record):
    failing = [c for c in record.cases if c.verdict.kind is VerdictKind.SURVIVED]
    expires = datetime.date(2027, 1, 1)
    gate = replace(
        record.summary.gate,
        accepted=(failing[0].id,),
        expectations=(
            Judged(
                Expectation(failing[0].id, VerdictKind.SURVIVED, "known", expires),
                Standing.ACCEPTED,
                "accepts 1 of its 1 cases",
                1,
                (failing[0].id,),
            ),
            Judged(
                Expectation("gone/*", VerdictKind.SURVIVED, "old", expires),
                Standing.STALE,
                "names no planned case",
                0,
                (),
            ),
        ),
    )
    xml = parsed(tmp_path, replace(record, summary=replace(record.summary, gate=gate)))
    results = {(case.classname, case.name): case.result for suite in xml for case in suite}
    assert isinstance(results[(failing[0].case.scenario, failing[0].id)][0], Skipped)
    (stale,) = results[("toolsurface.expectations", "gone/*")]
    assert isinstance(stale, Failure) and "names no planned case" in stale.message
    assert xml.failures == sum(c.verdict.kind in FAILING for c in record.cases)


def test_characters_xml_cannot_carry_are_shown_as_the_terminal_shows_them(record):
    case = next(c for c in record.cases if c.verdict.kind is VerdictKind.SURVIVED)
    case = replace(case, verdict=replace(case.verdict, reason="bell\x07 and <tag> & \x1b[31mred"))
    data = render_junit(Audit(replace(record, cases=(case,))))
    failure = ET.fromstring(data).find(".//failure")
    assert failure.get("message") == "survived: bell\\x07 and <tag> & \\x1b[31mred"


def test_no_control_bidi_or_separator_character_from_any_field_reaches_the_file(tmp_path, record):
    hostile = everywhere(record, ACTING)
    audit = Audit(hostile)
    data = render_junit(audit)
    text = data.decode()
    assert not [char for char in text if hidden(char) and char != "\n"]
    # Valid XML 1.0, read by a CI parser as by the standard library.
    root = ET.fromstring(data)
    (path := tmp_path / "junit.xml").write_bytes(data)
    assert JUnitXml.fromfile(str(path)).failures == len(audit.failing) + 1  # and the stale expectation
    # The id, the reason, the evidence and the command read as the terminal and the audit show them.
    shown = printable(ACTING)
    survivor = next(case for case in hostile.cases if case.id == ACTING)
    (testcase,) = [
        element
        for element in root.iter("testcase")
        if (element.get("classname"), element.get("name")) == (shown, shown)
    ]
    failure = testcase.find("failure")
    assert failure.get("message") == f"survived: {shown}"
    lines = failure.text.split("\n")
    assert lines[0] == f"survived: {shown}" and f"  {shown}" in lines
    assert lines[-1] == f"reproduce: {audit.reproduce(survivor)}"
    # Whose id is the printed one, read back by `reproduce` as the raw id.
    words = shlex.split(audit.reproduce(survivor))
    assert words[2] == shown and unprintable(words[2]) == ACTING
    (expectation,) = [element for element in root.iter("testcase") if element.get("classname") == EXPECTATIONS_SUITE]
    assert expectation.get("name") == shown and expectation.find("failure").text.endswith(f": {shown}")
    properties = {p.get("name"): p.get("value") for p in root.find("testsuite").iter("property")}
    assert properties["target"] == properties["red_target"] == shown


class Counted:
    """The cases of a record, counting how many a reader has taken."""

    def __init__(self, cases):
        self.cases, self.taken = cases, 0

    def __len__(self):
        return len(self.cases)

    def __contains__(self, case):
        return case in self.cases

    def __iter__(self):
        for case in self.cases:
            self.taken += 1
            yield case


def test_junit_is_written_a_suite_at_a_time_and_heads_with_the_whole_runs_totals(record):
    counted = Counted(record.cases)
    audit = Audit(replace(record, cases=counted))
    counted.taken = 0
    chunks = junit_chunks(audit)
    head, first = next(chunks), next(chunks)
    scenario = record.cases[0].case.scenario
    in_first = sum(case.case.scenario == scenario for case in record.cases)
    assert counted.taken == in_first + 1 < len(record.cases)  # one case of the next suite told it the first had ended
    assert first.startswith(f'  <testsuite name="{scenario}"'.encode()) and first.count(b"<testcase ") == in_first
    whole = ET.fromstring(head + first + b"".join(chunks))
    assert int(whole.get("tests")) == len(record.cases) == sum(int(suite.get("tests")) for suite in whole)
    assert int(whole.get("failures")) == sum(int(suite.get("failures")) for suite in whole)
    assert int(whole.get("skipped")) == sum(int(suite.get("skipped")) for suite in whole)
