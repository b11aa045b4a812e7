import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._types import VerdictKind
from toolsurface.reports import Audit, audit_document, write_results

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reports" / "audit.schema.json").read_text())


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    session = prepare(RunOptions(target="reference:defect/shared-ref", select=["*-hooked/*/hook/*"], defects=True))
    return orjson.loads(write_results(tmp_path_factory.mktemp("run"), session, session.results()).read_bytes())


def test_the_totals_are_results_json_totals(document):
    audit = Audit.of(document)
    assert {kind.value: n for kind, n in audit.totals.items() if n} == {k: v for k, v in document["totals"].items() if v and k != "cases"}
    assert audit.in_scope == document["totals"]["cases"] - document["totals"]["equivalent"]
    assert audit.controlled == document["controlled"]
    assert [case.id for case in audit.failing] == document["gate"]["failing"]


def test_every_matrix_adds_up_to_the_cases(document):
    audit = Audit.of(document)
    for cells in (audit.matrix(), audit.by_lane()):
        assert sum(sum(counts.values()) for counts in cells.values()) == len(document["cases"])
    assert sum(cases for cases, _, _ in audit.pairing().values()) == len(document["cases"])
    assert audit.points() == ["hook"] and audit.kinds()[0] == "add"


def test_the_defect_rows_count_the_cases_that_kill_each_defect(document):
    audit = Audit.of(document)
    rows = {row.name: row for row in audit.defects}
    assert list(rows) == document["defects"]
    killers = [c for c in document["cases"] if "shared-ref" in c["defects_killed"]]
    assert rows["shared-ref"].kills == len(killers) > 0 and rows["shared-ref"].first == killers[0]["id"]


def test_the_json_summary_follows_its_schema_and_the_gate(document):
    summary = audit_document(Audit.of(document))
    jsonschema.validate(summary, SCHEMA, format_checker=jsonschema.FormatChecker())
    assert summary["ok"] is document["gate"]["ok"] is False
    assert [case["id"] for case in summary["failing"]] == document["gate"]["failing"]
    assert summary["totals"][VerdictKind.SURVIVED] == document["totals"]["survived"] > 0
