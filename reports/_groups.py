"""Failing cases grouped by cause, so a run with thousands of failures reads as a few dozen findings.

A cause is a failing verdict and its reason class: the verdict's reason with what is particular to
one case left out (quoted tool names, request ids, JSON pointers, numbers), and a list of changes
said by the kinds of change in it. Within a cause, its
cases are grouped by mutation kind, injection point and delivery. The reason is the most stable
field a failure carries: it is the oracle's own words, and every report already shows it.

This is the one module that reads a reason's words, and only to name a cause for a person: what a
verdict is and why (its kind and its `code`) is never taken from them. A list of changes is read
back by the words `_diff` gives each kind of change (`_KINDS`; tests/reports/test_groups.py holds
them to each change's own `counted`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolsurface.harness._reasons import CUT, clip
from toolsurface.harness._types import CaseRecord, VerdictKind

#: How each kind of change is counted, read back from how `_diff` words it (its names and numbers
#: left out): the verb, and what one and several of it are, as each change's `counted` says. First
#: match wins; a cut is told apart from any other change.
_KINDS: tuple[tuple[re.Pattern[str], tuple[str, str, str]], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"^added ", ("added", "tool", "tools")),
        (r"^removed ", ("removed", "tool", "tools")),
        (r"^renamed .* \(cut to \S+ characters\)$", ("cut", "name", "names")),
        (r"^renamed ", ("renamed", "tool", "tools")),
        (r"^moved ", ("moved", "tool", "tools")),
        (r"^swapped ", ("swapped", "pair", "pairs")),
        (r"^description of .* cut from \S+ to \S+ characters$", ("cut", "description", "descriptions")),
        (r"^description of ", ("changed", "description", "descriptions")),
        (r"^schema of ", ("changed", "schema place", "schema places")),
        (r"^summary claims ", ("claimed", "summary line", "summary lines")),
        (r"^summary no longer states ", ("dropped", "summary line", "summary lines")),
        (r"^(a )?capability summary", ("changed", "capability summary", "capability summaries")),
        (r"^(\w+) of .* changed", ("changed", r"\1 field", r"\1 fields")),  # a wire field: `strict of 'x' changed`
    )
)


def kind_of(change: str) -> tuple[str, str, str] | None:
    """How a change, as `_diff` words it, is counted: `("moved", "tool", "tools")`; None: not a change."""
    for pattern, (verb, one, many) in _KINDS:
        if (match := pattern.match(change)) is not None:
            return verb, match.expand(one), match.expand(many)
    return None


#: What a reason class leaves out, in order: quoted names first (they may hold digits or slashes),
#: a quote cut short to fit before them, then `lane:request` and bare request ids, JSON pointers,
#: and what numbers remain.
_PARTICULAR = (
    # A quote cut short where a reason was cut to fit (`summary claims '- client portfolio: ho…`).
    (re.compile(r"'[^']*…(?=; |$)"), "'…"),
    (re.compile(r"'(?:[^'\\]|\\.)*'"), "'…'"),
    (re.compile(r"\b[\w.-]+:req_\w+"), "<request>"),
    (re.compile(r"\breq_\w+"), "<request>"),
    (re.compile(r"(?<![\w/])/[^\s;,]*"), "<path>"),
    (re.compile(r"\d+"), "N"),
)
#: A list of several changes as `_reasons.changes_said` counts it, numbers already `N`:
#: `removed N tools and moved N tools, e.g. …`; each count is a verb, `N` and what it counts.
_TALLY = re.compile(r"^(?P<counts>.+?), e\.g\. ")
_COUNT = re.compile(r"^(\w+) N (.+)$")
_VERDICT_ORDER = {kind: index for index, kind in enumerate(VerdictKind)}


def reason_class(reason: str) -> str:
    """`reason` with what is particular to one case left out, and a list of changes said by the
    kinds of change in it, whichever of them the reason had room to name: `removed 2 tools and
    added 1 tool, e.g. removed 'a' (was at 2); …` and `removed 'c' (was at 0); added 'd' at 1` are
    one class, `… removed N tools and added N tools`. At most `MAX_REASON` characters."""
    text = " ".join(reason.split())
    for pattern, placeholder in _PARTICULAR:
        text = pattern.sub(placeholder, text)
    head, colon, tail = text.rpartition(": ")
    if not colon:
        return clip(text)
    if (kinds := _kinds(tail)) is not None:
        return clip(f"{head}: {kinds}")
    # Any other list (`refused, but …; …`) keeps each finding it names once, not the one cut short
    # nor the count of those it left out.
    clauses = [
        clause for clause in dict.fromkeys(tail.split("; ")) if not clause.endswith(CUT) and not clause.startswith(CUT)
    ]
    return clip(f"{head}: {'; '.join(clauses) or CUT}")


def _kinds(changes: str) -> str | None:
    """The kinds of change in a list of changes, as its count names them (`moved N tools and
    changed N descriptions`), or as a count would name its changes when it lists them one by one;
    None when `changes` is not a list of changes."""
    if (tally := _TALLY.match(changes)) is not None:
        counts = [_COUNT.match(count) for count in re.split(r", | and ", tally["counts"])]
        # `removed N tool` where there was one: read back, a kind is named by its plural.
        said = [f"{match[1]} N {_plural(match[2])}" for match in counts if match]
        return _joined(said) if all(counts) and said else None
    # A change cut too short to tell (`ad…`), or the `…` that ends a list said in part, is not one to class by.
    kinds = [
        kind for clause in changes.split("; ") if (kind := kind_of(clause)) is not None or not clause.endswith(CUT)
    ]
    named = [f"{kind[0]} N {kind[2]}" for kind in kinds if kind is not None]
    return _joined(list(dict.fromkeys(named))) if named and len(named) == len(kinds) else None


def _plural(counted: str) -> str:
    if counted.endswith("summary"):
        return counted.removesuffix("summary") + "summaries"
    return counted if counted.endswith("s") else f"{counted}s"


def _joined(kinds: list[str]) -> str:
    return kinds[0] if len(kinds) == 1 else f"{', '.join(kinds[:-1])} and {kinds[-1]}"


@dataclass(frozen=True, slots=True)
class Group:
    """The failing cases of one cause at one mutation kind, injection point and delivery."""

    kind: str
    point: str
    delivery: str
    #: In plan order: the first is the group's representative.
    members: tuple[CaseRecord, ...]

    @property
    def count(self) -> int:
        return len(self.members)

    @property
    def representative(self) -> CaseRecord:
        return self.members[0]

    @property
    def where(self) -> str:
        """`kind · point · delivery`, as every report names a group."""
        return f"{self.kind} · {self.point} · {self.delivery}"


@dataclass(frozen=True, slots=True)
class Cause:
    """The failing cases with one verdict and one reason class, grouped by kind, point and delivery."""

    verdict: VerdictKind
    reason: str
    #: Largest first, ties by kind, point and delivery.
    groups: tuple[Group, ...]

    @property
    def count(self) -> int:
        return sum(group.count for group in self.groups)

    @property
    def representative(self) -> CaseRecord:
        """The representative of the cause's largest group."""
        return self.groups[0].representative

    @property
    def members(self) -> tuple[CaseRecord, ...]:
        """Every case of the cause, in plan order."""
        return tuple(sorted((case for group in self.groups for case in group.members), key=_plan_order))


def causes(failing: Iterable[CaseRecord]) -> tuple[Cause, ...]:
    """`failing` grouped by cause, largest cause first, ties by verdict and reason class; the same
    whatever order the cases come in."""
    by_cause: dict[tuple[VerdictKind, str], dict[tuple[str, str, str], list[CaseRecord]]] = {}
    for case in failing:
        mutation = case.case.mutation
        where = (str(mutation.kind), case.case.point, mutation.delivery)
        by_cause.setdefault((case.verdict.kind, reason_class(case.verdict.reason)), {}).setdefault(where, []).append(
            case
        )
    found = [Cause(verdict, reason, _groups(by_where)) for (verdict, reason), by_where in by_cause.items()]
    return tuple(sorted(found, key=lambda cause: (-cause.count, _VERDICT_ORDER[cause.verdict], cause.reason)))


def _groups(by_where: dict[tuple[str, str, str], list[CaseRecord]]) -> tuple[Group, ...]:
    groups = [Group(*where, tuple(sorted(members, key=_plan_order))) for where, members in by_where.items()]
    return tuple(sorted(groups, key=lambda group: (-group.count, group.kind, group.point, group.delivery)))


def _plan_order(case: CaseRecord) -> tuple[int, str]:
    # Ids break ties: records made by hand (tests) may share an index.
    return case.case.index, case.id
