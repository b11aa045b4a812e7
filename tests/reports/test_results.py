"""results.json: valid against the committed schema, the record it was written from when read back,
refused with one line naming the JSON path when it is not one, and published only whole."""

import copy
import hashlib
import os
from pathlib import Path

import jsonschema
import orjson
import pytest

from toolsurface.common._errors import UsageError
from toolsurface.common._files import temporary
from toolsurface.harness import _results
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._codec import decode
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._config import Spec
from toolsurface.harness._gate import Tallies, Thresholds
from toolsurface.harness._record import SCHEMA_VERSION, Results, results_schema
from toolsurface.harness._results import (
    RESULTS_FILE,
    ResultsWriter,
    digest_of,
    encode,
    open_results,
    read_results,
    write_results,
)
from toolsurface.harness._types import (
    Capacity,
    Crashed,
    NotRun,
    Refused,
    Returned,
    VerdictKind,
)

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "harness" / "results.schema.json"
REGENERATE = (
    'python -c "import orjson; from toolsurface.harness._record import results_schema; '
    "open('harness/results.schema.json','wb')"
    ".write(orjson.dumps(results_schema(), option=orjson.OPT_INDENT_2)+b'\\n')\""
)
#: Child-lane evidence cases (refused, returned and equivalent ones) and over-capacity ones.
SELECT = ["*/child/*/evidence/*", "holdings-review-main-over-capacity/*/post_revalidation/*"]


def validate(path):
    schema = orjson.loads(SCHEMA_FILE.read_bytes())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    validator.validate(orjson.loads(path.read_bytes()))


@pytest.fixture(scope="module")
def session():
    return prepare(RunOptions(select=SELECT))


@pytest.fixture(scope="module")
def crashing(tmp_path_factory):
    """A run that fills what the plain one leaves empty: a spec, a shard, defects, thresholds, expectations, crashes."""
    known = tmp_path_factory.mktemp("expectations") / "known.toml"
    known.write_text(
        '[[expect]]\ncase = "web-read-child-single-tool/*"\nverdict = "error"\nreason = "r"\nexpires = 2099-01-01\n'
        '[[expect]]\ncase = "gone/*"\nverdict = "survived"\nreason = "old"\nexpires = 2099-01-01\n'
    )
    options = RunOptions(
        target="tests.fixtures.user_targets:Crashing",
        select=["web-read-child-single-tool/*/evidence/*"],
        shard="1/2",
        defects=True,
        spec=Spec("SPEC-7", "a title"),
        thresholds=Thresholds(min_cases=1, min_controlled=0),
        expectations=known,
    )
    return prepare(options)


def test_the_committed_schema_is_the_one_the_types_give():
    assert orjson.loads(SCHEMA_FILE.read_bytes()) == results_schema(), (
        f"harness/results.schema.json is stale: run {REGENERATE}"
    )


def test_results_validate_and_count(tmp_path, session):
    path = write_results(tmp_path, session, session.results())
    validate(path)
    record = read_results(path)
    totals = record.summary.totals
    assert totals.cases == len(record.cases) == len(session.cases)
    assert sum(
        (totals.killed, totals.passed, totals.survived, totals.false_reject, totals.error, totals.equivalent)
    ) == len(session.cases)
    assert record.summary.red_totals.cases == len(session.cases)
    assert record.summary.controlled == sum(case.controlled for case in record.cases) > 0
    assert [case.id for case in record.cases] == [case.id for case in session.cases]
    stops = {type(case.evidence.stop) for case in record.cases}
    assert stops == {Refused, Returned, NotRun, Capacity}


@pytest.fixture(scope="module")
def publishing():
    """A run whose host publishes a draft on every request: refused ones keep it in their evidence."""
    options = RunOptions(
        target="tests.fixtures.user_targets:PublishesDraft",
        red_target="none",
        select=["filings-scan-child-deadline/*/no-hooks/evidence/*"],
    )
    return prepare(options)


@pytest.mark.parametrize("run", ["session", "crashing", "publishing"])
def test_a_run_reads_back_as_the_record_it_was(tmp_path, request, run):
    session = request.getfixturevalue(run)
    records = tuple(session.results())
    record = Results(
        SCHEMA_VERSION,
        session.info,
        records,
        session.summarize(Tallies.of((case.tally for case in records), session.expectations), digest_of(records)),
    )
    path = write_results(tmp_path, session, records)
    validate(path)
    assert path.read_bytes() == encode(record)
    assert decode(Results, orjson.loads(encode(record))) == record
    assert read_results(path) == record


def test_the_publishing_run_holds_a_store_difference_on_every_case(publishing):
    # Without this, the round trip above could pass on empty store differences alone.
    records = tuple(publishing.results())
    assert records and all(case.evidence.publications.added for case in records)
    assert {case.verdict.code for case in records} == {
        ReasonCode.REFUSED_PUBLICATION_ADDED,
        ReasonCode.DISPATCHED_AS_EXPECTED,
    }


def test_the_crashing_run_holds_what_the_plain_one_does_not(crashing):
    # Without this, the round trip above could pass on Nones and empty tuples.
    records = tuple(crashing.results())
    summary = crashing.summarize(
        Tallies.of((case.tally for case in records), crashing.expectations), digest_of(records)
    )
    assert crashing.info.spec and crashing.info.shard and crashing.info.defects
    assert any(case.defects_killed for case in records)
    assert any(isinstance(case.evidence.stop, Crashed) and case.evidence.stop.traceback for case in records)
    assert [judged.standing for judged in summary.gate.expectations] == ["accepted", "stale"] and summary.gate.accepted


@pytest.fixture(scope="module")
def document(tmp_path_factory, session):
    path = write_results(tmp_path_factory.mktemp("run"), session, session.results())
    return orjson.loads(path.read_bytes())


KINDS = ", ".join(repr(kind.value) for kind in VerdictKind)
STOPS = (
    "'returned', 'refused', 'capacity', 'crashed', 'settlement_refused', 'timed_out', 'died', 'interrupted', 'not_run'"
)
KILLED = 0  # the first case is killed (asserted below), so flipping it to survived leaves the totals wrong

REFUSED = {
    "a wrong type deep down": (
        lambda d: d["cases"][0]["verdict"].update(kind=1),
        f"$.cases[0].verdict.kind: expected one of {KINDS}, found 1",
    ),
    "a wrong type deeper down": (
        lambda d: d["cases"][0]["evidence"]["ledger"][1].update(accepted="yes"),
        '$.cases[0].evidence.ledger[1].accepted: expected true or false, found "yes"',
    ),
    "an unknown stop": (
        lambda d: d["cases"][0]["evidence"]["stop"].update(type="exploded"),
        f'$.cases[0].evidence.stop.type: expected one of {STOPS}, found "exploded"',
    ),
    "a stop type that is not a string": (
        lambda d: d["cases"][0]["evidence"]["stop"].update(type=["refused"]),
        f"$.cases[0].evidence.stop.type: expected one of {STOPS}, found an array of 1",
    ),
    "a stop type that is an object": (
        lambda d: d["cases"][0]["evidence"]["stop"].update(type={"type": "refused"}),
        f"$.cases[0].evidence.stop.type: expected one of {STOPS}, found an object",
    ),
    "a stop type that is a number": (
        lambda d: d["cases"][0]["evidence"]["stop"].update(type=7),
        f"$.cases[0].evidence.stop.type: expected one of {STOPS}, found 7",
    ),
    "a date that is not one": (
        lambda d: d["run"].update(date="tomorrow"),
        '$.run.date: expected a date, YYYY-MM-DD, found "tomorrow"',
    ),
    "an unknown key": (
        lambda d: d["run"]["environment"].update(shell="bash"),
        "$.run.environment.shell: unexpected key in Environment",
    ),
    "a missing key": (
        lambda d: d["cases"][1]["evidence"].pop("stop"),
        "$.cases[1].evidence: missing 'stop' of Evidence",
    ),
    "a verdict its evidence contradicts": (
        lambda d: d["cases"][KILLED]["verdict"].update(kind="survived"),
        "$.cases[0].verdict.kind: survived, but the ledger shows the reservation settled as pre_dispatch_rejected, "
        "and nothing else amiss",
    ),
    "a case edited without its digest": (
        lambda d: d["cases"][KILLED]["evidence"]["diff"].append("nothing to see"),
        "$.summary.digest: the case lines hash to {edited}, not to the digest written: a case was edited",
    ),
    "a digest edited": (
        lambda d: d["summary"].update(digest="0" * 64),
        "$.summary.digest: the case lines hash to {digest}, not to the digest written: a case was edited",
    ),
    "totals that do not add up": (
        lambda d: d["summary"]["totals"].update(killed=d["summary"]["totals"]["killed"] - 1),
        "$.summary.totals.killed: {killed_less} does not add up to the cases, which give {killed}",
    ),
    "a gate turned": (
        lambda d: d["summary"]["gate"].update(ok=False),
        "$.summary.gate.ok: false does not add up to the cases, which give true",
    ),
    "an older schema": (
        lambda d: d.update(schema_version=3),
        "$.schema_version: expected results.json schema version 16, found 3: written by another version of toolsurface",
    ),
    # Version 15 had no failure cases: a case whose provider fails could not be written.
    "the schema before this one": (
        lambda d: d.update(schema_version=15),
        "$.schema_version: expected results.json schema version 16, found 15: "
        "written by another version of toolsurface",
    ),
}


def in_run_layout(document):
    """The document laid out as `run` writes it: the run, one case per line, then the summary."""
    head = orjson.dumps({"schema_version": document["schema_version"], "run": document["run"]})[:-1] + b',"cases":['
    cases = b"".join((b",\n" if at else b"\n") + orjson.dumps(case) for at, case in enumerate(document["cases"]))
    return head + cases + b'\n],"summary":' + orjson.dumps(document["summary"]) + b"}\n"


#: How a file may be laid out: as `run` writes it (read a case at a time), or otherwise (read whole).
LAYOUTS = {
    "as run writes it": in_run_layout,
    "on one line": orjson.dumps,
    "indented": lambda d: orjson.dumps(d, option=orjson.OPT_INDENT_2),
}


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("edit", REFUSED.values(), ids=REFUSED.keys())
def test_a_file_that_is_not_a_record_is_refused_with_one_line_naming_where(tmp_path, document, edit, layout):
    change, expected = edit
    assert document["cases"][KILLED]["verdict"]["kind"] == "killed" and document["summary"]["gate"]["ok"] is True
    edited = copy.deepcopy(document)
    change(edited)
    path = tmp_path / RESULTS_FILE
    path.write_bytes(layout(edited))
    with pytest.raises(UsageError) as refused:
        read_results(path)
    killed, digest = document["summary"]["totals"]["killed"], document["summary"]["digest"]
    edited_digest = digest_of(decode(Results, edited).cases) if "{edited}" in expected else None
    values = {"killed": killed, "killed_less": killed - 1, "digest": digest, "edited": edited_digest}
    assert str(refused.value) == f"{path}:" + expected.format(**values)
    # The unedited document reads: the refusal is the edit's doing.
    path.write_bytes(layout(document))
    assert read_results(path).summary.totals.killed == killed


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_record_reads_the_same_in_any_layout_and_streams_in_the_one_run_writes(tmp_path, session, layout):
    written = write_results(tmp_path / "run", session, session.results())
    assert in_run_layout(orjson.loads(written.read_bytes())) == written.read_bytes()
    path = tmp_path / RESULTS_FILE
    path.write_bytes(layout(orjson.loads(written.read_bytes())))
    opened = open_results(path)
    assert isinstance(opened.cases, _results.StoredCases) == (layout is in_run_layout)
    assert tuple(opened.cases) == tuple(opened.cases) == read_results(written).cases
    assert list(opened.indices) == [case.case.index for case in opened.cases]


def test_the_digest_is_the_sha256_of_the_case_lines_as_written(tmp_path, session):
    raw = write_results(tmp_path, session, session.results()).read_bytes()
    lines = raw[raw.index(b'"cases":[') + len(b'"cases":[') : raw.rindex(b'\n],"summary":')]
    assert lines.count(b"\n") == len(session.cases) > 0
    assert orjson.loads(raw)["summary"]["digest"] == hashlib.sha256(lines).hexdigest()


def test_same_seed_same_file(tmp_path, session):
    first = write_results(tmp_path / "a", session, session.results()).read_text()
    second = write_results(tmp_path / "b", session, prepare(session.options).results()).read_text()
    assert first == second


def test_an_interrupted_run_leaves_nothing(tmp_path, session):
    results = session.results()
    with pytest.raises(KeyboardInterrupt), ResultsWriter(tmp_path, session) as writer:
        writer.write(next(results))
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_the_previous_results_survive_a_failed_run(tmp_path, session):
    (tmp_path / RESULTS_FILE).write_text("previous")
    with pytest.raises(RuntimeError), ResultsWriter(tmp_path, session):
        raise RuntimeError("target exploded")
    assert (tmp_path / RESULTS_FILE).read_text() == "previous"
    assert [p.name for p in tmp_path.iterdir()] == [RESULTS_FILE]


def test_a_full_disk_is_one_error_naming_results_json_and_leaves_nothing(tmp_path, session, monkeypatch):
    def on_full_disk(path):  # /dev/full fails every write with ENOSPC
        _, name = temporary(path)
        return open("/dev/full", "wb"), name

    monkeypatch.setattr(_results, "temporary", on_full_disk)
    with pytest.raises(UsageError) as refused:
        write_results(tmp_path, session, session.results())
    assert str(refused.value) == f"{tmp_path / RESULTS_FILE}: cannot write there: No space left on device"
    assert refused.value.option == "out" and list(tmp_path.iterdir()) == []


def test_results_that_cannot_go_into_place_leave_no_temporary(tmp_path, session):
    (tmp_path / RESULTS_FILE).mkdir()
    with pytest.raises(UsageError) as refused:
        write_results(tmp_path, session, session.results())
    assert str(refused.value) == f"{tmp_path / RESULTS_FILE}: cannot write there: Is a directory"
    assert [p.name for p in tmp_path.iterdir()] == [RESULTS_FILE]


def test_results_are_readable_as_any_new_file_is(tmp_path, session):
    previous = os.umask(0o022)
    try:
        path = write_results(tmp_path, session, session.results())
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == 0o644
