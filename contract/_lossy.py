"""The lossy comparisons a host may make of text the contract compares, and which of them cannot
tell two values apart.

The contract compares every string it holds — a tool's name and description, every string inside
an input schema, an entry request's capability summary, each identity field of an owner fact —
byte for byte. A host that compares some of them after folding case, normalising Unicode,
trimming whitespace, or by prefix, suffix or last path segment, is blind to a change of the kind
that comparison erases. `blind_to` names those comparisons for a pair of values, so a difference
the host let through says what its comparison could not see; the mutators make, for each
comparison, a change it cannot see.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from ._canonical import canonical_json

#: Where identifiers split into path segments: `mcp__server__tool`, `scope:research/etf`, `a.b`.
_SEGMENTS = re.compile(r"__|/|:|\.")


class Lossy(enum.StrEnum):
    """A comparison that takes some different values for the same."""

    CASEFOLD = "casefold"
    NFKC = "nfkc"
    STRIP = "strip"
    COLLAPSE = "collapse"
    ZERO_WIDTH = "zero_width"
    PREFIX = "prefix"
    SUFFIX = "suffix"
    LAST_SEGMENT = "last_segment"
    HEAD = "head"
    LOOSE_EQUALITY = "loose_equality"
    #: A false or empty value and none at all: `strict: false` against no `strict`.
    FALSY = "falsy"

    @property
    def defeats(self) -> str:
        """How a difference this comparison cannot see is named in a reason."""
        return _DEFEATS[self]

    def same(self, before: Any, after: Any) -> bool:
        """Whether this comparison takes `after` for `before`."""
        if self is Lossy.LOOSE_EQUALITY:
            # Python's `==`: 1, 1.0 and True are one value to it, and so are containers of them.
            return bool(before == after)
        if self is Lossy.FALSY:
            # `if tool.get("strict"):`: a value that tests false reads as one that is not there.
            return not before and not after
        if not (isinstance(before, str) and isinstance(after, str)):
            return False
        return _SAME[self](before, after)


def _last_segment(text: str) -> str | None:
    """The last path segment of an identifier; None for prose, or text of one segment."""
    if any(char.isspace() for char in text):
        return None
    parts = _SEGMENTS.split(text)
    return parts[-1] if len(parts) > 1 and parts[-1] else None


_SAME: dict[Lossy, Callable[[str, str], bool]] = {
    Lossy.CASEFOLD: lambda a, b: a.casefold() == b.casefold(),
    Lossy.NFKC: lambda a, b: unicodedata.normalize("NFKC", a) == unicodedata.normalize("NFKC", b),
    Lossy.STRIP: lambda a, b: a.strip() == b.strip(),
    Lossy.COLLAPSE: lambda a, b: a.split() == b.split(),
    Lossy.ZERO_WIDTH: lambda a, b: _visible(a) == _visible(b),
    Lossy.PREFIX: lambda a, b: bool(a and b) and (a.startswith(b) or b.startswith(a)),
    Lossy.SUFFIX: lambda a, b: bool(a and b) and (a.endswith(b) or b.endswith(a)),
    Lossy.LAST_SEGMENT: lambda a, b: _last_segment(a) is not None and _last_segment(a) == _last_segment(b),
    Lossy.HEAD: lambda a, b: len(a) == len(b) > 1 and a[:-1] == b[:-1],
}

_DEFEATS = {
    Lossy.CASEFOLD: "invisible to casefold",
    Lossy.NFKC: "invisible to NFKC",
    Lossy.STRIP: "invisible to strip()",
    Lossy.COLLAPSE: "invisible to split()",
    Lossy.ZERO_WIDTH: "invisible without zero-width characters",
    Lossy.PREFIX: "invisible to a prefix match",
    Lossy.SUFFIX: "invisible to a suffix match",
    Lossy.LAST_SEGMENT: "invisible to a last-segment match",
    Lossy.HEAD: "invisible to a length or head match",
    Lossy.LOOSE_EQUALITY: "invisible to ==",
    Lossy.FALSY: "invisible where false or empty counts as absent",
}


def _visible(text: str) -> str:
    """`text` less its format characters (zero-width spaces and joiners, the byte-order mark…)."""
    return "".join(char for char in text if unicodedata.category(char) != "Cf")


def blind_to(before: Any, after: Any) -> tuple[Lossy, ...]:
    """The comparisons that take `after` for `before` when the two differ, in `Lossy` order."""
    if canonical_json(before) == canonical_json(after):
        return ()
    return tuple(lossy for lossy in Lossy if lossy.same(before, after))


def blind_said(before: Any, after: Any) -> str:
    """` (invisible to casefold)`: the first comparison blind to the difference, or ""."""
    found = blind_to(before, after)
    return f" ({found[0].defeats})" if found else ""
