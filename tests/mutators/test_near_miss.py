"""Near misses: each form changes the text, and the normalization it is meant to slip past folds it back."""

import unicodedata

import pytest

from toolsurface.mutators import Form, MutationNotApplicable
from toolsurface.mutators._near_miss import near_miss, schema_strings

NAME = "market__get_instrument_profile"
TEXT = "Read the public profile of one instrument."

#: What each form looks like on NAME or TEXT, and the normalization that takes it for the original.
FORMS = [
    (Form.CASE, NAME, 0, "Market__get_instrument_profile", str.casefold),
    (Form.FULLWIDTH, NAME, 1, "m\uff41rket__get_instrument_profile", lambda t: unicodedata.normalize("NFKC", t)),
    (Form.LIGATURE, NAME, 0, "market__get_instrument_pro\ufb01le", lambda t: unicodedata.normalize("NFKC", t)),
    (Form.NO_BREAK, TEXT, 0, "Read\u00a0the public profile of one instrument.", lambda t: " ".join(t.split())),
    (Form.ZERO_WIDTH, NAME, 6, "market\u200b__get_instrument_profile", lambda t: t.replace("\u200b", "")),
    (Form.WHITESPACE, TEXT, 0, f"{TEXT} ", str.strip),
    (Form.WHITESPACE, TEXT, 1, f" {TEXT}", str.strip),
    (Form.WHITESPACE, TEXT, 2, TEXT.replace(" ", "  ", 1), lambda t: " ".join(t.split())),
    (Form.PREFIX, NAME, 0, f"_{NAME}", lambda t: t.strip("_")),
    (Form.SUFFIX, NAME, 0, f"{NAME}_", lambda t: t.strip("_")),
    (Form.SEGMENT, NAME, 0, "get_instrument_profile", lambda t: t.rpartition("__")[2]),
]


@pytest.mark.parametrize(("form", "text", "at", "changed", "normalize"), FORMS, ids=lambda v: str(v)[:20])
def test_each_form_is_a_near_miss(form, text, at, changed, normalize) -> None:
    assert near_miss(text, form, at) == changed != text
    assert normalize(changed) == normalize(text)


def test_at_counts_round_the_candidates() -> None:
    letters = sum(char.isalpha() for char in NAME)
    assert near_miss(NAME, Form.CASE, letters) == near_miss(NAME, Form.CASE, 0)


@pytest.mark.parametrize(
    ("form", "text"),
    [
        (Form.LIGATURE, "market__web_search"),
        (Form.NO_BREAK, "web_search"),
        (Form.SEGMENT, "web_search"),
        (Form.CASE, "__"),
        (Form.SEGMENT, "market__"),
    ],
)
def test_a_text_with_no_place_for_the_form_is_not_applicable(form, text) -> None:
    with pytest.raises(MutationNotApplicable):
        near_miss(text, form, 0)


def test_schema_strings_are_descriptions_titles_and_enum_values() -> None:
    schema = {
        "type": "object",
        "description": "Top.",
        "properties": {
            "kind": {"type": "string", "enum": ["etf", 3, "fund"], "title": "Kind"},
            "type": {"type": "string", "description": "A property named type."},
        },
    }
    assert list(schema_strings(schema)) == [
        "/description",
        "/properties/kind/title",
        "/properties/kind/enum/0",
        "/properties/kind/enum/2",
        "/properties/type/description",
    ]
