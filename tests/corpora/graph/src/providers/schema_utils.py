"""JSON-schema helpers used when rendering tools for a provider."""

from __future__ import annotations

import copy
import functools
from typing import Any

Schema = dict[str, Any]


def detached(schema: Schema) -> Schema:
    """A copy of the schema that shares nothing with it."""
    return copy.deepcopy(schema)


def sanitize(schema: Schema) -> Schema:
    """The schema with the explicit object type some providers insist on."""
    return {**schema, "type": "object"}


def strip_titles(schema: Schema) -> None:
    """Remove pydantic's generated titles, which providers bill as prompt tokens."""
    schema.pop("title", None)
    for sub in schema.get("properties", {}).values():
        if isinstance(sub, dict):
            strip_titles(sub)


def _inline_one(acc: Schema, item: tuple[str, Schema]) -> Schema:
    name, definition = item
    ref = f"#/$defs/{name}"
    for key, prop in list(acc.get("properties", {}).items()):
        if isinstance(prop, dict) and prop.get("$ref") == ref:
            acc["properties"][key] = definition
    return acc


def inline_defs(schema: Schema) -> Schema:
    """Replace top-level $ref properties with the definitions they point at."""
    defs = schema.get("$defs", {})
    return functools.reduce(_inline_one, defs.items(), schema)


def without_examples(schema: Schema) -> Schema:
    """The schema without per-property examples, which some providers reject."""
    props = {key: dict(value) for key, value in schema.get("properties", {}).items()}
    for prop in props.values():
        prop.pop("examples", None)
    return {**schema, "properties": props}
