"""Text shown on a terminal: no control character gets through, and the escaping reads back exactly."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._printable import printable, unprintable

#: Characters that make escaping hard: controls, backslashes and the letters of escapes after them.
TRICKY = st.text(st.sampled_from(list("\\xnrt0129abf'/ \x1b\x07\x00\n\r\t\x7f\x85\x9b\x9f")) | st.characters())


@given(TRICKY)
def test_it_shows_no_control_character_and_reads_back_exactly(text):
    shown = printable(text)
    assert not [char for char in shown if ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F]
    assert unprintable(shown) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("q\x1b]0;pwned\x07\x1b[2J\nx", "q\\x1b]0;pwned\\x07\\x1b[2J\\nx"),
        ("line\r\n\tend\x9b", "line\\r\\n\\tend\\x9b"),
        # Written out as text, an escape gets its backslash doubled, so it never reads as the control.
        ("q\\x1b and \\n", "q\\\\x1b and \\\\n"),
        ("\\\x1b", "\\\\\\x1b"),
        # Plain ids, and backslashes that read as nothing else, are shown as they are.
        ("etf/main/hooks/post_seal/schema.in_place:type:market__web_search:/properties/query/type",) * 2,
        ("C:\\Users\\me", "C:\\Users\\me"),
    ],
)
def test_examples(text, shown):
    assert printable(text) == shown and unprintable(shown) == text
