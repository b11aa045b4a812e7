"""Verdict reasons sized for a person: one line of at most `MAX_REASON` characters.

A reason says what went wrong in words a reviewer reads at a glance; it is not the record of it.
A list of changes is said by its size and its first few (`changes_said`), a host's own message is
cut to fit (`clip`), and the whole of each lives in the case's evidence (`Evidence.diff`,
`Evidence.before`, `Evidence.aftermath`, `Evidence.stop`), which the HTML case view and
`toolsurface reproduce` show in full. A reason that lists 46 moved tools one by one runs to
thousands of characters on one terminal line and tells a reviewer less than "moved 46 tools".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from toolsurface.contract._diff import Change, Renamed, SummaryChange

#: The most characters a verdict's reason may have: about two thirds of a wide terminal line, so a
#: line's own prefix (a verdict, a count) still fits beside it.
MAX_REASON = 160
#: How many changes a reason names before it only counts them.
EXAMPLES = 3
#: Marks text cut short to fit.
CUT = "…"


def one_line(text: str) -> str:
    """`text` on one line: every run of whitespace, line breaks of any kind included, one space."""
    return " ".join(text.split())


def clip(text: str, width: int = MAX_REASON) -> str:
    """`text` on one line, cut to at most `width` characters with `…` where it was cut."""
    line = one_line(text)
    if len(line) <= width:
        return line
    return line[: max(width - 1, 0)].rstrip() + CUT if width > 0 else ""


def fits(reason: str) -> bool:
    """Whether `reason` is a reason the oracle may write: one line, at most `MAX_REASON` characters."""
    return len(reason) <= MAX_REASON and reason == one_line(reason)


#: A change a reason may list: of a surface, or of its capability summary. Each carries how it is counted.
Said = Change | SummaryChange


def changes_said(changes: Sequence[Said], width: int = MAX_REASON) -> str:
    """A list of changes in at most `width` characters: one change as itself; several counted by
    type, then the first few that fit: `moved 38 tools, e.g. moved 'a' from 3 to 0; moved 'b' …`."""
    if len(changes) == 1:
        return said_in(changes[0], width)
    if not changes:
        return ""
    return _examples(f"{tally(changes)}, e.g. ", changes, width)


def listed(items: Sequence[str], width: int = MAX_REASON) -> str:
    """Findings in at most `width` characters: the first few that fit, then how many there are in all."""
    if len(items) == 1:
        return clip(items[0], width)
    if not items:
        return ""
    return _examples("", items, width, total=True)


def tally(changes: Sequence[Said]) -> str:
    """How many changes of each kind, in the order each kind first comes: `moved 36 tools and swapped 1 pair`."""
    counts: dict[tuple[str, str, str], int] = {}
    for change in changes:
        counts[change.counted] = counts.get(change.counted, 0) + 1
    said = [f"{verb} {count} {one if count == 1 else many}" for (verb, one, many), count in counts.items()]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"


def said_in(change: Said | str, width: int) -> str:
    """One change in at most `width` characters: a change too long has its longest tool names cut,
    so what happened to the tool and where still shows (`removed 'research_library__sea…' (was at 40)`)."""
    line = one_line(str(change))
    # A rename's note (the new name is the old one cut short, or a comparison cannot tell them
    # apart) is kept: cutting both names for room would hide it.
    note = change.note if isinstance(change, Renamed) else ""
    while len(line) > width and not isinstance(change, str | SummaryChange):
        names = [f.name for f in dataclasses.fields(change) if f.name in _NAMES and _cuttable(getattr(change, f.name))]
        if not names:
            break
        widths = sorted((len(repr(getattr(change, name))), name) for name in names)
        (most, longest), next_most = widths[-1], widths[-2][0] if len(widths) > 1 else 0
        kept = getattr(change, longest).removesuffix(CUT)
        # A character may show as several (`\U000114da`): cut as many as the excess takes, at least
        # one, and no shorter than the next longest name, so two long names are cut alike.
        shown = max(len(repr(kept)) // len(kept), 1)
        cut = min(len(line) - width, max(most - next_most, 1)) // shown
        kept = kept[: max(len(kept) - max(cut, 1), 1)]
        change = dataclasses.replace(change, **{longest: kept + CUT})
        line = one_line(_rename_said(change, note) if isinstance(change, Renamed) else str(change))
    return clip(line, width)


def _rename_said(change: Renamed, note: str) -> str:
    """A rename with its names cut, and the note the uncut names gave (`(cut to 48 characters)`)."""
    return f"renamed {change.before!r} → {change.after!r} at {change.index}{note}"


def _cuttable(value: object) -> bool:
    """A name that shows as more than `_SHORTEST` characters and can lose one more."""
    return isinstance(value, str) and len(repr(value)) > _SHORTEST and len(value.removesuffix(CUT)) > 1


#: The fields of a change that hold a tool's name, and how short a cut name may show.
_NAMES = frozenset({"name", "first", "second", "before", "after"})
_SHORTEST = 12


def _examples(head: str, items: Sequence[Said | str], width: int, total: bool = False) -> str:
    """`head`, then as many of the first `EXAMPLES` items as fit whole, `; `-separated; the first is
    cut to fit when even it does not. A list said in part ends `; …` (with how many in all, when
    `total`: nothing before says it)."""

    def rest(shown: int) -> str:
        return "" if shown == len(items) else (f"; … ({len(items)} in all)" if total else f"; {CUT}")

    shown: list[str] = []
    for item in items[:EXAMPLES]:
        line = one_line(str(item))
        if len(f"{head}{'; '.join([*shown, line])}{rest(len(shown) + 1)}") > width:
            break
        shown.append(line)
    if not shown:
        shown = [said_in(items[0], max(width - len(head) - len(rest(1)), 1))]
    return clip(f"{head}{'; '.join(shown)}{rest(len(shown))}", width)
