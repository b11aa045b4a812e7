"""Immutable snapshots of a tool surface, and parity between them.

A snapshot is the surface serialized to JSON bytes, every object's keys sorted: bytes cannot be
edited in place, so nothing downstream of a capture can reach into it. Parity ignores object key
order and respects array and tool order, so sorting the keys once, when the snapshot is taken,
makes parity one `bytes` comparison whatever order the keys came in. A recorded schema is sorted
once per distinct schema, not once per snapshot (see `snapshot_of`).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from toolsurface.contract._json import loads as _decode

from ._formats import LOGICAL, ToolDescriptor, ToolFormat


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A captured surface: sorted-key JSON of `[[name, description, input_schema], ...]`; a tool
    with wire fields (`ToolFormat.wire`) has them as a fourth element, `{name: value}`. Two
    snapshots are equal exactly when their surfaces have parity."""

    raw: bytes

    def entries(self) -> list[list[Any]]:
        """A fresh decoded copy: `[name, description, input_schema]` per tool (and its wire fields, if
        any), in order."""
        entries: list[list[Any]] = _decode(self.raw)
        return entries

    def names(self) -> list[str]:
        return [entry[0] for entry in self.entries()]

    def without(self, names: frozenset[str]) -> Snapshot:
        """The same surface less the tools called any of `names`, key order kept."""
        return Snapshot(_without(self.raw, names)) if names else self

    def selected(self, names: Sequence[str]) -> Snapshot:
        """The tools called `names`, in that order, each once: what a selection of this surface that
        changes nothing gives (a name it does not hold is skipped)."""
        by_name = {entry[0]: entry for entry in self.entries()}
        return Snapshot(canonical_json([by_name[name] for name in dict.fromkeys(names) if name in by_name]))

    def __len__(self) -> int:
        return len(self.entries())


@functools.lru_cache(maxsize=256)
def _without(raw: bytes, names: frozenset[str]) -> bytes:
    # A narrowed baseline is asked for at every check; its inputs are immutable, so decode once.
    return canonical_json([entry for entry in _decode(raw) if entry[0] not in names])


def canonical_json(value: Any) -> bytes:
    """Compact JSON bytes with sorted keys."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson stops at 64-bit integers; the standard library does not
        return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


@functools.lru_cache(maxsize=4096)
def _sorted(recorded: bytes) -> bytes:
    """Recorded JSON bytes with every object's keys sorted. A run snapshots the same few schemas
    for every case, so each is decoded once."""
    return canonical_json(_decode(recorded))


@functools.lru_cache(maxsize=32)
def entries_to_read(snapshot: Snapshot) -> tuple[list[Any], ...]:
    """The snapshot's entries, decoded once and shared by every caller: for reading only (a diff
    against the same expected surface, once per planned mutation). Use `entries` for a copy to edit."""
    return tuple(snapshot.entries())


def logical_tools(descriptors: tuple[ToolDescriptor, ...]) -> list[dict[str, Any]]:
    """What `[d.as_logical() for d in descriptors]` gives: fresh dicts, decoded in one call from the
    recorded bytes, joined once per distinct surface."""
    tools: list[dict[str, Any]] = _decode(_logical_json(descriptors))
    return tools


@functools.lru_cache(maxsize=64)
def _logical_json(descriptors: tuple[ToolDescriptor, ...]) -> bytes:
    # The members in `as_logical`'s order: name, description, input schema, then the wire fields.
    return (
        b"["
        + b",".join(
            b'{"name":%b,"description":%b,"input_schema":%b%b}'
            % (
                orjson.dumps(d.name),
                orjson.dumps(d.description),
                d.schema_json,
                b"," + d.wire_json[1:-1] if d.wire_json else b"",
            )
            for d in descriptors
        )
        + b"]"
    )


def entries_as_found(tools: Iterable[Any], fmt: ToolFormat = LOGICAL) -> list[list[Any]]:
    """A deep copy of live tools as snapshot entries, every object's keys in the order found: what
    a recording keeps, since the cases planned from a schema follow the order of its keys."""
    value = [fmt.logical(tool) for tool in tools]
    try:
        raw = orjson.dumps(value)
    except TypeError:  # past 64-bit integers, as in `canonical_json`
        raw = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
    return list(_decode(raw))


def capture(tools: Iterable[Any], fmt: ToolFormat = LOGICAL) -> Snapshot:
    """Snapshot live tool objects as they are now."""
    tools = list(tools)
    whole = _as_found(tools, fmt)
    if whole is not None:
        with _CAPTURED_LOCK:
            known = _CAPTURED.pop((fmt, whole), None)
            if known is not None:
                _CAPTURED[(fmt, whole)] = known  # most recently used last
        if known is not None:
            return Snapshot(known)
    value = [fmt.logical(tool) for tool in tools]
    try:
        found = orjson.dumps(value)
    except TypeError:  # past 64-bit integers: `canonical_json` has the standard library's way
        return Snapshot(canonical_json(value))
    known = _canonical_of(found, value)
    if whole is not None:
        _remember((fmt, whole), known)
    return Snapshot(known)


def _as_found(tools: list[Any], fmt: ToolFormat) -> bytes | None:
    """The tool dicts serialized whole, keys in the order found, or None where that is not safe to
    stand for their snapshot. Equal bytes are equal dicts, so they read to the same snapshot in
    `fmt`: a surface captured again unchanged (at every check of every case) is looked up without
    first taking each tool's fields apart. Only plain dicts: a subclass may read its fields
    otherwise than orjson, which reads the storage."""
    try:
        if all(type(tool) is dict and type(fmt.fields(tool)) is dict for tool in tools):
            return orjson.dumps(tools)
    except (TypeError, KeyError):  # not this format's; a value orjson cannot write; past 64-bit integers
        pass
    return None


#: Sorted-key bytes by the bytes of the same surface with its keys in the order found, for the
#: last few surfaces captured (each can be a megabyte, so only a few): by its entries, and by its
#: tool dicts whole with the format that reads them.
_CAPTURED: dict[bytes | tuple[ToolFormat, bytes], bytes] = {}
_CAPTURED_LIMIT = 16
#: A host may check its surface from threads of its own.
_CAPTURED_LOCK = threading.Lock()


def _canonical_of(found: bytes, value: Any) -> bytes:
    """The snapshot bytes of a surface whose keys-as-found JSON is `found`. A run captures the same
    unchanged surface at every check of every case: equal bytes as found are equal values with
    their keys in the same order, so they sort to the same bytes, and sorting once serves them all.
    Serializing as found and looking the bytes up costs well under sorting every object's keys."""
    with _CAPTURED_LOCK:
        known = _CAPTURED.pop(found, None)
    if known is None:
        known = canonical_json(value)
    _remember(found, known)
    return known


def _remember(key: bytes | tuple[ToolFormat, bytes], known: bytes) -> None:
    with _CAPTURED_LOCK:
        _CAPTURED.pop(key, None)
        if len(_CAPTURED) >= _CAPTURED_LIMIT:
            del _CAPTURED[next(iter(_CAPTURED))]
        _CAPTURED[key] = known  # most recently used last


def snapshot_of(descriptors: Sequence[ToolDescriptor], fmt: ToolFormat = LOGICAL) -> Snapshot:
    """Snapshot recorded descriptors from their JSON bytes, each distinct schema sorted once.

    Gives the same bytes `capture` gives for live tools built from these descriptors in `fmt`,
    whose wire fields are the only ones kept: what a format cannot carry never reaches its wire.
    """
    entries = (
        b"[%b,%b,%b%b]" % (canonical_json(d.name), canonical_json(d.description), _sorted(d.schema_json), _wire(d, fmt))
        for d in descriptors
    )
    return Snapshot(b"[" + b",".join(entries) + b"]")


def _wire(descriptor: ToolDescriptor, fmt: ToolFormat) -> bytes:
    """`,{wire fields}` for the fields of the descriptor that `fmt` carries; empty when there are none."""
    if not descriptor.wire_json:
        return b""
    wire = descriptor.wire
    kept = {name: value for name, value in wire.items() if fmt.carries(name)}
    if len(kept) == len(wire):
        return b"," + _sorted(descriptor.wire_json)
    return b"," + canonical_json(kept) if kept else b""
