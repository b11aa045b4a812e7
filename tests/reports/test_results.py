import json
import os
from pathlib import Path

import jsonschema
import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.reports import RESULTS_FILE, ResultsWriter, write_results

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reports" / "results.schema.json").read_text())


@pytest.fixture(scope="module")
def session():
    return prepare(RunOptions(select=["*/child/*/evidence/*"]))


def test_results_validate_and_count(tmp_path, session):
    path = write_results(tmp_path, session, session.results())
    document = json.loads(path.read_text())
    jsonschema.validate(document, SCHEMA)
    assert document["totals"]["cases"] == len(document["cases"]) == len(session.cases)
    assert sum(document["totals"][k] for k in ("killed", "passed", "survived", "false_reject", "error", "equivalent")) == len(session.cases)
    assert document["red_totals"]["cases"] == len(session.cases)
    assert document["controlled"] == sum(c["controlled"] for c in document["cases"])
    assert [c["id"] for c in document["cases"]] == [c.id for c in session.cases]


def test_same_seed_same_file(tmp_path, session):
    first = write_results(tmp_path / "a", session, session.results()).read_text()
    second = write_results(tmp_path / "b", session, prepare(session.options).results()).read_text()
    assert first == second


def test_an_interrupted_run_leaves_nothing(tmp_path, session):
    results = session.results()
    with pytest.raises(KeyboardInterrupt):
        with ResultsWriter(tmp_path, session) as writer:
            writer.write(next(results))
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_the_previous_results_survive_a_failed_run(tmp_path, session):
    (tmp_path / RESULTS_FILE).write_text("previous")
    with pytest.raises(RuntimeError):
        with ResultsWriter(tmp_path, session):
            raise RuntimeError("target exploded")
    assert (tmp_path / RESULTS_FILE).read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == [RESULTS_FILE]


def test_results_are_readable_as_any_new_file_is(tmp_path, session):
    previous = os.umask(0o022)
    try:
        path = write_results(tmp_path, session, session.results())
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == 0o644
