"""Untrusted text as a terminal, an editor or a report may show it: inert, and escaped reversibly.

Tool and schema property names come from scenario files and end up in case ids, reasons and
reproduce commands. Printed raw, an ESC or OSC sequence would drive the terminal (clear it, set
its title, hide a link), a `\\r`, a newline or U+2028 would forge a line, a bidi control
(U+202E) would show the text in an order other than the one it has, and an invisible character
(a zero-width joiner, a tag character) would make two different ids look the same. Every line a
person reads — the terminal, pytest node ids, and the Markdown, JUnit and HTML reports — shows
such text through `printable`, so a reviewer copies the same id from any of them; only the
data files (results.json, the JSON audit) keep the raw text. `unprintable` undoes it, so an id
copied from any of those finds its case.
"""

from __future__ import annotations

import re

#: Escapes that read back as one character; anything else hidden is shown by its code point.
_NAMED = {"\n": "n", "\r": "r", "\t": "t"}
_UNNAMED = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\"}
#: What `printable` may have to look at: anything but printable ASCII, and the backslash.
_NOTABLE = re.compile(r"[^\x20-\x5b\x5d-\x7e]")
#: What reads as an escape after a backslash: a backslash written as text before it is doubled.
_ESCAPE = re.compile(r"[\\nrt]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}")
_ESCAPED = re.compile(r"\\([\\nrt]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")
#: Default-ignorable code points (Unicode's DerivedCoreProperties) that Python counts as printable:
#: combining and Hangul fillers, Khmer inherent vowels, variation selectors. They show nothing
#: themselves, so they would hide a difference between two ids; the rest of that property is
#: format (Cf) or unassigned, which `str.isprintable` already refuses.
_IGNORABLE = re.compile("[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]")


def hidden(char: str) -> bool:
    """Whether `printable` escapes this character rather than show it.

    Python's "not printable" is every Unicode Other and Separator but the space: controls (C0,
    DEL, C1), format characters (Cf: the bidi controls U+061C, U+200E/F, U+202A–E, U+2066–9, the
    zero-width space and joiners, the BOM, tag characters), the line and paragraph separators
    (U+2028/9), surrogates (which no encoding can write), private-use and unassigned code points,
    and every space that only looks like one (U+00A0, U+3000…), which a terminal may paste back as
    a plain space. A reviewer reading an id needs each character it holds to be seen, and to be
    seen where it is: none of these shows itself as what it is. Letters, marks and symbols of any
    script are shown as they are.
    """
    return not char.isprintable() or _IGNORABLE.match(char) is not None


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return "\\" + _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """`text` with every `hidden` character escaped (ESC as `\\x1b`, a newline as `\\n`, U+202E as
    `\\u202e`), and with a backslash doubled where what follows it would read as an escape."""
    if text.isascii() and text.isprintable() and "\\" not in text:
        return text  # most ids and reasons: nothing to look at, and reports print thousands

    def shown(match: re.Match[str]) -> str:
        char = match[0]
        if char != "\\":
            return _escape(char) if hidden(char) else char
        after = match.end()
        escapes = _ESCAPE.match(text, after) is not None or (after < len(text) and hidden(text[after]))
        return "\\\\" if escapes else "\\"

    return _NOTABLE.sub(shown, text)


def unprintable(text: str) -> str:
    """The text `printable` showed as `text` (an escape past U+10FFFF is left as it is)."""

    def raw(match: re.Match[str]) -> str:
        escape = match[1]
        if escape in _UNNAMED:
            return _UNNAMED[escape]
        code = int(escape[1:], 16)
        return chr(code) if code <= 0x10FFFF else match[0]

    return _ESCAPED.sub(raw, text)
