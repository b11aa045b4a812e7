"""Aims: a closed set of small typed values, each spelled in case ids exactly as before, each
plain enough for a generic `{"type": tag, **fields}` codec."""

import dataclasses
import enum
import pickle
import random
import typing

import pytest

from toolsurface import mutators
from toolsurface.contract._lossy import Lossy
from toolsurface.mutators import (
    MUTATORS,
    Aim,
    Claim,
    ClaimText,
    Cut,
    Diagnostic,
    FactField,
    FieldText,
    ForeignOwner,
    Forgery,
    Insert,
    Keep,
    LookAlike,
    LooksLike,
    Messages,
    Narrowing,
    ParentBound,
    Request,
    Reverse,
    Rotate,
    SchemaPath,
    Selection,
    Steps,
    Swap,
    Text,
    Tool,
    Where,
    WireField,
)
from toolsurface.mutators._testing import example_scenario
from toolsurface.scenarios import FactKind, load

AIMS = typing.get_args(Aim)
SCENARIOS = load()

#: One of each aim and the text a case id carries for it (the string language aims replaced).
SPELLED = [
    (Tool("market__web_search"), "market__web_search"),
    (Insert("portfolio__transfer_cash", 1), "portfolio__transfer_cash@1"),
    (SchemaPath("fx__quotes", "/properties/price~1earnings/type"), "fx__quotes:/properties/price~1earnings/type"),
    (SchemaPath("market__web_search", "/$defs/range/required/-"), "market__web_search:/$defs/range/required/-"),
    (Swap(0, 3), "0<->3"),
    (Reverse(), "reverse"),
    (Rotate(2), "rotate+2"),
    (Messages(), "messages"),
    (Request(), "request"),
    (Diagnostic(LooksLike.PROVIDER_ATTEMPT), "provider_attempt"),
    (Forgery(FactField.INVOCATION), "invocation"),
    (LookAlike(FactField.SCOPE, Where.MIDDLE), "scope@middle"),
    (ForeignOwner("host", FactKind.SEARCH_BUDGET_EXHAUSTED), "host:search_budget_exhausted"),
    (ParentBound(FactKind.RUN_DEADLINE_EXHAUSTED), "run_deadline_exhausted"),
    (Narrowing(FactKind.SEARCH_BUDGET_EXHAUSTED), "search_budget_exhausted"),
    (Claim("portfolio"), "portfolio"),
    (WireField("market__web_read", "strict"), "market__web_read:strict"),
    (
        WireField("portfolio__get_holdings", "annotations", "/readOnlyHint"),
        "portfolio__get_holdings:annotations/readOnlyHint",
    ),
    (Cut("filings__search_regulatory_filings", 1024), "filings__search_regulatory_filings~1024"),
    (Keep(40), "first40"),
    (Selection(16, "market__web_search"), "keep16+market__web_search"),
    (Text("market__web_read", "name", Lossy.NFKC), "market__web_read:name~nfkc"),
    (Text("fx__quotes", "/properties/pair/enum/0", Lossy.CASEFOLD), "fx__quotes:/properties/pair/enum/0~casefold"),
    (FieldText(FactField.SCOPE, Lossy.LAST_SEGMENT), "scope~last_segment"),
    (ClaimText("portfolio", Lossy.ZERO_WIDTH), "portfolio~zero_width"),
    (
        Steps(
            '[{"mutator":"reorder.swap","delivery":"replace","aim":{"type":"swap","first":0,"second":1}},'
            '{"mutator":"rename.near_miss","delivery":"in_place","aim":{"type":"text","tool":"a","place":"name",'
            '"lossy":"casefold"}}]'
        ),
        "reorder.swap.replace:0<->1 then rename.near_miss.in_place:a:name~casefold",
    ),
]


def _encode(aim: Aim) -> dict:
    """What a generic codec writes: the tag, then every field as a plain JSON value."""
    fields = {field.name: getattr(aim, field.name) for field in dataclasses.fields(aim)}
    plain = {name: value.value if isinstance(value, enum.Enum) else value for name, value in fields.items()}
    return {"type": aim.tag, **plain}


def _decode(document: dict) -> Aim:
    fields = dict(document)
    cls = {cls.tag: cls for cls in AIMS}[fields.pop("type")]
    return cls(**fields)


@pytest.mark.parametrize(("aim", "text"), SPELLED, ids=[text for _, text in SPELLED])
def test_an_aim_is_spelled_as_case_ids_spell_it(aim: Aim, text: str) -> None:
    assert str(aim) == text
    assert f"{aim}" == text  # case ids are built with f-strings


def test_every_kind_of_aim_is_spelled_above() -> None:
    assert {type(aim) for aim, _ in SPELLED} == set(AIMS)


@pytest.mark.parametrize("cls", AIMS, ids=lambda cls: cls.__name__)
def test_an_aim_is_a_frozen_slotted_dataclass_of_plain_fields(cls: type) -> None:
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert "__slots__" in vars(cls) and "tag" not in vars(cls)["__slots__"]
    hints = typing.get_type_hints(cls)
    for field in dataclasses.fields(cls):
        kind = hints[field.name]
        assert kind in (str, int) or issubclass(kind, enum.StrEnum), (cls.__name__, field.name, kind)


def test_tags_are_short_lowercase_words_unique_among_aims() -> None:
    tags = [cls.tag for cls in AIMS]
    assert len(set(tags)) == len(tags)
    assert all(tag.isalpha() and tag.islower() for tag in tags), tags


def test_every_aim_class_is_public() -> None:
    assert {"Aim", *(cls.__name__ for cls in AIMS), "LooksLike", "FactField"} <= set(mutators.__all__)


@pytest.mark.parametrize(("aim", "text"), SPELLED, ids=[text for _, text in SPELLED])
def test_an_aim_survives_the_generic_codec_and_pickling(aim: Aim, text: str) -> None:
    document = _encode(aim)
    assert all(type(value) in (str, int) for value in document.values())
    decoded = _decode(document)
    assert decoded == aim and type(decoded) is type(aim) and str(decoded) == text
    assert pickle.loads(pickle.dumps(aim)) == aim


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Tool(""), "name='' must be a non-empty str"),
        (lambda: Insert("market__place_order", -1), "position=-1 must be an int >= 0"),
        (lambda: Insert("market__place_order", "2"), "position='2' must be an int >= 0"),
        (lambda: Swap(0, True), "second=True must be an int >= 0"),
        (lambda: Rotate(-1), "by=-1 must be an int >= 0"),
        (lambda: SchemaPath("market__web_read", "properties/url"), "pointer='properties/url' must be a JSON Pointer"),
        (lambda: SchemaPath("market__web_read", ""), "pointer='' must be a JSON Pointer"),
        (lambda: Diagnostic("quota"), "looks_like='quota' must be one of budget, deadline, provider_attempt"),
        (lambda: Forgery("request"), "field='request' must be one of run, scope, invocation, connection, owner"),
        (lambda: Claim(""), "capability='' must be a non-empty str"),
    ],
)
def test_a_malformed_aim_is_refused_where_it_is_built(build, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        build()


@pytest.mark.parametrize("mutator", MUTATORS, ids=lambda mutator: mutator.key())
def test_each_mutator_takes_one_kind_of_aim_and_refuses_the_others(mutator) -> None:
    planned = {type(example.aim) for example in mutator.examples}
    for scenario in SCENARIOS:
        planned |= {type(aim) for seed in range(3) for aim in mutator.aims(scenario, random.Random(seed))}
    assert len(planned) == 1, planned
    (taken,) = planned
    other = Messages() if taken is not Messages else Reverse()
    example = mutator.examples[0]
    edit = mutators.Edit([], [], None, mutators.Delivery.REPLACE, other, example_scenario(example))
    refusal = rf"{mutator.key()} takes {taken.__name__} aims, not {type(other).__name__}\(\)"
    with pytest.raises(TypeError, match=refusal):
        mutator.apply(edit)
