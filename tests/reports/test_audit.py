import dataclasses
import json
import shlex
from pathlib import Path

import jsonschema
import orjson
import pytest

from tests.fixtures.hostile_records import ACTING, everywhere
from toolsurface.common._printable import hidden, printable
from toolsurface.contract._owner import Settlement
from toolsurface.harness._types import (
    Capacity,
    Crashed,
    LedgerEvent,
    LedgerOp,
    NotRun,
    Refused,
    Returned,
    TimedOut,
    VerdictKind,
)
from toolsurface.mutators import Kind
from toolsurface.reports import Audit, audit_document, render_json
from toolsurface.reports._audit import error_of, ledger_lines
from toolsurface.scenarios import Point

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reports" / "audit.schema.json").read_text())


@pytest.fixture(scope="module")
def record(recorded):
    return recorded(target="reference:defect/shared-ref", select=["*-hooked/*/hook/*"], defects=True)


def test_the_totals_are_results_json_totals(record):
    audit = Audit(record)
    totals = dataclasses.asdict(record.summary.totals)
    assert {kind.value: n for kind, n in audit.totals.items() if n} == {
        k: v for k, v in totals.items() if v and k != "cases"
    }
    assert audit.in_scope == totals["cases"] - totals["equivalent"]
    assert audit.controlled == record.summary.controlled
    assert [case.id for case in audit.failing] == list(record.summary.gate.failing)


def test_every_matrix_adds_up_to_the_cases(record):
    audit = Audit(record)
    for cells in (audit.matrix(), audit.by_lane()):
        assert sum(sum(counts.values()) for counts in cells.values()) == len(record.cases)
    assert sum(cases for cases, _, _ in audit.pairing().values()) == len(record.cases)
    assert audit.points() == [Point.HOOK] and audit.kinds()[0] is Kind.ADD


def test_the_defect_rows_count_the_cases_that_kill_each_defect(record):
    audit = Audit(record)
    rows = {row.name: row for row in audit.defects}
    assert list(rows) == list(record.run.defects)
    killers = [c for c in record.cases if "shared-ref" in c.defects_killed]
    assert rows["shared-ref"].kills == len(killers) > 0 and rows["shared-ref"].first == killers[0].id


def test_the_json_summary_follows_its_schema_and_the_gate(record):
    audit = Audit(record)
    summary = audit_document(audit)
    jsonschema.validate(summary, SCHEMA, format_checker=jsonschema.FormatChecker())
    assert orjson.loads(render_json(audit)) == summary
    assert summary["ok"] is record.summary.gate.ok is False
    assert [case["id"] for case in summary["failing"]] == list(record.summary.gate.failing)
    assert summary["totals"][VerdictKind.SURVIVED] == record.summary.totals.survived > 0
    codes = {case.id: case.verdict.code for case in record.cases}
    for case in summary["failing"]:
        assert case["reproduce"] == record.run.reproduce(case["id"]) and case["id"] in case["reproduce"]
        assert case["code"] == codes[case["id"]]


def test_the_json_summary_keeps_raw_text_as_data_and_writes_nothing_a_terminal_acts_on(record):
    hostile = everywhere(record, ACTING)
    audit = Audit(hostile)
    data = render_json(audit)
    assert not [char for char in data.decode() if hidden(char) and char != "\n"]
    document = json.loads(data)
    assert document == json.loads(orjson.dumps(audit_document(audit)))  # what a program reads back is the raw text
    (failing,) = [case for case in document["failing"] if case["id"] == ACTING]
    assert failing["reason"] == ACTING and failing["reproduce"] == audit.run.reproduce(ACTING)
    assert shlex.split(failing["reproduce"])[2] == printable(ACTING)


def test_an_accepted_case_neither_fails_nor_counts_as_failing(record):
    survivor = next(case for case in record.cases if case.verdict.kind is VerdictKind.SURVIVED)
    killed = next(case for case in record.cases if case.verdict.kind is VerdictKind.KILLED)
    # A gate that (wrongly) lists a killed case as accepted does not make it an accepted failure.
    gate = dataclasses.replace(record.summary.gate, accepted=(survivor.id, killed.id))
    audit = Audit(dataclasses.replace(record, summary=dataclasses.replace(record.summary, gate=gate)))
    assert audit.accepted == (survivor,)
    assert audit.is_accepted(survivor) and not audit.is_failing(survivor)
    assert not audit.is_accepted(killed) and not audit.is_failing(killed)
    assert survivor in Audit(record).failing and survivor not in audit.failing


STOPS = [
    (Returned(), None),
    (NotRun(), None),
    (TimedOut(), None),
    (Refused("SurfaceRefused", "refused"), "SurfaceRefused"),
    (Refused("HostRefused", "not today"), "HostRefused: not today"),
    (Capacity("CapacityExceeded", "9 tools, room for 8"), "CapacityExceeded: 9 tools, room for 8"),
    (
        Crashed("RuntimeError", "adapter bug", "Traceback …\nRuntimeError: adapter bug"),
        "Traceback …\nRuntimeError: adapter bug",
    ),
    (Crashed("RuntimeError", "adapter bug", ""), "RuntimeError: adapter bug"),
]


@pytest.mark.parametrize(
    ("stop", "shown"), STOPS, ids=[f"{type(stop).__name__}-{n}" for n, (stop, _) in enumerate(STOPS)]
)
def test_the_error_a_case_shows_is_what_the_target_raised(stop, shown):
    assert error_of(stop) == shown


def test_the_ledger_lines_are_every_event_reservations_included(record):
    case = next(case for case in record.cases if len(case.evidence.ledger) >= 2)
    refused = LedgerEvent("main", LedgerOp.SETTLE, "req_9", Settlement.DISPATCHED, accepted=False, note="settled twice")
    edited = dataclasses.replace(
        case, evidence=dataclasses.replace(case.evidence, ledger=(*case.evidence.ledger, refused))
    )
    lines = ledger_lines(edited)
    assert lines[: len(case.evidence.ledger)] == tuple(str(event) for event in case.evidence.ledger)
    assert any(line.endswith(f": reserve {case.evidence.ledger[0].request}") for line in lines)
    assert lines[-1] == "main: settle req_9 as dispatched — REFUSED (settled twice)"


LEGACY_EVIDENCE = {
    "target": "reference:legacy",
    "red_target": "none",
    "select": ["web-read-child-single-tool/*/evidence/*"],
}


def accepting(tmp_path_factory, *patterns):
    known = tmp_path_factory.mktemp("expectations") / "known.toml"
    known.write_text(
        "".join(
            f'[[expect]]\ncase = "{p}"\nverdict = "survived"\nreason = "r"\nexpires = 2099-01-01\n\n' for p in patterns
        )
    )
    return known


def test_the_headline_counts_failures_accepted_or_not(recorded, tmp_path_factory):
    def headline(*patterns):
        options = (
            {**LEGACY_EVIDENCE, "expectations": accepting(tmp_path_factory, *patterns)} if patterns else LEGACY_EVIDENCE
        )
        audit = Audit(recorded(**options))
        return (
            audit.headline,
            audit.totals[VerdictKind.SURVIVED],
            f"{audit.passing}/{audit.in_scope} in-scope checks pass",
        )

    line, survived, checks = headline()
    assert line == f"{checks}; {survived} survived"
    some, _, _ = headline("web-read-child-single-tool/*/evidence/delete.*")
    assert some == f"{checks}; {survived} survived (6 accepted)"
    every, _, _ = headline("web-read-child-single-tool/*")
    assert every == f"{checks}; {survived} survived, all accepted"
    assert Audit(recorded(select=["web-read-child-single-tool/*/evidence/*"])).headline.endswith(
        " in-scope checks pass: no survivors, false rejections or errors"
    )


def test_an_expectation_naming_a_tenth_of_the_plan_or_more_is_broad(recorded, tmp_path_factory):
    known = accepting(tmp_path_factory, "*", "web-read-child-single-tool/*/evidence/delete.*")
    audit = Audit(recorded(**LEGACY_EVIDENCE, expectations=known))
    planned = audit.run.planned
    assert [judged.expectation.case for judged in audit.broad] == ["*"]
    survived = audit.totals[VerdictKind.SURVIVED]
    assert (
        audit.reach(audit.broad[0])
        == f"names {planned} of the {planned} planned cases (100%); {survived} of them survived here"
    )
    entries = audit_document(audit)["expectations"]
    assert [(entry["planned"], entry["broad"]) for entry in entries] == [(planned, True), (6, False)]
    jsonschema.validate(audit_document(audit), SCHEMA, format_checker=jsonschema.FormatChecker())


def test_the_json_summary_opens_its_failures_with_the_defect_they_fail_like(record):
    audit = Audit(record)
    diagnosis = audit_document(audit)["diagnosis"]
    (top, *_) = diagnosis["likely"]
    likeness = audit.diagnosis.likely[0]
    assert top == {
        "defect": "shared-ref",
        "alike": [],
        "flaw": likeness.flaw,
        "cases": likeness.count,
        "shown": round(likeness.shown, 4),
        "example": likeness.representative.id,
        "reproduce": record.run.reproduce(likeness.representative.id),
    }
    assert sum(like["cases"] for like in diagnosis["likely"]) + diagnosis["unexplained"] == len(audit.failing)
    assert {audit.likeness_of(case) for case in likeness.cases} == {"shared-ref"}
