"""Kill signatures: where and how each reference defect fails while the guarded design passes.

A failing case's signature is what its failure looks like without the particulars of one
recording: the mutation's kind, variant and delivery, the boundary it lands at, the lane and hook mode of
the recording, and how the case failed (its verdict, how the request ended, and how its reservation
was settled: an unsettled refusal and one settled twice end alike). A defect's kill
signature is the set of signatures of the cases it fails on the default matrix, with how many cases
showed each. They are worked out by running every case on every defect
(`python -m toolsurface.harness._make_kill_signatures`) and shipped as data beside the defects, so a
report can say which defect a failing run fails like without running any of them.

This module reads and writes that data; it runs nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

import orjson

from ._reference._flaws import FLAWS
from ._types import CaseRecord, LedgerOp, VerdictKind

#: The data file, beside the defects it describes.
DATA_FILE = "kill_signatures.json"
#: What a signature is made of, in order: written into the data, so data made of other fields is
#: never read as this kind.
FIELDS = ("kind", "variant", "delivery", "at", "lane", "hooks", "verdict", "ending", "settled")
#: How many of `FIELDS` say where a case is; the rest say how it failed.
WHERE = 6
#: A case's signature: one value per field of `FIELDS`.
Signature = tuple[str, ...]
#: The verdicts a defect is killed by: an `error` is never a kill (see `DefectProbe`).
KILLING = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})


def where_of(record: CaseRecord) -> Signature:
    """Where a case is, without how it ended: the first `WHERE` fields of its signature."""
    case = record.case
    return (
        case.mutation.kind.value,
        case.mutation.variant,
        case.mutation.delivery.value,
        str(case.boundary),
        case.lane.value,
        case.hook_mode,
    )


def signature_of(record: CaseRecord) -> Signature:
    """A case's signature (see `FIELDS`); its ending is the one its evidence records."""
    return (*where_of(record), record.verdict.kind.value, record.evidence.ending.value, settled(record))


def settled(record: CaseRecord) -> str:
    """How the case's request was settled, in order: `pre_dispatch_rejected`, `none`, `dispatched+failed(refused)`
    (a second settlement the ledger refused), `pre_dispatch_rejected@main` (on another lane than the case's)."""
    lane = record.case.lane.value
    words = [
        f"{event.settlement}"
        + ("" if event.lane == lane else f"@{event.lane}")
        + ("" if event.accepted else "(refused)")
        for event in record.evidence.ledger
        if event.op is LedgerOp.SETTLE
    ]
    return "+".join(words) or "none"


@dataclass(frozen=True, slots=True)
class KillSignature:
    """One reference defect's kill signature."""

    defect: str
    #: The defect's flaw, in a few words (`_reference/_flaws.py`).
    flaw: str
    #: Each signature it fails with → how many cases of the default matrix showed it.
    signatures: Mapping[Signature, int]

    @functools.cached_property
    def wheres(self) -> frozenset[Signature]:
        """Where it fails, whatever the ending: what a run that holds such cases must show failing."""
        return frozenset(signature[:WHERE] for signature in self.signatures)


@dataclass(frozen=True, slots=True)
class KillSignatures:
    """Every reference defect's kill signature, as made on one seed's default matrix."""

    seed: int
    #: How many cases the matrix they were made on held.
    cases: int
    #: By defect name, in the order of `DEFECTS`.
    defects: tuple[KillSignature, ...]

    def named(self, name: str) -> KillSignature:
        return next(defect for defect in self.defects if defect.defect == name)


def kill_signature(defect: str, failing: Iterable[CaseRecord]) -> KillSignature:
    """`defect`'s kill signature from the cases it fails (only killing verdicts count)."""
    counts: dict[Signature, int] = {}
    for record in failing:
        if record.verdict.kind in KILLING:
            signature = signature_of(record)
            counts[signature] = counts.get(signature, 0) + 1
    return KillSignature(defect, FLAWS[defect], dict(sorted(counts.items())))


def encode(data: KillSignatures) -> bytes:
    """The data file, compact: each field's values listed once, each signature as the index of its
    value in each field's list then its count, one line per defect."""
    values: list[dict[str, int]] = [{} for _ in FIELDS]
    for defect in data.defects:
        for signature in defect.signatures:
            for index, value in zip(values, signature, strict=True):
                index.setdefault(value, len(index))
    rows = {
        defect.defect: [
            [*(index[value] for index, value in zip(values, key, strict=True)), count]
            for key, count in defect.signatures.items()
        ]
        for defect in data.defects
    }
    head = {"fields": list(FIELDS), "values": [list(index) for index in values], "seed": data.seed, "cases": data.cases}
    lines = [f"{orjson.dumps(name).decode()}: {orjson.dumps(row).decode()}" for name, row in rows.items()]
    return (orjson.dumps(head).decode()[:-1] + ',\n"defects": {\n' + ",\n".join(lines) + "\n}}\n").encode()


def decode(raw: bytes) -> KillSignatures:
    """Read the data file back; data made of other fields, or naming a defect without a flaw, is stale."""
    document: dict[str, Any] = orjson.loads(raw)
    if tuple(document["fields"]) != FIELDS:
        raise ValueError(f"{DATA_FILE} is made of {document['fields']}, not {list(FIELDS)}: regenerate it")
    values = document["values"]
    defects = tuple(
        KillSignature(
            name,
            FLAWS[name],
            {tuple(field[at] for field, at in zip(values, row[:-1], strict=True)): row[-1] for row in rows},
        )
        for name, rows in document["defects"].items()
    )
    return KillSignatures(document["seed"], document["cases"], defects)


@functools.cache
def bundled() -> KillSignatures:
    """The kill signatures shipped with toolsurface."""
    return decode(resources.files(f"{__package__}._reference").joinpath(DATA_FILE).read_bytes())
