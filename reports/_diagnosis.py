"""The likely flaws of a failing run: which reference defects its failing cases fail like.

Each reference defect is the guarded design with one flaw, and its kill signature says where and
how it fails (`harness/_kill_signatures.py`). A run's failing cases are matched against them by
greedy cover: the defect whose signatures hold the most still-unexplained failing cases explains
them, then the next, while one explains any. A defect only counts while it is consistent with the
run: of its signatures at boundaries the run holds (a `--select` or `--shard` run holds fewer), at
least `MIN_SHOWN` must be at boundaries where the run fails too, or the run passes where that flaw
would fail and its flaw is another. Defects that explain exactly the same cases are named together:
the cases cannot tell them apart. Cases no defect explains keep their causes by reason (`_groups`).

"Fails like" is a likeness, not a proof: it says a host fails where and how a known flaw fails,
and so where to look first. Pure functions over case records: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from toolsurface.harness._kill_signatures import (
    WHERE,
    KillSignature,
    KillSignatures,
    Signature,
    signature_of,
)
from toolsurface.harness._types import CaseRecord

from ._groups import Cause, causes

#: Of a defect's signatures at boundaries the run holds, the share that must be where the run fails
#: for the defect to explain any case: below it, the run passes too much of where the flaw would fail.
MIN_SHOWN = 0.5


@dataclass(frozen=True, slots=True)
class Likeness:
    """A reference defect the run fails like, and the failing cases it explains."""

    defect: str
    #: The defect's flaw, in a few words.
    flaw: str
    #: In plan order: the first is the example every report shows.
    cases: tuple[CaseRecord, ...]
    #: Of the defect's signatures at boundaries the run holds, the share at boundaries where the run fails.
    shown: float
    #: Other defects that explain exactly these cases as well: the cases cannot tell them apart.
    alike: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        return len(self.cases)

    @property
    def representative(self) -> CaseRecord:
        return self.cases[0]


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """A run's likely flaws, most cases first, and what none of them explains."""

    likely: tuple[Likeness, ...]
    #: The failing cases no defect explains, in plan order.
    unexplained: tuple[CaseRecord, ...]

    @property
    def unexplained_causes(self) -> tuple[Cause, ...]:
        """The unexplained cases grouped by cause, as the cause list groups every failing case."""
        return causes(self.unexplained)


def diagnose(failing: Iterable[CaseRecord], wheres: Collection[Signature], known: KillSignatures) -> Diagnosis:
    """Which of `known`'s defects `failing` fails like. `wheres` are the boundaries of every case of
    the run, passing ones included (`where_of`): what the run could have shown failing."""
    by_signature: dict[Signature, list[CaseRecord]] = {}
    for case in sorted(failing, key=_plan_order):
        by_signature.setdefault(signature_of(case), []).append(case)
    candidates = [
        (defect, shown)
        for defect in known.defects
        if (shown := _shown(defect, by_signature.keys(), wheres)) >= MIN_SHOWN
    ]
    likely: list[Likeness] = []
    while candidates:
        # Most cases explained first; then the more consistent; then by name, so ties are stable.
        defect, shown = min(candidates, key=lambda pick: (-_covered(pick[0], by_signature), -pick[1], pick[0].defect))
        explains = _explains(defect, by_signature)
        if not explains:
            break
        alike = [
            pick
            for pick in candidates
            if pick[0] is not defect and pick[1] == shown and _explains(pick[0], by_signature) == explains
        ]
        explained = [case for signature in sorted(explains) for case in by_signature.pop(signature)]
        likely.append(
            Likeness(
                defect.defect,
                defect.flaw,
                tuple(sorted(explained, key=_plan_order)),
                shown,
                tuple(d.defect for d, _ in alike),
            )
        )
        candidates = [pick for pick in candidates if pick[0] is not defect and pick not in alike]
    rest = sorted((case for cases in by_signature.values() for case in cases), key=_plan_order)
    return Diagnosis(tuple(likely), tuple(rest))


def _shown(defect: KillSignature, failing: Collection[Signature], wheres: Collection[Signature]) -> float:
    """Of `defect`'s signatures at boundaries in `wheres`, the share at a boundary where the run
    fails at all (0 with none): one where every case passed is a place the flaw would have shown."""
    failing_at = {signature[:WHERE] for signature in failing}
    present = [signature[:WHERE] for signature in defect.signatures if signature[:WHERE] in wheres]
    return sum(where in failing_at for where in present) / len(present) if present else 0.0


def _covered(defect: KillSignature, left: dict[Signature, list[CaseRecord]]) -> int:
    return sum(len(left.get(signature, ())) for signature in defect.signatures)


def _explains(defect: KillSignature, left: dict[Signature, list[CaseRecord]]) -> frozenset[Signature]:
    """The still-unexplained signatures of the run that `defect` fails with."""
    return frozenset(signature for signature in defect.signatures if signature in left)


def _plan_order(case: CaseRecord) -> tuple[int, str]:
    return case.case.index, case.id
