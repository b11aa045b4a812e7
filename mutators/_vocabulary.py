"""The JSON Schema vocabulary, read from the metaschema a recorded schema declares.

A schema comparison that looks at some keywords only is blind to edits of the others, and which
keywords exist is the draft's business, not ours: `vocabulary(draft)` reads them, with the shape
of each one's value, from the metaschema jsonschema ships for that draft (every vocabulary of a
2020-12 or 2019-09 metaschema, its legacy keywords included). A schema that declares no
`$schema` is read as 2020-12, the draft MCP tool schemas default to.

`edit(shape, op, keyword, value, node)` is what a hook, a provider adapter or a normaliser does
to one keyword: remove it, add it where it is absent, loosen or tighten what it allows, change it
to another value of its kind, or retype it to a value a loose comparison takes for the same.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterator, Mapping
from typing import Any

#: The draft a schema without `$schema` is read as.
DEFAULT_DRAFT = "https://json-schema.org/draft/2020-12/schema"


class Shape(enum.StrEnum):
    """What a keyword's value is, as its metaschema declares it."""

    SCHEMA = "schema"
    SCHEMA_MAP = "schema_map"
    SCHEMA_ARRAY = "schema_array"
    COUNT = "count"
    NUMBER = "number"
    BOOLEAN = "boolean"
    STRING = "string"
    STRINGS = "strings"
    STRINGS_MAP = "strings_map"
    TYPE = "type"
    VALUES = "values"
    ANY = "any"
    FLAGS = "flags"


class Op(enum.StrEnum):
    """One edit of one keyword."""

    REMOVE = "remove"
    ADD = "add"
    LOOSEN = "loosen"
    TIGHTEN = "tighten"
    CHANGE = "change"
    RETYPE = "retype"


#: Keywords no case adds, with the reason. Every other keyword of the vocabulary is added where
#: it is absent and its value could bear on what the node accepts.
NOT_ADDED: Mapping[str, str] = {
    "$schema": "declares the draft; a draft named in a nested schema is ignored by validators and hosts alike",
    "$vocabulary": "declares a metaschema's vocabularies; a tool's input schema is no metaschema",
    "$id": "names a schema for references; an added name nothing refers to constrains nothing",
    "$anchor": "names a subschema for references; an added anchor nothing refers to constrains nothing",
    "$dynamicAnchor": "names a subschema for dynamic references; nothing in a tool schema refers to it",
    "$recursiveAnchor": "2019-09 recursion marker; nothing in a tool schema refers to it",
    "$dynamicRef": "resolves through a dynamic scope a tool schema does not build; added, it names nothing",
    "$recursiveRef": "resolves through a dynamic scope a tool schema does not build; added, it names nothing",
    "$ref": "a link: added where no definition was meant, it names one the tool did not declare",
}


@functools.cache
def vocabulary(draft: str = DEFAULT_DRAFT) -> Mapping[str, Shape]:
    """Every keyword of `draft`'s metaschema with the shape of its value, in metaschema order."""
    # The metaschemas jsonschema validates with, loaded only when a plan needs them.
    from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]

    try:
        top = REGISTRY[draft.rstrip("#")].contents
    except LookupError:
        raise ValueError(f"$schema {draft!r} is not a JSON Schema draft jsonschema knows") from None
    found: dict[str, Shape] = {}
    for document in (top, *(_sub(REGISTRY, draft, ref) for ref in _vocabulary_refs(top))):
        for keyword, declared in document.get("properties", {}).items():
            found.setdefault(keyword, _shape(declared, document))
    return found


def _vocabulary_refs(top: dict[str, Any]) -> Iterator[str]:
    for part in top.get("allOf", ()):
        if isinstance(part, dict) and isinstance(part.get("$ref"), str):
            yield part["$ref"]


def _sub(registry: Any, base: str, ref: str) -> dict[str, Any]:
    """A vocabulary's metaschema, `ref` relative to the top metaschema's URI."""
    uri = ref if "://" in ref else base.rsplit("/", 1)[0] + "/" + ref
    contents: dict[str, Any] = registry[uri].contents
    return contents


def _local(declared: Any, document: dict[str, Any]) -> Any:
    """`declared` with a local `$ref` (`#/$defs/x`, `#/definitions/x`) followed."""
    seen = 0
    while isinstance(declared, dict) and isinstance(declared.get("$ref"), str) and declared["$ref"].startswith("#/"):
        section, name = declared["$ref"][2:].split("/", 1)
        declared, seen = document[section][name], seen + 1
        if seen > 8:
            break
    return declared


def _shape(declared: Any, document: dict[str, Any]) -> Shape:
    declared = _local(declared, document)
    if declared is True or declared == {}:
        return Shape.ANY
    if not isinstance(declared, dict):
        return Shape.ANY
    if "$dynamicRef" in declared or "$recursiveRef" in declared or declared.get("$ref") == "#":
        return Shape.SCHEMA
    if "anyOf" in declared:
        shapes = {_shape(branch, document) for branch in declared["anyOf"]}
        if "enum" in _local(declared["anyOf"][0], document):
            return Shape.TYPE
        return Shape.SCHEMA if Shape.SCHEMA in shapes else sorted(shapes)[0]
    kind = declared.get("type")
    if kind == "object":
        inner = _shape(declared.get("additionalProperties", True), document)
        return {Shape.SCHEMA: Shape.SCHEMA_MAP, Shape.STRINGS: Shape.STRINGS_MAP, Shape.BOOLEAN: Shape.FLAGS}.get(
            inner, Shape.SCHEMA_MAP
        )
    if kind == "array":
        inner = _shape(declared.get("items", True), document)
        return {Shape.SCHEMA: Shape.SCHEMA_ARRAY, Shape.STRING: Shape.STRINGS}.get(inner, Shape.VALUES)
    return {"integer": Shape.COUNT, "number": Shape.NUMBER, "boolean": Shape.BOOLEAN, "string": Shape.STRING}.get(
        kind if isinstance(kind, str) else "", Shape.ANY
    )


def draft_of(schema: Any) -> str:
    declared = schema.get("$schema") if isinstance(schema, dict) else None
    return declared.rstrip("#") if isinstance(declared, str) else DEFAULT_DRAFT


def subschemas(schema: Any, shapes: Mapping[str, Shape], at: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object inside `schema` with its pointer, parents first, walking exactly the
    keywords whose metaschema says their value holds schemas."""
    if not isinstance(schema, dict):
        return
    yield at, schema
    for keyword, value in schema.items():
        shape, here = shapes.get(keyword), f"{at}/{_escape(keyword)}"
        if shape is Shape.SCHEMA:
            # Draft 7's `items` may be a list of schemas too.
            children = enumerate(value) if isinstance(value, list) else ((None, value),)
            for index, child in children:
                yield from subschemas(child, shapes, here if index is None else f"{here}/{index}")
        elif shape is Shape.SCHEMA_MAP and isinstance(value, dict):
            for name, child in value.items():
                yield from subschemas(child, shapes, f"{here}/{_escape(name)}")
        elif shape is Shape.SCHEMA_ARRAY and isinstance(value, list):
            for index, child in enumerate(value):
                yield from subschemas(child, shapes, f"{here}/{index}")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


# -- the edits -----------------------------------------------------------------------------------


def edit(shape: Shape, op: Op, keyword: str, value: Any, node: dict[str, Any]) -> Any:
    """The keyword's new value under `op`, or None where `op` cannot edit it (never for REMOVE,
    which the caller does by deleting the keyword)."""
    if op is Op.ADD:
        return _added(shape, keyword, node)
    if op is Op.RETYPE:
        return _retyped(shape, value)
    made = _EDITS.get((shape, op))
    return None if made is None else made(keyword, value, node)


def _bound(keyword: str, value: Any, wider: bool) -> Any:
    """A bound moved one step: `max*` up and `min*` down to allow more, the reverse to allow less."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if keyword == "multipleOf":
        return value / 2 if wider else value * 2
    up = keyword.startswith("max") or keyword == "exclusiveMaximum"
    if not up and not keyword.startswith("min") and keyword != "exclusiveMinimum":
        return None
    moved = value + (1 if up == wider else -1)
    return moved if moved >= 0 or isinstance(value, float) or keyword in ("minimum", "maximum") else None


def _other(value: Any) -> Any:
    """Another value of the same JSON type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return f"{value}_2" if value else "x"
    if isinstance(value, list):
        return [*value, value[-1]] if value else [0]
    return None


def _string(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    if not isinstance(value, str):
        return None
    if keyword == "format":
        return "date-time" if value != "date-time" else "date"
    if keyword == "pattern":
        return value[1:-1] if value.startswith("^") and value.endswith("$") else f"^{value}$"
    if keyword == "$ref":
        return "#" if value != "#" else None
    return f"{value} (revised)" if " " in value else f"{value}_2"


def _appended(value: Any) -> Any:
    if not isinstance(value, list):
        return None
    numbers = [v for v in value if isinstance(v, int) and not isinstance(v, bool)]
    return [*value, max(numbers) + 1] if numbers else [*value, "unlisted" if "unlisted" not in value else "unlisted_2"]


def _dropped(value: Any) -> Any:
    return value[:-1] if isinstance(value, list) and len(value) > 1 else None


def _type_loosened(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    types = [value] if isinstance(value, str) else value if isinstance(value, list) else None
    return None if types is None or "null" in types else [*types, "null"]


def _type_changed(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    return "integer" if value == "string" else "string" if isinstance(value, str) else None


def _one_more_required(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    properties = node.get("properties")
    if not isinstance(value, list) or not isinstance(properties, dict):
        return None
    optional = sorted(name for name in properties if name not in value)
    return [*value, optional[0]] if optional else None


def _map_dropped(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    return dict(list(value.items())[:-1]) if isinstance(value, dict) and value else None


def _map_grown(keyword: str, value: Any, node: dict[str, Any]) -> Any:
    if not isinstance(value, dict):
        return None
    name = next(f"added_{i}" for i in range(1, len(value) + 2) if f"added_{i}" not in value)
    return {**value, name: {"type": "string"}}


_EDITS = {
    (Shape.COUNT, Op.LOOSEN): lambda k, v, n: _bound(k, v, wider=True),
    (Shape.COUNT, Op.TIGHTEN): lambda k, v, n: _bound(k, v, wider=False),
    (Shape.NUMBER, Op.LOOSEN): lambda k, v, n: _bound(k, v, wider=True),
    (Shape.NUMBER, Op.TIGHTEN): lambda k, v, n: _bound(k, v, wider=False),
    (Shape.BOOLEAN, Op.CHANGE): lambda k, v, n: (not v) if isinstance(v, bool) else None,
    (Shape.STRING, Op.CHANGE): _string,
    (Shape.TYPE, Op.LOOSEN): _type_loosened,
    (Shape.TYPE, Op.TIGHTEN): lambda k, v, n: _dropped(v),
    (Shape.TYPE, Op.CHANGE): _type_changed,
    (Shape.VALUES, Op.LOOSEN): lambda k, v, n: _appended(v),
    (Shape.VALUES, Op.TIGHTEN): lambda k, v, n: _dropped(v),
    (Shape.ANY, Op.CHANGE): lambda k, v, n: _other(v),
    (Shape.STRINGS, Op.LOOSEN): lambda k, v, n: (
        _dropped(v) if isinstance(v, list) and len(v) > 1 else ([] if v else None)
    ),
    (Shape.STRINGS, Op.TIGHTEN): _one_more_required,
    (Shape.SCHEMA, Op.LOOSEN): lambda k, v, n: True if v is not True else None,
    (Shape.SCHEMA, Op.TIGHTEN): lambda k, v, n: False if v is not False else None,
    (Shape.SCHEMA_MAP, Op.LOOSEN): _map_dropped,
    (Shape.SCHEMA_MAP, Op.TIGHTEN): _map_grown,
    (Shape.SCHEMA_ARRAY, Op.LOOSEN): lambda k, v, n: [*v, True] if isinstance(v, list) else None,
    (Shape.SCHEMA_ARRAY, Op.TIGHTEN): lambda k, v, n: _dropped(v),
}


def _retyped(shape: Shape, value: Any) -> Any:
    """A value of another JSON type that Python's `==` (or a host that folds a one-type list to its
    type, or `{}` to `true`) takes for the same: 1 → 1.0, true → 1, "string" → ["string"]."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if shape is Shape.TYPE:
        return [value] if isinstance(value, str) else value[0] if isinstance(value, list) and len(value) == 1 else None
    if shape is Shape.SCHEMA:
        return True if value == {} else {} if value is True else None
    if shape is Shape.VALUES and isinstance(value, list):
        retyped = [_retyped(Shape.ANY, item) for item in value]
        return (
            None
            if all(item is None for item in retyped)
            else [item if new is None else new for item, new in zip(value, retyped, strict=True)]
        )
    return None


#: What an added keyword holds, by shape: a value that constrains (or annotates) the node.
_ADDED: Mapping[Shape, Any] = {
    Shape.SCHEMA: {"type": "string"},
    Shape.SCHEMA_ARRAY: [{"type": "string"}],
    Shape.COUNT: 1,
    Shape.NUMBER: 1,
    Shape.BOOLEAN: True,
    Shape.STRING: "Added by a normaliser.",
    Shape.VALUES: ["added"],
    Shape.ANY: "added",
}


def _added(shape: Shape, keyword: str, node: dict[str, Any]) -> Any:
    if keyword in NOT_ADDED or keyword in node:
        return None
    properties = [name for name in node.get("properties", {}) if isinstance(name, str)]
    if shape is Shape.STRINGS:
        return [sorted(properties)[0]] if properties else None
    if shape is Shape.STRINGS_MAP:
        return {properties[0]: properties[1:2]} if len(properties) > 1 else None
    if shape is Shape.SCHEMA_MAP:
        return {"added": {"type": "string"}}
    if shape is Shape.TYPE:
        return "object" if properties else "string"
    if keyword == "format":
        return "date-time"
    if keyword == "pattern":
        return "^[A-Za-z0-9_-]+$"
    return _ADDED.get(shape)
