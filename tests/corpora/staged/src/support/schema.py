"""JSON-schema helpers used when tools are converted for a provider."""

from __future__ import annotations

import copy
import logging
from typing import Any

logger = logging.getLogger(__name__)

PRESENTATION_KEYS = ("title", "examples")


def strictify(schema: dict[str, Any]) -> dict[str, Any]:
    """Make an object schema strict: no additional properties, every property required.

    Providers with a strict function-calling mode reject schemas that leave
    either open.  Nested objects and array items are handled as well.
    """
    if schema.get("type") == "object":
        schema["additionalProperties"] = False
        properties = schema.get("properties") or {}
        schema["required"] = sorted(properties)
        for sub in properties.values():
            if isinstance(sub, dict):
                strictify(sub)
    items = schema.get("items")
    if isinstance(items, dict):
        strictify(items)
    return schema


def inline_refs(shape: dict[str, Any]) -> dict[str, Any]:
    """Replace local ``$ref`` pointers with the definitions they name.

    Some providers do not resolve references, so the definitions are inlined
    and the definitions table is dropped.
    """
    defs = shape.pop("$defs", None) or shape.pop("definitions", None) or {}
    if not defs:
        return shape

    def resolve(node: Any, seen: frozenset[str] = frozenset()) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(("#/$defs/", "#/definitions/")):
                key = ref.rsplit("/", 1)[-1]
                if key in seen:
                    logger.warning("recursive $ref %s left in place", ref)
                    return dict(node)
                return resolve(defs[key], seen | {key})
            return {key: resolve(value, seen) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item, seen) for item in node]
        return node

    return resolve(shape)


def normalized_copy(schema: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of *schema* without presentation-only keys (titles, examples)."""
    out = copy.deepcopy(schema)
    _strip_keys(out, PRESENTATION_KEYS)
    return out


def _strip_keys(node: Any, keys: tuple[str, ...]) -> None:
    if isinstance(node, dict):
        for key in keys:
            node.pop(key, None)
        for value in node.values():
            _strip_keys(value, keys)
    elif isinstance(node, list):
        for item in node:
            _strip_keys(item, keys)
