"""Text shown to a person: nothing a terminal or an editor acts on, or hides, gets through, and the
escaping reads back exactly."""

import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolsurface.common._printable import hidden, printable, unprintable

#: What a terminal or an editor acts on, or shows as nothing: C0, DEL, C1, the bidi controls, the
#: line and paragraph separators, zero-width and tag characters, a space that only looks like one.
ACTING = (
    "\x00\x07\x1b\n\r\t\x7f\x85\x9b\x9f"
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u2028\u2029\u200b\u200c\u200d\u2060\ufeff\u00ad\U000e0041\U000e007f\u00a0\u3000"
    "\u034f\u3164\ufe0f\U000e0100\ud800\udfff\ue000\U0010ffff"
)
#: Characters that make escaping hard: backslashes, the letters and hex digits of escapes after them.
TRICKY = st.text(st.sampled_from(list("\\xnrtuU0129abfF'/ ") + list(ACTING)) | st.characters(exclude_categories=()))


def test_every_character_a_terminal_or_editor_acts_on_is_hidden():
    assert all(hidden(char) for char in ACTING)
    # Letters, marks and symbols of any script are shown as they are, and so is the plain space.
    assert not any(hidden(char) for char in " aé中ж\u0301🙂|`$'\"")


def test_hidden_is_every_other_and_separator_character_but_the_space():
    for code in range(0x110000):
        char = chr(code)
        category = unicodedata.category(char)
        if char != " " and category[0] in "CZ":
            assert hidden(char), f"U+{code:04X} ({category}) is shown raw"


@given(TRICKY)
@example("\\\u202e")
@example("\\u202e")
@example("\\U0001f600\\x1")
def test_it_shows_nothing_hidden_and_reads_back_exactly(text):
    shown = printable(text)
    assert not [char for char in shown if hidden(char)]
    assert unprintable(shown) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("q\x1b]0;pwned\x07\x1b[2J\nx", "q\\x1b]0;pwned\\x07\\x1b[2J\\nx"),
        ("line\r\n\tend\x9b", "line\\r\\n\\tend\\x9b"),
        # Bidi controls, separators and invisible characters, by their code points.
        ("user\u202etxt.exe", "user\\u202etxt.exe"),
        ("a\u2028b\u2029c", "a\\u2028b\\u2029c"),
        ("ad\u200dmin\U000e0041", "ad\\u200dmin\\U000e0041"),
        ("no\u00a0break", "no\\xa0break"),
        # Written out as text, an escape gets its backslash doubled, so it never reads as the character.
        ("q\\x1b and \\n", "q\\\\x1b and \\\\n"),
        ("\\u202e and \\U0001f600", "\\\\u202e and \\\\U0001f600"),
        ("\\\x1b", "\\\\\\x1b"),
        # Plain ids, non-ASCII letters, and backslashes that read as nothing else, are shown as they are.
        ("etf/main/hooks/post_seal/schema.in_place:type:market__web_search:/properties/query/type",) * 2,
        ("C:\\Users\\me", "C:\\Users\\me"),
        ("\\x4 and \\u12", "\\x4 and \\u12"),
        ("résumé/检索", "résumé/检索"),
    ],
)
def test_examples(text, shown):
    assert printable(text) == shown and unprintable(shown) == text


def test_an_escape_past_the_last_code_point_is_left_as_written():
    assert unprintable("a\\U00110000b\\UFFFFFFFF") == "a\\U00110000b\\UFFFFFFFF"
