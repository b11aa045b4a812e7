"""Explored examples: one file per change, its id the digest of the change, its JSON Schema derived
from the record, and a file that does not hold together refused by name."""

import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from toolsurface.common._errors import UsageError
from toolsurface.contract._lossy import Lossy
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._examples import (
    EXAMPLE_VERSION,
    Explored,
    cases_of,
    example_schema,
    explored_id,
    load_examples,
    save,
)
from toolsurface.harness._types import Verdict, VerdictKind
from toolsurface.mutators import Delivery, Kind, Must, Mutation, Text
from toolsurface.scenarios import load

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "harness" / "example.schema.json"
SCENARIO = load(None)[0]
TOOL = SCENARIO.surface[0].name


def example(lossy: Lossy = Lossy.CASEFOLD) -> Explored:
    mutation = Mutation(
        "description.near_miss",
        Kind.DESCRIPTION,
        "near_miss",
        Delivery.REPLACE,
        Text(TOOL, "description", lossy),
        Must.REFUSE,
    )
    boundary = SCENARIO.checkpoints[0]
    verdict = Verdict(VerdictKind.SURVIVED, "dispatched with the change", ReasonCode.DISPATCHED_WITH_CHANGE)
    return Explored(
        EXAMPLE_VERSION,
        explored_id(SCENARIO.id, boundary, mutation),
        SCENARIO.id,
        boundary,
        mutation,
        "t:x",
        0,
        verdict,
    )


def test_the_committed_schema_is_the_derived_one() -> None:
    assert json.loads(SCHEMA_FILE.read_text()) == json.loads(orjson.dumps(example_schema()))


def test_a_saved_example_loads_back_valid_against_its_schema(tmp_path: Path) -> None:
    path = save(tmp_path / "new", example())
    jsonschema.validate(json.loads(path.read_text()), example_schema())
    assert load_examples([tmp_path / "new"]) == (example(),)
    assert path.name == example().id.removeprefix("explored/") + ".json"


def test_the_id_is_the_change_s_and_nothing_else() -> None:
    assert example().id == example().id != example(Lossy.NFKC).id
    assert example().id.startswith("explored/") and len(example().id) == len("explored/") + 12


def test_an_example_becomes_a_case_after_the_plan_and_one_of_another_recording_is_skipped() -> None:
    other = example()
    (case,) = cases_of([other], [SCENARIO], first_index=500)
    assert (case.id, case.index, case.boundary, case.mutation) == (other.id, 500, other.boundary, other.mutation)
    assert case.change and not case.equivalent
    assert list(cases_of([other], load(None)[1:2], first_index=0)) == []


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: d["mutation"]["aim"].update(lossy="nfkc"), "$.id: "),
        (lambda d: d.update(example_version=2), "$.example_version: 2"),
        (lambda d: d["mutation"].update(mutator="rename.typo"), "$.mutation.mutator: no mutator 'rename.typo'"),
        (lambda d: d["boundary"].__class__ and d.update(boundary=3), "$.boundary"),
        (lambda d: d.pop("verdict"), "$"),
    ],
)
def test_a_file_that_does_not_hold_together_is_one_error_naming_it(tmp_path: Path, edit, says) -> None:
    path = save(tmp_path, example())
    document = json.loads(path.read_text())
    edit(document)
    path.write_text(json.dumps(document))
    with pytest.raises(UsageError) as raised:
        load_examples([tmp_path])
    assert str(raised.value).startswith(f"{path}:{says}")
    assert raised.value.option == "examples"
