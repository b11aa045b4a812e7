"""JSON-schema helpers used when tools are built from functions or converted for providers."""

from __future__ import annotations

import copy
import inspect
import json
import typing
from typing import Any, Callable

_PY_TO_JSON = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


def json_schema_for(fn: Callable[..., Any]) -> dict[str, Any]:
    """Infer an object schema from a function's signature and annotations."""
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in inspect.signature(fn).parameters.items():
        if name in {"self", "cls"} or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        annotation = typing.get_origin(hints.get(name)) or hints.get(name)
        properties[name] = {"type": _PY_TO_JSON.get(annotation, "string")}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
    return {"type": "object", "properties": properties, "required": required}


def clone_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An independent copy of a schema, exactly as it would serialise."""
    return json.loads(json.dumps(schema, ensure_ascii=False))


def ensure_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """Make ``schema`` acceptable to strict function calling.

    Every object gets ``additionalProperties: false`` and lists all of its properties as
    required, as OpenAI's strict mode demands.  Nested objects, array items and ``$defs``
    are handled too.  Returns the schema so calls can be chained.
    """
    if schema.get("type") == "object":
        schema["additionalProperties"] = False
        properties = schema.get("properties") or {}
        schema["required"] = list(properties)
        for child in properties.values():
            if isinstance(child, dict):
                ensure_strict(child)
    items = schema.get("items")
    if isinstance(items, dict):
        ensure_strict(items)
    for definition in (schema.get("$defs") or {}).values():
        if isinstance(definition, dict):
            ensure_strict(definition)
    return schema


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a copy of ``schema`` with local ``$ref``s replaced by their definitions."""
    resolved = copy.deepcopy(schema)
    definitions = resolved.pop("$defs", {})

    def expand(node: Any) -> Any:
        if isinstance(node, list):
            return [expand(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return expand(copy.deepcopy(definitions[ref.rsplit("/", 1)[-1]]))
        return {key: expand(value) for key, value in node.items()}

    return expand(resolved)
