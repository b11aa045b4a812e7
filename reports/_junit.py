"""JUnit XML for CI: one testcase per case, a failure for each case that fails the gate.

The layout is the one CI parsers share (Jenkins, GitLab, GitHub test reporters, junitparser):
`<testsuites>` of one `<testsuite>` per scenario, `classname` the scenario and `name` the case
id. Every failing verdict is a `<failure>` typed with the verdict, so the failure count is the
number of failing cases; equivalent and accepted cases are `<skipped>` with the reason. An
expectation that fails the gate (expired or stale) is a failing testcase of its own suite, since
it fails the run without being a case.

Every name, message and line from a scenario, a target or an expectations file is written as
`printable` shows it on the terminal: no control character (which XML 1.0 cannot carry even
escaped), line or paragraph separator or bidi control reaches the file, and a case id or a
reproduce command copied from a CI page is the one the terminal and the audit show.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence

from toolsurface.common._printable import printable
from toolsurface.harness._expectations import Judged
from toolsurface.harness._types import CaseRecord, VerdictKind

from ._audit import Audit, ledger_lines

EXPECTATIONS_SUITE = "toolsurface.expectations"


def render_junit(audit: Audit) -> bytes:
    return b"".join(junit_chunks(audit))


def junit_chunks(audit: Audit) -> Iterator[bytes]:
    """The JUnit XML a suite at a time, so that only one scenario's cases are held: the run's totals
    head the file, and come from the audit's tallies rather than from the cases. Cases come in plan
    order, a scenario's together; a scenario met again later would start a suite of the same name."""
    spec = audit.run.spec
    failed_entries = [entry for entry in audit.expectations if not entry.standing.ok]
    root = ET.Element("testsuites", name=printable(f"toolsurface {spec.id if spec else audit.run.target}"))
    skipped = audit.totals[VerdictKind.EQUIVALENT] + len(audit.accepted)
    _count(root, audit.count + len(failed_entries), len(audit.failing) + len(failed_entries), skipped)
    ET.SubElement(root, "suites")
    tag = _serialized(root)
    yield b"<?xml version='1.0' encoding='utf-8'?>\n" + tag[: tag.index(b"<suites />")] + b"\n"
    scenario: str | None = None
    cases: list[CaseRecord] = []
    for case in audit.cases:
        if case.case.scenario != scenario and cases:
            yield _suite_chunk(scenario or "", cases, audit)
            cases = []
        scenario = case.case.scenario
        cases.append(case)
    if cases:
        yield _suite_chunk(scenario or "", cases, audit)
    if failed_entries:
        suite = _suite(EXPECTATIONS_SUITE, [], audit, failures=len(failed_entries), tests=len(failed_entries))
        for entry in failed_entries:
            _expectation(suite, entry)
        yield _indented(suite)
    yield b"</testsuites>\n"


def _suite_chunk(scenario: str, cases: Sequence[CaseRecord], audit: Audit) -> bytes:
    suite = _suite(scenario, cases, audit)
    for case in cases:
        _testcase(suite, case, audit)
    return _indented(suite)


def _indented(suite: ET.Element) -> bytes:
    """A suite as a child of `<testsuites>`, indented as `ET.indent` lays out the whole document."""
    ET.indent(suite, level=1)
    return b"  " + _serialized(suite) + b"\n"


def _serialized(element: ET.Element) -> bytes:
    """The element in UTF-8: every text in it is printed already, so XML 1.0 can carry it."""
    return ET.tostring(element, encoding="utf-8")


def _suite(
    name: str, cases: Sequence[CaseRecord], audit: Audit, *, failures: int | None = None, tests: int | None = None
) -> ET.Element:
    suite = ET.Element("testsuite", name=printable(name))
    skipped = sum(case.verdict.kind is VerdictKind.EQUIVALENT or audit.is_accepted(case) for case in cases)
    failed = sum(audit.is_failing(case) for case in cases) if failures is None else failures
    _count(suite, len(cases) if tests is None else tests, failed, skipped)
    properties = ET.SubElement(suite, "properties")
    run = audit.run
    spec = None if run.spec is None else run.spec.id
    facts = (("target", run.target), ("red_target", run.red_target), ("seed", str(run.seed)), ("spec", spec))
    for key, value in facts:
        if value is not None:
            ET.SubElement(properties, "property", name=key, value=printable(value))
    return suite


def _testcase(suite: ET.Element, case: CaseRecord, audit: Audit) -> None:
    element = ET.SubElement(suite, "testcase", classname=printable(case.case.scenario), name=printable(case.id))
    verdict = case.verdict
    reason = printable(verdict.reason)
    if verdict.kind is VerdictKind.EQUIVALENT:
        ET.SubElement(element, "skipped", message=f"equivalent: {reason}")
    elif audit.is_accepted(case):
        ET.SubElement(element, "skipped", message=f"accepted {verdict.kind}: {reason}")
    elif audit.is_failing(case):
        failure = ET.SubElement(element, "failure", message=f"{verdict.kind}: {reason}", type=verdict.kind.value)
        failure.text = "\n".join(
            [
                f"{verdict.kind}: {reason}",
                f"code: {verdict.code}",  # what a CI script matches on: the reason's words may change
                *(f"  {printable(line)}" for line in case.evidence.diff),
                *(f"  ledger: {printable(line)}" for line in ledger_lines(case)),
                f"reproduce: {audit.reproduce(case)}",  # printed already
            ]
        )


def _expectation(suite: ET.Element, judged: Judged) -> None:
    entry = judged.expectation
    element = ET.SubElement(suite, "testcase", classname=EXPECTATIONS_SUITE, name=printable(entry.case))
    why = printable(judged.why)
    failure = ET.SubElement(element, "failure", message=f"{judged.standing}: {why}", type=judged.standing)
    accepts = f"accepts {entry.verdict} until {entry.expires.isoformat()}: {printable(entry.reason)}"
    failure.text = f"{judged.standing}: {why}\n{accepts}"


def _count(element: ET.Element, tests: int, failures: int, skipped: int) -> None:
    element.set("tests", str(tests))
    element.set("failures", str(failures))
    element.set("errors", "0")
    element.set("skipped", str(skipped))
