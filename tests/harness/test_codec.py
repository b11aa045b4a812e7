"""The codec: every record reads back as itself and follows its schema; unions go by `"type"`;
errors name the JSON path; the schema refuses two records it could not tell apart."""

import dataclasses
import functools
from dataclasses import dataclass
from typing import ClassVar

import jsonschema
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._facts import Binding, FactKind, OwnerFact, Ruling
from toolsurface.contract._owner import Settlement
from toolsurface.harness._codec import DecodeError, decode, dumps, schema
from toolsurface.harness._expectations import Expectation
from toolsurface.harness._types import (  # fmt: skip
    Capacity,
    Crashed,
    Evidence,
    LedgerEvent,
    LedgerOp,
    NotRun,
    PublicationsDiff,
    Published,
    Refused,
    Returned,
    Stop,
    TimedOut,
    Totals,
    Verdict,
    VerdictKind,
)
from toolsurface.mutators import Insert
from toolsurface.scenarios import POINTS, Boundary

texts = st.text(max_size=12)
lines = st.lists(texts, max_size=3).map(tuple)
counts = st.integers(min_value=0, max_value=2**63 - 1)

totals = st.builds(Totals, counts, counts, counts, counts, counts, counts, counts)
verdicts = st.builds(Verdict, st.sampled_from(VerdictKind), texts)
ledger_events = st.builds(
    LedgerEvent, texts, st.sampled_from(LedgerOp), texts, st.none() | st.sampled_from(Settlement), st.booleans(), texts
)
crashes = st.builds(Crashed, texts, texts, texts)
stops = st.one_of(
    st.builds(Returned),
    st.builds(Refused, texts, texts),
    st.builds(Capacity, texts, texts),
    crashes,
    st.builds(TimedOut),
    st.builds(NotRun),
)
facts = st.builds(OwnerFact, st.sampled_from(FactKind), texts, st.builds(Binding, texts, texts, texts, texts), lines)
rulings = st.builds(Ruling, facts, texts, lines, lines)
expectations = st.builds(Expectation, texts, st.sampled_from(VerdictKind), texts, st.dates())
boundaries = st.builds(
    Boundary, st.sampled_from(POINTS) | st.from_regex(r"[a-z:]{1,12}", fullmatch=True), st.integers(1, 2**62)
)
bodies = st.lists(st.builds(Published, texts, texts), max_size=2).map(tuple)
stores = st.builds(PublicationsDiff, bodies, bodies, bodies)
evidence = st.builds(
    Evidence,
    counts,
    st.lists(ledger_events, max_size=3).map(tuple),
    stops,
    lines,
    st.lists(boundaries, max_size=3).map(tuple),
    st.lists(rulings, max_size=2).map(tuple),
    publications=stores,
)

RECORDS = {
    "Totals": (Totals, totals),
    "Verdict": (Verdict, verdicts),
    "LedgerEvent": (LedgerEvent, ledger_events),
    "Crashed": (Crashed, crashes),
    "Stop": (Stop, stops),
    "Ruling": (Ruling, rulings),
    "Expectation": (Expectation, expectations),
    "PublicationsDiff": (PublicationsDiff, stores),
    "Evidence": (Evidence, evidence),
}


@functools.cache
def validator(cls):
    return jsonschema.Draft202012Validator(schema(cls), format_checker=jsonschema.FormatChecker())


@pytest.mark.parametrize(("cls", "values"), RECORDS.values(), ids=RECORDS.keys())
@given(data=st.data())
def test_every_value_reads_back_as_itself_and_follows_its_schema(cls, values, data):
    value = data.draw(values)
    written = orjson.loads(dumps(value))
    assert decode(cls, written) == value
    validator(cls).validate(written)


# A union of records whose members have the same fields: only `"type"` tells them apart.


@dataclass(frozen=True, slots=True)
class Circle:
    tag: ClassVar[str] = "circle"
    size: int


@dataclass(frozen=True, slots=True)
class Square:
    tag: ClassVar[str] = "square"
    size: int


Shape = Circle | Square


def test_a_union_of_records_is_written_with_its_type_and_read_by_it():
    assert orjson.loads(dumps((Square(2), Circle(2)))) == [{"type": "square", "size": 2}, {"type": "circle", "size": 2}]
    assert decode(tuple[Shape, ...], [{"type": "square", "size": 2}, {"type": "circle", "size": 2}]) == (
        Square(2),
        Circle(2),
    )
    with pytest.raises(DecodeError) as refused:
        decode(tuple[Shape, ...], [{"type": "circle", "size": 1}, {"type": "hexagon", "size": 1}])
    assert str(refused.value) == """$[1].type: expected one of 'circle', 'square', found "hexagon\""""
    for kind, shown in ((["circle"], "an array of 1"), ({"circle": 1}, "an object"), (1.5, "1.5")):
        with pytest.raises(DecodeError) as refused:
            decode(tuple[Shape, ...], [{"type": kind, "size": 1}])
        assert str(refused.value) == f"$[0].type: expected one of 'circle', 'square', found {shown}"
    with pytest.raises(DecodeError, match=r"""^\$\.type: expected 'square', found "circle"$"""):
        decode(Square, {"type": "circle", "size": 1})
    shapes = validator(Shape)
    assert shapes.is_valid({"type": "circle", "size": 1}) and not shapes.is_valid({"type": "hexagon", "size": 1})
    assert not shapes.is_valid({"size": 1})


@dataclass(frozen=True, slots=True)
class Inner:
    b: int


@dataclass(frozen=True, slots=True)
class Outer:
    a: tuple[Inner, ...]


@pytest.mark.parametrize(
    ("data", "path", "message"),
    [
        ({"a": [{"b": 1}, {"b": "x"}]}, "$.a[1].b", 'expected an integer, found "x"'),
        ({"a": [{"b": 1}, {"b": True}]}, "$.a[1].b", "expected an integer, found true"),
        ({"a": [{"b": 1}, {}]}, "$.a[1]", "missing 'b' of Inner"),
        ({"a": [{"b": 1, "c-d": 2}]}, '$.a[0]["c-d"]', "unexpected key in Inner"),
        ({"a": {"b": 1}}, "$.a", "expected an array, found an object"),
    ],
)
def test_an_error_names_the_json_path_of_what_is_wrong(data, path, message):
    with pytest.raises(DecodeError) as refused:
        decode(Outer, data)
    assert (refused.value.path, refused.value.message) == (path, message)
    assert str(refused.value) == f"{path}: {message}"


def twin(module):
    """A record called `Twin`, as if declared in `module`."""

    @dataclass(frozen=True, slots=True)
    class Twin:
        x: int

    Twin.__module__, Twin.__qualname__ = module, "Twin"
    return Twin


def test_the_schema_refuses_two_records_of_one_name_from_different_modules():
    first, second = twin("first_module"), twin("second_module")
    one = dataclasses.make_dataclass("Pair", [("left", first), ("right", first)], frozen=True)
    document = schema(one)
    assert list(document["$defs"]) == ["Pair", "Twin"]
    assert document["$defs"]["Pair"]["properties"]["right"] == {"$ref": "#/$defs/Twin"}
    both = dataclasses.make_dataclass("Pair", [("left", first), ("right", second)], frozen=True)
    with pytest.raises(TypeError, match=r"^two records are called Twin: first_module\.Twin and second_module\.Twin$"):
        schema(both)


def test_a_value_its_record_refuses_is_a_decode_error_naming_where():
    with pytest.raises(DecodeError) as refused:
        decode(
            tuple[Insert, ...],
            [{"type": "insert", "name": "t", "position": 0}, {"type": "insert", "name": "t", "position": -1}],
        )
    assert refused.value.path == "$[1]" and "not a valid Insert: position=-1 must be an int >= 0" in str(refused.value)


def test_a_boundary_is_written_as_the_label_case_ids_spell_and_read_back_by_it():
    assert dumps((Boundary("hook"), Boundary("post_seal", 2))) == b'["hook","post_seal@2"]'
    assert decode(tuple[Boundary, ...], ["hook", "post_seal@2"]) == (Boundary("hook"), Boundary("post_seal", 2))
    with pytest.raises(DecodeError) as refused:
        decode(tuple[Boundary, ...], ["hook", "hook@1"])
    assert refused.value.path == "$[1]" and "named without '@1'" in str(refused.value)
