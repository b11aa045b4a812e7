"""Immutable snapshots of a tool surface, and parity between them.

A snapshot is the surface serialized to JSON bytes as it was found: bytes cannot be edited in
place, so nothing downstream of a capture can reach into it. Parity ignores object key order and
respects array and tool order. It is decided on the raw bytes when they are equal (the common
case, one `bytes` comparison) and on sorted-key canonical JSON only when they differ but could
still be a key reordering — which keeps a capture plus two checks within about 3× of a plain
`==` of two trees (see tests/benchmarks).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from toolsurface.scenarios import ToolDescriptor

from ._formats import LOGICAL, ToolFormat


@dataclass(frozen=True, slots=True, eq=False)
class Snapshot:
    """A captured surface: JSON of `[[name, description, input_schema], ...]`, key order as found;
    a tool with wire fields (`ToolFormat.wire`) has them as a fourth element, `{name: value}`."""

    raw: bytes

    @property
    def canonical(self) -> bytes:
        """The same surface with every object's keys sorted: equal exactly when surfaces have parity."""
        return canonical_json(_decode(self.raw))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Snapshot):
            return NotImplemented
        # Reordering keys never changes the length of compact JSON, so a length change is a change.
        return self.raw == other.raw or (len(self.raw) == len(other.raw) and self.canonical == other.canonical)

    def __hash__(self) -> int:
        return hash(self.canonical)

    def entries(self) -> list[list[Any]]:
        """A fresh decoded copy: `[name, description, input_schema]` per tool (and its wire fields, if any), in order."""
        return _decode(self.raw)

    def names(self) -> list[str]:
        return [entry[0] for entry in self.entries()]

    def without(self, names: frozenset[str]) -> Snapshot:
        """The same surface less the tools called any of `names`, key order kept."""
        return Snapshot(_without(self.raw, names)) if names else self

    def __len__(self) -> int:
        return len(self.entries())


@functools.lru_cache(maxsize=256)
def _without(raw: bytes, names: frozenset[str]) -> bytes:
    # A narrowed baseline is asked for at every check; its inputs are immutable, so decode once.
    return _raw_json([entry for entry in _decode(raw) if entry[0] not in names])


def _decode(raw: bytes) -> Any:
    """The JSON value of a snapshot's bytes: orjson (several times faster on a surface of 128 tools
    with KB-long descriptions), the standard library where orjson would not be exact: it reads an
    integer past 64 bits as a float, so any run of 19 or more digits goes to `json`."""
    if _LONG_NUMBER in raw.translate(_DIGITS):
        return json.loads(raw)
    return orjson.loads(raw)


#: 19 digits can exceed a signed 64-bit integer; shorter runs never do. Found by mapping every
#: digit to `0` and every other byte to a space, then one substring search: a regex scan for
#: `\d{19}` costs several times the decode itself on a surface of 150 KB.
_DIGITS = bytes(ord("0") if chr(byte) in "0123456789" else ord(" ") for byte in range(256))
_LONG_NUMBER = b"0" * 19


def canonical_json(value: Any) -> bytes:
    """Compact JSON bytes with sorted keys."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson stops at 64-bit integers; the standard library does not
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _raw_json(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def capture(tools: Iterable[Any], fmt: ToolFormat = LOGICAL) -> Snapshot:
    """Snapshot live tool objects as they are now."""
    return Snapshot(_raw_json([fmt.logical(tool) for tool in tools]))


def snapshot_of(descriptors: Sequence[ToolDescriptor], fmt: ToolFormat = LOGICAL) -> Snapshot:
    """Snapshot recorded descriptors without decoding their schemas: they are JSON bytes already.

    Gives the same bytes `capture` gives for live tools built from these descriptors in `fmt`,
    whose wire fields are the only ones kept: what a format cannot carry never reaches its wire.
    """
    entries = (b"[%b,%b,%b%b]" % (_raw_json(d.name), _raw_json(d.description), d.schema_json, _wire(d, fmt)) for d in descriptors)
    return Snapshot(b"[" + b",".join(entries) + b"]")


def _wire(descriptor: ToolDescriptor, fmt: ToolFormat) -> bytes:
    """`,{wire fields}` for the fields of the descriptor that `fmt` carries; empty when there are none."""
    if not descriptor.wire_json:
        return b""
    wire = descriptor.wire
    kept = {name: value for name, value in wire.items() if fmt.carries(name)}
    if len(kept) == len(wire):
        return b"," + descriptor.wire_json
    return b"," + _raw_json(kept) if kept else b""
