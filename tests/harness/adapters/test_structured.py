"""The offline model's answer to a framework's structured-output call: a value of the schema, from the recording."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._adapters._structured import answer

names = st.lists(st.text("abcdef_", min_size=1, max_size=6), min_size=1, max_size=8, unique=True)


def selection_schema(choices, as_enum=False):
    items = {"enum": choices} if as_enum else {"anyOf": [{"const": c, "type": "string"} for c in choices]}
    return {"type": "object", "properties": {"tools": {"type": "array", "items": items}}, "required": ["tools"]}


@given(names, st.lists(st.text("abcdefg_", min_size=1, max_size=6), max_size=5), st.booleans())
def test_a_selection_puts_the_recorded_calls_first_then_every_other_choice_in_order(choices, wanted, as_enum):
    chosen = answer(selection_schema(choices, as_enum), wanted)["tools"]
    first = [name for name in dict.fromkeys(wanted) if name in choices]
    assert chosen[: len(first)] == first
    assert chosen[len(first) :] == [c for c in choices if c not in first]


def test_other_values_are_the_least_of_their_type_and_refs_are_followed():
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "flag": {"type": "boolean"},
            "pick": {"enum": ["b", "a"]},
            "inner": {"$ref": "#/$defs/Inner"},
            "maybe": {"type": ["null", "string"]},
        },
        "$defs": {"Inner": {"type": "object", "properties": {"text": {"type": "string"}, "xs": {"type": "array"}}}},
    }
    assert answer(schema) == {"n": 0, "flag": False, "pick": "b", "inner": {"text": "", "xs": []}, "maybe": ""}
