"""JUnit XML for CI: one testcase per case, a failure for each case that fails the gate.

The layout is the one CI parsers share (Jenkins, GitLab, GitHub test reporters, junitparser):
`<testsuites>` of one `<testsuite>` per scenario, `classname` the scenario and `name` the case
id. Every failing verdict is a `<failure>` typed with the verdict, so the failure count is the
number of failing cases; equivalent and accepted cases are `<skipped>` with the reason. An
expectation that fails the gate (expired or stale) is a failing testcase of its own suite, since
it fails the run without being a case.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from toolsurface.harness._types import VerdictKind

from ._audit import Audit, CaseRow, ExpectationRow

EXPECTATIONS_SUITE = "toolsurface.expectations"

#: Characters XML 1.0 cannot carry at all, even escaped; a hostile description may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def render_junit(audit: Audit) -> bytes:
    suites = ET.Element("testsuites", name=f"toolsurface {audit.spec_id or audit.target}")
    by_scenario: dict[str, list[CaseRow]] = {}
    for case in audit.cases:
        by_scenario.setdefault(case.scenario, []).append(case)
    for scenario, cases in by_scenario.items():
        suite = _suite(suites, scenario, cases, audit)
        for case in cases:
            _testcase(suite, case)
    failed_entries = [entry for entry in audit.expectations if entry.fails_gate]
    if failed_entries:
        suite = _suite(suites, EXPECTATIONS_SUITE, [], audit, failures=len(failed_entries), tests=len(failed_entries))
        for entry in failed_entries:
            _expectation(suite, entry)
    _count(suites, *_totals(suites))
    for element in suites.iter():
        element.text = element.text and _xml_text(element.text)
        for key, value in element.attrib.items():
            element.set(key, _xml_text(value))
    ET.indent(suites)
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def _suite(
    parent: ET.Element, name: str, cases: Sequence[CaseRow], audit: Audit, *, failures: int | None = None, tests: int | None = None
) -> ET.Element:
    suite = ET.SubElement(parent, "testsuite", name=name)
    skipped = sum(case.verdict is VerdictKind.EQUIVALENT or case.accepted for case in cases)
    _count(suite, len(cases) if tests is None else tests, sum(case.failing for case in cases) if failures is None else failures, skipped)
    properties = ET.SubElement(suite, "properties")
    for key, value in (("target", audit.target), ("red_target", audit.red_target), ("seed", str(audit.seed)), ("spec", audit.spec_id)):
        if value is not None:
            ET.SubElement(properties, "property", name=key, value=value)
    return suite


def _testcase(suite: ET.Element, case: CaseRow) -> None:
    element = ET.SubElement(suite, "testcase", classname=case.scenario, name=case.id)
    if case.verdict is VerdictKind.EQUIVALENT:
        ET.SubElement(element, "skipped", message=f"equivalent: {case.reason}")
    elif case.accepted:
        ET.SubElement(element, "skipped", message=f"accepted {case.verdict}: {case.reason}")
    elif case.failing:
        failure = ET.SubElement(element, "failure", message=f"{case.verdict}: {case.reason}", type=case.verdict.value)
        failure.text = "\n".join(
            [
                f"{case.verdict}: {case.reason}",
                *(f"  {line}" for line in case.diff),
                *(f"  ledger: {line}" for line in case.settlements),
                f"reproduce: {case.reproduce}",
            ]
        )


def _expectation(suite: ET.Element, entry: ExpectationRow) -> None:
    element = ET.SubElement(suite, "testcase", classname=EXPECTATIONS_SUITE, name=entry.case)
    failure = ET.SubElement(element, "failure", message=f"{entry.standing}: {entry.why}", type=entry.standing)
    failure.text = f"{entry.standing}: {entry.why}\naccepts {entry.verdict} until {entry.expires}: {entry.reason}"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _count(element: ET.Element, tests: int, failures: int, skipped: int) -> None:
    element.set("tests", str(tests))
    element.set("failures", str(failures))
    element.set("errors", "0")
    element.set("skipped", str(skipped))


def _totals(suites: ET.Element) -> tuple[int, int, int]:
    return tuple(sum(int(suite.get(key, "0")) for suite in suites) for key in ("tests", "failures", "skipped"))  # type: ignore[return-value]
