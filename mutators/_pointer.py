"""JSON Pointers (RFC 6901) into input schemas: spell them, follow them, list what they can name.

A schema mutation aims at a `SchemaPath(tool, pointer)`. The pointer names the place the edit
lands, so a later diff can be checked against it; `-` as the last token means "append to this
array", as in JSON Patch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ._base import MutationNotApplicable

#: Keywords whose value maps names to subschemas.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
#: Keywords whose value is one subschema (or, for old-style `items`, a list of them).
_SCHEMA_SLOTS = (
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
)
#: Keywords whose value is a list of subschemas.
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def join(pointer: str, *tokens: str | int) -> str:
    """`pointer` extended by `tokens`, escaped so `/` and `~` inside a key survive."""
    escaped = (str(token).replace("~", "~0").replace("/", "~1") for token in tokens)
    return pointer + "".join(f"/{token}" for token in escaped)


def tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of `pointer` (`""` is the whole document)."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer=} must be empty or start with '/'")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def split_last(pointer: str) -> tuple[str, str]:
    """`(parent pointer, last token)`; the place an edit lands and the key it changes there."""
    parts = tokens(pointer)
    if not parts:
        raise ValueError(f"{pointer=} names the whole document, which has no parent")
    return join("", *parts[:-1]), parts[-1]


def resolve(document: Any, pointer: str, kind: type = object) -> Any:
    """The live value `pointer` names inside `document` (not a copy), which must be a `kind`."""
    node = document
    for token in tokens(pointer):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise MutationNotApplicable(f"nothing at {pointer!r} in the live input schema")
    if not isinstance(node, kind):
        raise MutationNotApplicable(f"{pointer or '/'} is not a JSON {kind.__name__} in the live input schema")
    return node


def schema_nodes(schema: Any, at: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (sub)schema object in `schema` with its pointer, parents first, in document order.

    Only schema positions are walked, so a property *named* `type` is never taken for the
    `type` keyword.
    """
    if not isinstance(schema, dict):
        return
    yield at, schema
    for keyword, value in schema.items():
        if keyword in _SCHEMA_MAPS and isinstance(value, dict):
            for key, child in value.items():
                yield from schema_nodes(child, join(at, keyword, key))
        elif keyword in _SCHEMA_LISTS or (keyword == "items" and isinstance(value, list)):
            if isinstance(value, list):
                for index, child in enumerate(value):
                    yield from schema_nodes(child, join(at, keyword, index))
        elif keyword in _SCHEMA_SLOTS:
            yield from schema_nodes(value, join(at, keyword))
