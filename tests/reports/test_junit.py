import xml.etree.ElementTree as ET

import orjson
import pytest
from junitparser import Failure, JUnitXml, Skipped

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.reports import Audit, render_junit, write_results


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    session = prepare(RunOptions(target="reference:legacy", red_target="none", select=["*-child-*/*/evidence/*"]))
    return orjson.loads(write_results(tmp_path_factory.mktemp("run"), session, session.results()).read_bytes())


def parsed(tmp_path, document):
    path = tmp_path / "junit.xml"
    path.write_bytes(render_junit(Audit.of(document)))
    return JUnitXml.fromfile(str(path))


def test_one_testcase_per_case_named_by_scenario_and_case_id(tmp_path, document):
    xml = parsed(tmp_path, document)
    cases = [(case.classname, case.name) for suite in xml for case in suite]
    assert cases == [(c["scenario"], c["id"]) for c in document["cases"]]
    assert {suite.name for suite in xml} == {c["scenario"] for c in document["cases"]}


def test_the_failure_count_is_the_number_of_failing_cases(tmp_path, document):
    xml = parsed(tmp_path, document)
    failing = [c for c in document["cases"] if c["verdict"] in ("survived", "false_reject", "error")]
    assert failing
    assert xml.failures == len(failing) == sum(suite.failures for suite in xml)
    assert xml.tests == len(document["cases"]) and xml.errors == 0
    results = {case.name: case.result for suite in xml for case in suite}
    for case in failing:
        (failure,) = results[case["id"]]
        assert isinstance(failure, Failure) and failure.type == case["verdict"]
        assert f"reproduce: {case['reproduce']}" in failure.text
    equivalent = [c["id"] for c in document["cases"] if c["verdict"] == "equivalent"]
    assert equivalent and all(isinstance(results[i][0], Skipped) for i in equivalent)


def test_accepted_cases_are_skipped_and_a_stale_expectation_is_a_failure_of_its_own(tmp_path, document):
    failing = [c for c in document["cases"] if c["verdict"] == "survived"]
    gate = dict(document["gate"], accepted=[failing[0]["id"]], expectations=[
        {"case": failing[0]["id"], "verdict": "survived", "reason": "known", "expires": "2027-01-01", "planned": 1,
         "standing": "accepted", "why": "accepts 1 of its 1 cases", "cases": [failing[0]["id"]]},
        {"case": "gone/*", "verdict": "survived", "reason": "old", "expires": "2027-01-01", "planned": 0,
         "standing": "stale", "why": "names no planned case", "cases": []},
    ])
    xml = parsed(tmp_path, dict(document, gate=gate))
    results = {(case.classname, case.name): case.result for suite in xml for case in suite}
    assert isinstance(results[(failing[0]["scenario"], failing[0]["id"])][0], Skipped)
    (stale,) = results[("toolsurface.expectations", "gone/*")]
    assert isinstance(stale, Failure) and "names no planned case" in stale.message
    assert xml.failures == sum(c["verdict"] in ("survived", "false_reject", "error") for c in document["cases"])


def test_characters_xml_cannot_carry_are_escaped_not_written(tmp_path, document):
    case = next(c for c in document["cases"] if c["verdict"] == "survived")
    case = dict(case, reason="bell\x07 and <tag> & \x1b[31mred")
    data = render_junit(Audit.of(dict(document, cases=[case])))
    failure = ET.fromstring(data).find(".//failure")
    assert failure.get("message") == "survived: bell\\u0007 and <tag> & \\u001b[31mred"
