"""What the offline model answers a framework's auxiliary structured-output call with (a tool
selector's choice, say): a value of the schema asked for, made from the recording, the same every run.

The recorded model's next tool calls say which tools it wanted: where the schema asks for a list
of names to choose from, those come first, in the order the model called them, then every other
name in the order offered (a selector that keeps the first few keeps those the recording needs).
Anything else is the least value of its type: the first of an `enum`, `""`, `0`, `false`, `[]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def answer(schema: dict[str, Any], wanted: Sequence[str] = ()) -> Any:
    """A value of `schema` (a JSON schema; `$ref`s into its `$defs` are followed)."""
    return _value(schema, schema.get("$defs", schema.get("definitions", {})), tuple(wanted))


def _value(schema: dict[str, Any], defs: dict[str, Any], wanted: tuple[str, ...]) -> Any:
    if ref := schema.get("$ref"):
        return _value(defs.get(ref.rsplit("/", 1)[-1], {}), defs, wanted)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for union in ("anyOf", "oneOf", "allOf"):
        if options := schema.get(union):
            return _value(options[0], defs, wanted)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        properties: dict[str, Any] = schema.get("properties", {})
        required = schema.get("required") or list(properties)
        return {name: _value(properties[name], defs, wanted) for name in required if name in properties}
    if kind == "array":
        choices = _choices(schema.get("items", {}), defs)
        first = [name for name in dict.fromkeys(wanted) if name in choices]
        return [*first, *(choice for choice in choices if choice not in first)]
    return {"string": "", "integer": 0, "number": 0, "boolean": False}.get(str(kind))


def _choices(items: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """The names an array's items choose from: an `enum`, or a union of `const`s; empty for anything else."""
    if ref := items.get("$ref"):
        items = defs.get(ref.rsplit("/", 1)[-1], {})
    if isinstance(enum := items.get("enum"), list) and all(isinstance(v, str) for v in enum):
        return list(enum)
    options = items.get("anyOf") or items.get("oneOf") or []
    consts = [option.get("const", (option.get("enum") or [None])[0]) for option in options]
    return consts if consts and all(isinstance(c, str) for c in consts) else []
