"""JSON-schema utilities for tool arguments listed by MCP servers."""

from __future__ import annotations

import copy
import json
from typing import Any, Iterable, Mapping

JsonSchema = dict[str, Any]

HIDDEN_KEYS = ("_meta", "x-internal", "$comment")


def strictify(schema: JsonSchema) -> JsonSchema:
    """Make an object schema strict: no extra keys, every property required."""
    if schema.get("type") == "object":
        schema["additionalProperties"] = False
        props = schema.setdefault("properties", {})
        schema["required"] = sorted(props)
        for sub in props.values():
            strictify(sub)
    elif schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        strictify(schema["items"])
    return schema


def merge_into(target: dict[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """Recursive dict merge of ``patch`` into ``target``."""
    for key, value in patch.items():
        if isinstance(value, Mapping) and isinstance(target.get(key), dict):
            merge_into(target[key], value)
        else:
            target[key] = value
    return target


def drop_key(acc: dict[str, Any], key: str) -> dict[str, Any]:
    """Reducer: remove ``key`` from the node and from each of its properties."""
    acc.pop(key, None)
    for sub in (acc.get("properties") or {}).values():
        if isinstance(sub, dict):
            sub.pop(key, None)
    return acc


def clone_schema(schema: Mapping[str, Any]) -> JsonSchema:
    return copy.deepcopy(dict(schema))


def clone_specs(specs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Detached copies of tool specs (a JSON round trip: nothing is shared)."""
    return json.loads(json.dumps([dict(s) for s in specs]))


def strict_copy(schema: Mapping[str, Any]) -> JsonSchema:
    """A strict variant of the schema; the original is left as it was."""
    return strictify(clone_schema(schema))


def coerce_schema(raw: Any) -> JsonSchema:
    """Accept a dict, a pydantic model class or a JSON string as an argument schema."""
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        return json.loads(raw)
    if hasattr(raw, "model_json_schema"):
        return raw.model_json_schema()
    raise TypeError(f"cannot use {type(raw).__name__} as a schema")
