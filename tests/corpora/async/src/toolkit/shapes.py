"""JSON Schema helpers for tool input shapes."""

from __future__ import annotations

import copy
import logging
from typing import Any, Iterator, Mapping

log = logging.getLogger(__name__)

Shape = dict[str, Any]


def strictify(shape: Shape) -> Shape:
    """Make shape acceptable to strict function calling.

    Every object is closed (``additionalProperties: false``) and lists all its properties as
    required; properties that were optional become nullable instead.
    """
    if shape.get("type") == "object":
        props = shape.get("properties", {})
        optional = [key for key in props if key not in shape.get("required", [])]
        shape["additionalProperties"] = False
        shape["required"] = list(props)
        for sub in props.values():
            if isinstance(sub, dict):
                strictify(sub)
        for key in optional:
            props[key] = {"anyOf": [props[key], {"type": "null"}]}
    elif shape.get("type") == "array" and isinstance(shape.get("items"), dict):
        strictify(shape["items"])
    return shape


def strict_copy(shape: Mapping[str, Any]) -> Shape:
    """A strict copy of shape; the shape handed in is left as it was."""
    out = copy.deepcopy(dict(shape))
    return strictify(out)


def apply_override(acc: Shape, override: tuple[str, Mapping[str, Any]]) -> Shape:
    """Reducer: fold one property override (``("query", {"maxLength": 512})``) into acc."""
    key, patch = override
    target = acc.setdefault("properties", {}).setdefault(key, {})
    target.update(patch)
    return acc


def described(shape: Mapping[str, Any], notes: Mapping[str, str]) -> Shape:
    """A copy of shape whose property descriptions carry notes (for traces and previews)."""
    out = copy.deepcopy(dict(shape))
    for key, note in notes.items():
        prop = out.get("properties", {}).get(key)
        if isinstance(prop, dict):
            prop["description"] = f"{prop.get('description', '')} ({note})".strip()
    return out


def walk(shape: Mapping[str, Any], path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every sub-schema of shape with its JSON pointer, parents first."""
    yield path or "/", shape
    for key, sub in (shape.get("properties") or {}).items():
        if isinstance(sub, Mapping):
            yield from walk(sub, f"{path}/properties/{key}")
    items = shape.get("items")
    if isinstance(items, Mapping):
        yield from walk(items, f"{path}/items")


def property_names(shape: Mapping[str, Any]) -> list[str]:
    return list((shape.get("properties") or {}).keys())
