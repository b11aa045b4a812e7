"""A structural diff of two tool surfaces that names each difference the way a reviewer would.

Tools are matched by name (the k-th tool of a name with the k-th of the same name, so duplicate
names are matched too). A removed and an added tool whose description and schema are identical
are one rename, not a delete plus an add. Two tools that took each other's places are one swap,
named by both; of the rest, tools that kept their name but left the longest run of unchanged
relative order are reported as moved.
"""

from __future__ import annotations

import bisect
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._canonical import Snapshot, canonical_json
from ._lossy import Lossy, blind_said

#: What stands for a place one side of a schema does not have.
ABSENT: Any = object()

#: How a change is counted in a list of several: its verb, and what one and several of it are
#: (`moved 3 tools`). Each change carries its own, so a count never reads a change's words back.
Counted = tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class Added:
    name: str
    index: int

    def __str__(self) -> str:
        return f"added {self.name!r} at {self.index}"

    @property
    def counted(self) -> Counted:
        return ("added", "tool", "tools")


@dataclass(frozen=True, slots=True)
class Removed:
    name: str
    index: int

    def __str__(self) -> str:
        return f"removed {self.name!r} (was at {self.index})"

    @property
    def counted(self) -> Counted:
        return ("removed", "tool", "tools")


@dataclass(frozen=True, slots=True)
class Renamed:
    before: str
    after: str
    index: int

    def __str__(self) -> str:
        return f"renamed {self.before!r} → {self.after!r} at {self.index}{self.note}"

    @property
    def note(self) -> str:
        """What the names alone may not show: the new one is the old cut short, or the lossy
        comparison that cannot tell them apart."""
        return self.cut or blind_said(self.before, self.after)

    @property
    def cut(self) -> str:
        """` (cut to N characters)` when the new name is the old one cut short, as a length limit cuts."""
        return f" (cut to {len(self.after)} characters)" if _shortened(self.before, self.after) else ""

    @property
    def counted(self) -> Counted:
        # A name cut short by a length limit is told apart from any other rename.
        return ("cut", "name", "names") if self.cut else ("renamed", "tool", "tools")


@dataclass(frozen=True, slots=True)
class Moved:
    name: str
    before: int
    after: int

    def __str__(self) -> str:
        return f"moved {self.name!r} from {self.before} to {self.after}"

    @property
    def counted(self) -> Counted:
        return ("moved", "tool", "tools")


@dataclass(frozen=True, slots=True)
class Swapped:
    """`first` and `second` took each other's places: `first` was at `before`, `second` at `after`."""

    first: str
    second: str
    before: int
    after: int

    def __str__(self) -> str:
        return f"swapped {self.first!r} and {self.second!r} (positions {self.before} and {self.after})"

    @property
    def counted(self) -> Counted:
        return ("swapped", "pair", "pairs")


@dataclass(frozen=True, slots=True)
class DescriptionChanged:
    name: str
    #: (before, after) lengths when the new description is the old one cut short, as a length limit cuts.
    cut: tuple[int, int] | None = dataclasses.field(default=None, compare=False)
    #: The two descriptions, to say which lossy comparison cannot see the change (if any).
    texts: tuple[str, str] = dataclasses.field(default=("", ""), compare=False, repr=False)

    def __str__(self) -> str:
        if self.cut is not None:
            return f"description of {self.name!r} cut from {self.cut[0]} to {self.cut[1]} characters"
        return f"description of {self.name!r} changed{blind_said(*self.texts)}"

    @property
    def counted(self) -> Counted:
        return ("changed" if self.cut is None else "cut", "description", "descriptions")


@dataclass(frozen=True, slots=True)
class SchemaChanged:
    name: str
    #: JSON Pointer into the input schema of the first place that differs on this path.
    pointer: str
    #: The two values at `pointer` (`ABSENT` where one schema has none), to say them where they are
    #: short, and which lossy comparison cannot see the change.
    values: tuple[Any, Any] = dataclasses.field(default=(ABSENT, ABSENT), compare=False, repr=False)

    def __str__(self) -> str:
        return f"schema of {self.name!r} changed at {self.pointer or '/'}{_values_said(*self.values)}"

    @property
    def counted(self) -> Counted:
        return ("changed", "schema place", "schema places")


@dataclass(frozen=True, slots=True)
class WireChanged:
    name: str
    #: The wire field (`strict`, `title`, `annotations`, `output_schema`) that differs.
    field: str
    #: JSON Pointer into an object-valued field of the first place that differs ("" for the whole field).
    pointer: str = ""
    #: The two values there (`ABSENT` where one tool has none), as `SchemaChanged.values`.
    values: tuple[Any, Any] = dataclasses.field(default=(ABSENT, ABSENT), compare=False, repr=False)

    def __str__(self) -> str:
        where = f" at {self.pointer}" if self.pointer else ""
        return f"{self.field} of {self.name!r} changed{where}{_values_said(*self.values)}"

    @property
    def counted(self) -> Counted:
        return ("changed", f"{self.field} field", f"{self.field} fields")


Change = Added | Removed | Renamed | Moved | Swapped | DescriptionChanged | SchemaChanged | WireChanged

#: Past this many differing places in one schema, the rest are summarised by the first ones.
_MAX_POINTERS = 8


def diff_snapshots(expected: Snapshot, actual: Snapshot) -> tuple[Change, ...]:
    if expected == actual:
        return ()
    return diff(expected.entries(), actual.entries())


def diff(before: Sequence[Sequence[Any]], after: Sequence[Sequence[Any]]) -> tuple[Change, ...]:
    """Every difference from `before` to `after`; each is `[name, description, input_schema]`,
    with the tool's wire fields as a fourth element when it has any."""
    old = _keyed(before)
    new = _keyed(after)
    pairs = [(old[key], new[key]) for key in old if key in new]
    removed = [old[key] for key in old if key not in new]
    added = [new[key] for key in new if key not in old]
    renames: list[tuple[int, int]] = []
    for i in list(removed):
        content = _content(before[i])
        match = next((j for j in added if _content(after[j]) == content), None)
        if match is not None:
            removed.remove(i)
            added.remove(match)
            renames.append((i, match))
    changes: list[Change] = [Removed(before[i][0], i) for i in removed]
    changes += [Added(after[j][0], j) for j in added]
    changes += [Renamed(before[i][0], after[j][0], j) for i, j in renames]
    changes += _moves(sorted(pairs + renames, key=lambda pair: pair[1]), after)
    for i, j in sorted(pairs, key=lambda pair: pair[1]):
        name = after[j][0]
        if before[i][1] != after[j][1]:
            cut = (len(before[i][1]), len(after[j][1])) if _shortened(before[i][1], after[j][1]) else None
            changes.append(DescriptionChanged(name, cut, (before[i][1], after[j][1])))
        for pointer in _pointers(before[i][2], after[j][2], "", limit=_MAX_POINTERS):
            values = (_at(before[i][2], pointer), _at(after[j][2], pointer))
            changes.append(SchemaChanged(name, pointer, values))
        changes += _wire_changes(name, _wire(before[i]), _wire(after[j]))
    return tuple(changes)


def _wire(entry: Sequence[Any]) -> dict[str, Any]:
    return entry[3] if len(entry) > 3 else {}


def _wire_changes(name: str, before: dict[str, Any], after: dict[str, Any]) -> list[Change]:
    """How a tool's wire fields differ: each field once, or per place inside an object-valued one."""
    changes: list[Change] = []
    for field in sorted(before.keys() | after.keys()):
        old, new = before.get(field), after.get(field)
        if isinstance(old, dict) and isinstance(new, dict):
            changes += [
                WireChanged(name, field, pointer, (_at(old, pointer), _at(new, pointer)))
                for pointer in _pointers(old, new, "", limit=_MAX_POINTERS)
            ]
        elif field not in before or field not in after or canonical_json(old) != canonical_json(new):
            changes.append(WireChanged(name, field, "", (before.get(field, ABSENT), after.get(field, ABSENT))))
    return changes


def _shortened(before: str, after: str) -> bool:
    """Whether `after` is `before` cut short, an ellipsis perhaps marking the cut."""
    kept = after.removesuffix("…").removesuffix("...")
    return len(after) < len(before) and before.startswith(kept) and bool(kept)


def _keyed(entries: Sequence[Sequence[Any]]) -> dict[tuple[str, int], int]:
    """(name, occurrence) → index, so a duplicate name matches the same occurrence on the other side."""
    seen: dict[str, int] = {}
    keyed = {}
    for index, entry in enumerate(entries):
        occurrence = seen.get(entry[0], 0)
        seen[entry[0]] = occurrence + 1
        keyed[(entry[0], occurrence)] = index
    return keyed


def _content(entry: Sequence[Any]) -> bytes:
    return canonical_json([entry[1], entry[2], _wire(entry)])


def _moves(pairs: list[tuple[int, int]], after: Sequence[Sequence[Any]]) -> list[Change]:
    """Pairs of tools that exchanged places are swaps; of the rest, tools outside the longest
    increasing run of old positions, in new order, have moved.

    Swaps go first: left to the run, a swap of two tools with others between them would be
    explained by moving a tool that kept its place.
    """
    now = dict(pairs)
    swaps = [(i, j) for i, j in pairs if i < j and now.get(j) == i]
    swapped = {index for pair in swaps for index in pair}
    rest = [(i, j) for i, j in pairs if i not in swapped]
    # A tool that kept its index is never reported as moved: the run is taken from the tools whose
    # order against every such tool is unchanged (with which all of those are in order, so it keeps them all).
    fixed = sorted(i for i, j in rest if i == j)
    kept = _longest_increasing([i for i, j in rest if bisect.bisect(fixed, i) == bisect.bisect(fixed, j)])
    changes: list[Change] = [Swapped(after[j][0], after[i][0], i, j) for i, j in sorted(swaps)]
    return changes + [Moved(after[j][0], i, j) for i, j in rest if i not in kept]


def _longest_increasing(values: list[int]) -> set[int]:
    tails: list[int] = []  # index into values of the smallest tail of each run length
    parent = [-1] * len(values)
    for position, value in enumerate(values):
        length = bisect.bisect_left([values[t] for t in tails], value)
        parent[position] = tails[length - 1] if length else -1
        if length == len(tails):
            tails.append(position)
        else:
            tails[length] = position
    kept: set[int] = set()
    position = tails[-1] if tails else -1
    while position >= 0:
        kept.add(values[position])
        position = parent[position]
    return kept


def _pointers(a: Any, b: Any, here: str, limit: int) -> Iterator[str]:
    """JSON Pointers of the places where two JSON values differ (object key order ignored)."""
    # `==` is C-fast and almost always decides; only equal-looking values (true vs 1) need bytes.
    if a == b and canonical_json(a) == canonical_json(b):
        return
    if isinstance(a, dict) and isinstance(b, dict):
        found = 0
        for key in sorted(a.keys() | b.keys()):
            where = f"{here}/{_escape(key)}"
            if key not in a or key not in b:
                found += 1
                yield where
            else:
                for pointer in _pointers(a[key], b[key], where, limit - found):
                    found += 1
                    yield pointer
            if found >= limit:
                return
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        found = 0
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            for pointer in _pointers(x, y, f"{here}/{index}", limit - found):
                found += 1
                yield pointer
            if found >= limit:
                return
    else:
        yield here


#: Values longer than this (as JSON) are not repeated in a reason.
_SHORT = 40


def _values_said(old: Any, new: Any) -> str:
    """` (old → new: invisible to …)` for a place two schemas hold differently; the values only
    where they are short, the comparison only where one cannot see the difference."""
    if old is ABSENT or new is ABSENT:
        if old is new:
            return ""
        value = new if old is ABSENT else old
        said = "added" if old is ABSENT else "removed"
        if not value:
            return f" ({said}: {canonical_json(value).decode()}: {Lossy.FALSY.defeats})"
        return f" ({said})"
    shown = [canonical_json(value).decode() for value in (old, new)]
    values = f"{shown[0]} → {shown[1]}" if max(map(len, shown)) <= _SHORT else ""
    blind = blind_said(old, new)[2:-1]
    return f" ({values}{': ' if values and blind else ''}{blind})" if values or blind else ""


def _at(document: Any, pointer: str) -> Any:
    node = document
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return ABSENT
    return node


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True, slots=True)
class SummaryLine:
    """A line the request's capability summary claims that the contract does not state, or the reverse."""

    line: str
    #: True: the summary claims it; False: the summary no longer states it.
    claimed: bool

    def __str__(self) -> str:
        return f"summary claims {self.line!r}" if self.claimed else f"summary no longer states {self.line!r}"

    @property
    def counted(self) -> Counted:
        return ("claimed" if self.claimed else "dropped", "summary line", "summary lines")


@dataclass(frozen=True, slots=True)
class SummaryWhole:
    """The capability summary differs as a whole: missing, where none is stated, or its lines reordered."""

    said: str

    def __str__(self) -> str:
        return self.said

    @property
    def counted(self) -> Counted:
        return ("changed", "capability summary", "capability summaries")


SummaryChange = SummaryLine | SummaryWhole


def summary_changes(expected: str | None, actual: str | None) -> tuple[SummaryChange, ...]:
    """How an entry request's capability summary differs from the contract's, line by line."""
    if expected == actual:
        return ()
    if actual is None:
        return (SummaryWhole("capability summary missing"),)
    if expected is None:
        return (SummaryWhole("a capability summary where the contract states none"),)
    stated, said = expected.split("\n"), actual.split("\n")
    changes = [SummaryLine(line, claimed=True) for line in said if line not in stated]
    changes += [SummaryLine(line, claimed=False) for line in stated if line not in said]
    return tuple(changes) or (SummaryWhole("capability summary lines reordered"),)


def diff_summaries(expected: str | None, actual: str | None) -> tuple[str, ...]:
    """`summary_changes` in words."""
    return tuple(map(str, summary_changes(expected, actual)))
