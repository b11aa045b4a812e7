"""Untrusted text as a terminal may show it: control characters escaped, reversibly.

Tool and schema property names come from scenario files and end up in case ids, reasons and
reproduce commands. Printed raw, an ESC or OSC sequence would drive the terminal (clear it, set
its title, hide a link), and a `\\r` or newline would forge a line. Every terminal line and pytest
node id built from such text goes through `printable`; files keep the raw text, escaped as their
own format requires. `unprintable` undoes it, so an id copied from the terminal finds its case.
"""

from __future__ import annotations

import re

#: C0 controls, DEL and C1 controls: what a terminal may act on rather than show.
_CONTROL = "\x00-\x1f\x7f-\x9f"
#: A control character, or a backslash that would otherwise read as the start of an escape.
_SHOWN = re.compile(rf"[{_CONTROL}]|\\(?=[\\xnrt{_CONTROL}])")
_ESCAPED = re.compile(r"\\(\\|n|r|t|x[0-9a-fA-F]{2})")
_NAMED = {"\n": "n", "\r": "r", "\t": "t", "\\": "\\"}
_UNNAMED = {name: char for char, name in _NAMED.items()}


def printable(text: str) -> str:
    """`text` with control characters escaped (ESC as `\\x1b`, a newline as `\\n`), and with a
    backslash doubled where it would otherwise be read as one of those escapes."""
    return _SHOWN.sub(lambda match: "\\" + (_NAMED.get(match[0]) or f"x{ord(match[0]):02x}"), text)


def unprintable(text: str) -> str:
    """The text `printable` showed as `text`."""
    return _ESCAPED.sub(lambda match: _UNNAMED.get(match[1]) or chr(int(match[1][1:], 16)), text)
