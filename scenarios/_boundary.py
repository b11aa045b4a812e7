"""Where a mutation can land: the boundary after a stage, before one model call of the request.

An injection point once travelled as a `Point`, a plain str, a `(call, point)` tuple and a
`"point@call"` string, joined by hand wherever two met. `Boundary` is the one value; the label
(`hook`, `post_seal@2`) is only how case ids, results.json and the command line spell it, and
only this module reads or writes that spelling.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any


class Point(enum.StrEnum):
    """An injection point: the boundary after a stage, where a mutation can be applied."""

    POST_RECOVERY = "post_recovery"
    HOOK = "hook"
    POST_REVALIDATION = "post_revalidation"
    CONTEXT_FIT = "context_fit"
    EVIDENCE = "evidence"
    PUBLICATION = "publication"
    ASYNC_PREP = "async_prep"
    POST_SEAL = "post_seal"


#: Every injection point a pipeline can expose, in pipeline order.
POINTS: tuple[Point, ...] = tuple(Point)

#: What a boundary name of a host's own may hold: no `/` (case ids are split on it), no `@` (it
#: names a later model call), no glob characters (`--select` matches ids with them), no
#: whitespace or control characters (ids are one word on one line).
OWN_POINT_PATTERN = r"^[^/@*?\[\]\s\u0000-\u001f\u007f-\u009f]{1,64}$"
#: What separates a boundary's point from its model call in a label: `post_seal@2`.
_CALL_MARK = "@"
_OWN_POINT = re.compile(OWN_POINT_PATTERN)
#: A later model call's number: ASCII digits, no leading zero, few enough for a 64-bit integer.
_LABEL = re.compile(r"(?P<point>[^@]+)(?:@(?P<call>[1-9][0-9]{0,18}))?")
#: Each recorded point's place in the pipeline: boundaries sort by it, as the plan offers them.
_RANK = {point.value: rank for rank, point in enumerate(POINTS)}


@dataclass(frozen=True, slots=True)
class Boundary:
    """The boundary at `point` before the request's `call`-th model call."""

    #: A recorded stage's `Point` (kept as its value), or the name of a boundary of the host's own.
    point: str
    #: The model call the boundary comes before: 1 for the first.
    call: int = 1

    def __post_init__(self) -> None:
        # A Point member is kept as its plain value, so equal boundaries hash, print and pickle alike.
        object.__setattr__(self, "point", str(self.point))
        if isinstance(self.call, bool) or not isinstance(self.call, int) or not 1 <= self.call < 2**63:
            raise ValueError(f"a boundary's call must be an integer ≥ 1 and < 2**63, not {self.call!r}")
        if self.point not in _RANK and not _OWN_POINT.match(self.point):
            raise ValueError(
                f"{self.point!r} is not an injection point: expected one of {', '.join(POINTS)}, or a name of the "
                "host's own of 1 to 64 characters with no '/', '@', '*', '?', '[', ']', whitespace or "
                "control characters"
            )

    @classmethod
    def parse(cls, label: str) -> Boundary:
        """The boundary a label names (`hook`, `post_seal@2`); a `ValueError` of one line saying what was expected."""
        found = _LABEL.fullmatch(label) if isinstance(label, str) else None
        if found is None:
            raise ValueError(
                f"{label!r} is not a boundary: expected an injection point, or point@N for the N-th model call (N ≥ 2)"
            )
        call = int(found["call"] or 1)
        if found["call"] == "1":
            raise ValueError(f"{label!r} is not a boundary: the first model call's is named without '@1'")
        return cls(found["point"], call)

    @classmethod
    def of(cls, offered: Boundary | tuple[int, str]) -> Boundary:
        """A boundary a target declares (`Target.checkpoints`): a `Boundary`, or a `(call, point)` pair."""
        if isinstance(offered, Boundary):
            return offered
        call, point = offered
        return cls(point, call)

    def __str__(self) -> str:
        return self.point if self.call == 1 else f"{self.point}{_CALL_MARK}{self.call}"

    @property
    def recorded(self) -> Point | None:
        """The recorded stage's point this is, or None for a boundary of the host's own."""
        return Point(self.point) if self.point in _RANK else None

    @property
    def is_recorded(self) -> bool:
        return self.point in _RANK

    def at_call(self, call: int) -> Boundary:
        """The same point before another model call."""
        return Boundary(self.point, call)

    def _key(self) -> tuple[int, int, int, str]:
        # By model call, then the recorded points in pipeline order, then the host's own by name:
        # the order the plan offers a recorded pipeline's boundaries in.
        rank = _RANK.get(self.point)
        return (self.call, 0, rank, "") if rank is not None else (self.call, 1, 0, self.point)

    def __lt__(self, other: Any) -> bool:
        return self._key() < other._key() if isinstance(other, Boundary) else NotImplemented

    def __le__(self, other: Any) -> bool:
        return self._key() <= other._key() if isinstance(other, Boundary) else NotImplemented

    def __gt__(self, other: Any) -> bool:
        return self._key() > other._key() if isinstance(other, Boundary) else NotImplemented

    def __ge__(self, other: Any) -> bool:
        return self._key() >= other._key() if isinstance(other, Boundary) else NotImplemented
