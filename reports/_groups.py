"""Failing cases grouped by cause, so a run with thousands of failures reads as a few dozen findings.

A cause is a failing verdict and its reason class: the verdict's reason with what is particular to
one case left out (quoted tool names, request ids, JSON pointers, numbers). Within a cause, its
cases are grouped by mutation kind, injection point and delivery. The reason is the most stable
field a failure carries: it is the oracle's own words, and every report already shows it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from toolsurface.harness._reasons import CUT, clip
from toolsurface.harness._types import CaseRecord, VerdictKind

#: What a reason class leaves out, in order: quoted names first (they may hold digits or slashes),
#: then `lane:request` and bare request ids, JSON pointers, and what numbers remain.
_PARTICULAR = (
    (re.compile(r"'(?:[^'\\]|\\.)*'"), "'…'"),
    (re.compile(r"\b[\w.-]+:req_\w+"), "<request>"),
    (re.compile(r"\breq_\w+"), "<request>"),
    (re.compile(r"(?<![\w/])/[^\s;,]*"), "<path>"),
    (re.compile(r"\d+"), "N"),
)
#: The count that opens a list of several changes (`_reasons.changes_said`), numbers already `N`.
_COUNTED = re.compile(r"^(?:(?:, | and )?\w+ N [\w ]+?)+, e\.g\. ")
_VERDICT_ORDER = {kind: index for index, kind in enumerate(VerdictKind)}


def reason_class(reason: str) -> str:
    """`reason` with what is particular to one case left out, and its list of changes said by the
    kinds of change it names, each once: `removed 2 tools, e.g. removed 'a' (was at 2); removed 'b'
    (was at 3)` and `removed 'c' (was at 0)` are one class. At most `MAX_REASON` characters."""
    text = " ".join(reason.split())
    for pattern, placeholder in _PARTICULAR:
        text = pattern.sub(placeholder, text)
    head, colon, tail = text.rpartition(": ")
    if not colon:
        return clip(text)
    # A reason lists its changes last, `; `-separated: counted first (`moved N tools, e.g. `) when
    # there are several, and cut with `…` where the list or a change in it did not fit.
    tail = _COUNTED.sub("", tail)
    clauses = [clause for clause in dict.fromkeys(tail.split("; ")) if not clause.endswith(CUT)]
    return clip(f"{head}: {'; '.join(clauses) or CUT}")


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
        by_cause.setdefault((case.verdict.kind, reason_class(case.verdict.reason)), {}).setdefault(where, []).append(case)
    found = [Cause(verdict, reason, _groups(by_where)) for (verdict, reason), by_where in by_cause.items()]
    return tuple(sorted(found, key=lambda cause: (-cause.count, _VERDICT_ORDER[cause.verdict], cause.reason)))


def _groups(by_where: dict[tuple[str, str, str], list[CaseRecord]]) -> tuple[Group, ...]:
    groups = [Group(*where, tuple(sorted(members, key=_plan_order))) for where, members in by_where.items()]
    return tuple(sorted(groups, key=lambda group: (-group.count, group.kind, group.point, group.delivery)))


def _plan_order(case: CaseRecord) -> tuple[int, str]:
    # Ids break ties: records made by hand (tests) may share an index.
    return case.case.index, case.id
