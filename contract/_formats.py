"""Tool format accessors: read and edit live tool objects in place, whatever their shape.

A host keeps its tools as OpenAI function dicts, Anthropic tool dicts, MCP `Tool` dicts or its own
logical dicts. Mutations and snapshots reach them through a `ToolFormat`, never by copying them
into a type of ours: an in-place edit must land on the very object the host will send.

Besides name, description and input schema, a format may carry wire fields (`WIRE_FIELDS`):
OpenAI's and Anthropic's `strict`, MCP's `title`, `annotations` and `outputSchema`. They are part
of what is sent, so a snapshot reads them too — under their logical names, so that the same tool in
two formats snapshots alike — and only when a tool has one, so a tool without them snapshots as
`[name, description, input_schema]`, exactly as before they were compared.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from toolsurface.contract._json import dumps, loads

WIRE_FIELDS: tuple[str, ...] = ("strict", "title", "annotations", "output_schema")

#: Which wire fields each recorded tool format has; a scenario records only these.
WIRE_FIELDS_OF: dict[str, tuple[str, ...]] = {
    "logical": WIRE_FIELDS,
    "openai": ("strict",),
    "anthropic": ("strict",),
    "mcp": ("title", "annotations", "output_schema"),
}


@dataclass(frozen=True, slots=True)
class ToolDescriptor:
    """One logical tool: what the model is told it may call."""

    name: str
    description: str
    #: The input JSON Schema exactly as recorded (key order kept), as JSON bytes.
    schema_json: bytes
    #: The wire fields recorded beside the three (`WIRE_FIELDS`, in that order) as a JSON object;
    #: empty bytes when the tool has none, so such a tool snapshots exactly as before they existed.
    wire_json: bytes = b""

    @classmethod
    def of(
        cls, name: str, description: str, input_schema: Mapping[str, Any], wire: Mapping[str, Any] | None = None
    ) -> ToolDescriptor:
        fields = {key: wire[key] for key in WIRE_FIELDS if wire and wire.get(key) is not None}
        return cls(name, description, _shared(dumps(input_schema)), dumps(fields) if fields else b"")

    @property
    def input_schema(self) -> dict[str, Any]:
        """A fresh copy of the input schema; editing it changes nothing here."""
        schema: dict[str, Any] = loads(self.schema_json)
        return schema

    @property
    def wire(self) -> dict[str, Any]:
        """A fresh copy of the wire fields beyond the three (empty when none were recorded)."""
        return loads(self.wire_json) if self.wire_json else {}

    def as_logical(self) -> dict[str, Any]:
        """A fresh `name/description/input_schema` dict, with the wire fields the tool has."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema, **self.wire}


@functools.lru_cache(maxsize=1 << 16)
def _shared(data: bytes) -> bytes:
    """One object for equal bytes: the recordings of one host repeat the same tool schemas, each
    often kilobytes, so a set of many recordings holds each schema once."""
    return data


@dataclass(frozen=True, slots=True)
class ToolFormat:
    """Where a tool dict keeps its name, description, input schema and wire fields."""

    name: str
    #: Keys leading to the dict that holds the three fields (empty: the tool dict itself).
    prefix: tuple[str, ...]
    schema_key: str
    #: Fixed keys a new tool object carries besides the three fields (e.g. `"type": "function"`).
    envelope: tuple[tuple[str, str], ...] = ()
    #: The wire fields the format has, `(logical name, key beside the three fields)`, in `WIRE_FIELDS` order.
    wire: tuple[tuple[str, str], ...] = ()

    def fields(self, tool: Any) -> dict[str, Any]:
        for key in self.prefix:
            tool = tool[key]
        fields: dict[str, Any] = tool
        return fields

    def get_name(self, tool: Any) -> str:
        name: str = self.fields(tool)["name"]
        return name

    def set_name(self, tool: Any, value: str) -> None:
        self.fields(tool)["name"] = value

    def get_description(self, tool: Any) -> str:
        description: str = self.fields(tool).get("description", "")
        return description

    def set_description(self, tool: Any, value: str) -> None:
        self.fields(tool)["description"] = value

    def get_schema(self, tool: Any) -> dict[str, Any]:
        """The live input schema: edits to it reach every holder of the same dict."""
        schema: dict[str, Any] = self.fields(tool)[self.schema_key]
        return schema

    def set_schema(self, tool: Any, value: dict[str, Any]) -> None:
        self.fields(tool)[self.schema_key] = value

    def only(self, fields: Iterable[str]) -> ToolFormat:
        """The same format carrying only those of its wire fields named in `fields`."""
        kept = frozenset(fields)
        return replace(self, wire=tuple(pair for pair in self.wire if pair[0] in kept))

    def carries(self, field: str) -> bool:
        """Whether this format has the wire field `field` (a `WIRE_FIELDS` name)."""
        return any(name == field for name, _ in self.wire)

    def get_wire(self, tool: Any) -> dict[str, Any]:
        """The live wire fields the tool has, by logical name; a `null` one is one it has not."""
        fields = self.fields(tool)
        return {name: fields[key] for name, key in self.wire if fields.get(key) is not None}

    def set_wire(self, tool: Any, field: str, value: Any) -> None:
        """Set (or, with None, remove) the wire field `field` on the live tool."""
        key = self._wire_key(field)
        if value is None:
            self.fields(tool).pop(key, None)
        else:
            self.fields(tool)[key] = value

    def _wire_key(self, field: str) -> str:
        for name, key in self.wire:
            if name == field:
                return key
        raise KeyError(f"the {self.name} tool format has no {field!r} field")

    def logical(self, tool: Any) -> list[Any]:
        """`[name, description, input_schema]`, and the wire fields when it has any, sharing the
        live values (for snapshots only)."""
        fields = self.fields(tool)
        entry = [fields["name"], fields.get("description", ""), fields[self.schema_key]]
        if self.wire:  # as `get_wire`, inlined: every snapshot of every tool comes through here
            wire = {name: value for name, key in self.wire if (value := fields.get(key)) is not None}
            if wire:
                entry.append(wire)
        return entry

    def build(self, descriptor: ToolDescriptor) -> dict[str, Any]:
        """A new live tool object holding fresh copies of the descriptor's fields (the wire fields
        this format has)."""
        tool: dict[str, Any] = {
            "name": descriptor.name,
            "description": descriptor.description,
            self.schema_key: descriptor.input_schema,
        }
        if descriptor.wire_json:
            wire = descriptor.wire
            tool.update((key, wire[name]) for name, key in self.wire if name in wire)
        for key in reversed(self.prefix):
            tool = {key: tool}
        return {**dict(self.envelope), **tool}


#: MCP spells `output_schema` as `outputSchema`; the other wire fields keep their names.
_WIRE_KEYS = {"output_schema": "outputSchema"}


def _wire(fmt: str, logical_names: bool = False) -> tuple[tuple[str, str], ...]:
    return tuple((name, name if logical_names else _WIRE_KEYS.get(name, name)) for name in WIRE_FIELDS_OF[fmt])


LOGICAL = ToolFormat("logical", (), "input_schema", wire=_wire("logical", logical_names=True))
OPENAI = ToolFormat("openai", ("function",), "parameters", envelope=(("type", "function"),), wire=_wire("openai"))
ANTHROPIC = ToolFormat("anthropic", (), "input_schema", wire=_wire("anthropic"))
MCP = ToolFormat("mcp", (), "inputSchema", wire=_wire("mcp"))

#: Every known format by name.
FORMATS: dict[str, ToolFormat] = {fmt.name: fmt for fmt in (LOGICAL, OPENAI, ANTHROPIC, MCP)}
