"""One codec between the engine's frozen records and JSON, and the JSON Schema of the same types.

A record is a frozen dataclass whose fields are JSON-shaped: `str`, `int`, `float`, `bool`,
`None`, string enums (by value), dates (ISO), labels (`Boundary`, as the string it prints as), tuples
(arrays), `dict[str, T]`, other records, and unions of them. A record that is one member of a union of records names
itself with a `tag`
class attribute, written as its `"type"`. Every field is written, always, so every field is
required on reading.

Writing is orjson's (records pass through `_fields_of`); reading checks every value against its
declared type and names where it is wrong by JSON path; the schema is derived from the same
declarations, so the three cannot drift apart.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from toolsurface.scenarios import Boundary

T = TypeVar("T")

#: Values written as the label they print as and read back by their `parse`: how case ids spell them.
_LABELS: tuple[type, ...] = (Boundary,)

#: Reads one JSON value at a JSON path into a typed value, or raises `DecodeError`.
Decoder = Callable[[Any, str], Any]


class DecodeError(ValueError):
    """A JSON value that is not what its declared type says; `path` is where, as `$.a[0].b`."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def dumps(value: Any) -> bytes:
    """`value` (a record, or JSON-shaped data holding records) as compact JSON."""
    return orjson.dumps(value, default=_fields_of, option=orjson.OPT_PASSTHROUGH_DATACLASS)


def decode(cls: type[T], data: Any, path: str = "$") -> T:
    """`data` (parsed JSON) as a `cls`; a `DecodeError` naming the first value that is not."""
    tp: Any = cls  # any declared type, not only a class: `tuple[Insert, ...]` is one too
    return typing.cast(T, _decoder(tp)(data, path))


def tag_of(cls: type) -> str | None:
    return typing.cast("str | None", getattr(cls, "tag", None))


def _fields_of(value: Any) -> dict[str, Any] | str:
    if isinstance(value, _LABELS):
        return str(value)
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        raise TypeError(f"{type(value).__name__} is not a record")
    cls = type(value)
    written = {"type": tag} if (tag := tag_of(cls)) else {}
    for name in _names(cls):
        written[name] = getattr(value, name)
    return written


@functools.cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {name: hints[name] for name in _names(cls)}


# Reading: one decoder per type, built once.


@functools.cache
def _decoder(tp: Any) -> Decoder:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is type(None) or tp is None:
        return _expect(lambda value: value is None, "null", lambda value: None)
    if tp in _SCALARS:
        check, what = _SCALARS[tp]
        return _expect(check, what, lambda value: value)
    if tp is datetime.date:
        return _date
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    if tp in _LABELS:
        return _label_decoder(tp)
    if origin is tuple:
        return _tuple_decoder(args)
    if origin is dict:
        return _dict_decoder(args[1])
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(args)
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record_decoder(tp)
    raise TypeError(f"the codec cannot read {tp!r}")


_SCALARS: dict[Any, tuple[Callable[[Any], bool], str]] = {
    str: (lambda value: isinstance(value, str), "a string"),
    bool: (lambda value: isinstance(value, bool), "true or false"),
    int: (lambda value: isinstance(value, int) and not isinstance(value, bool), "an integer"),
    float: (lambda value: isinstance(value, int | float) and not isinstance(value, bool), "a number"),
}


def _expect(check: Callable[[Any], bool], what: str, convert: Callable[[Any], Any]) -> Decoder:
    def read(value: Any, path: str) -> Any:
        if not check(value):
            raise DecodeError(path, f"expected {what}, found {_shown(value)}")
        return convert(value)

    return read


def _date(value: Any, path: str) -> datetime.date:
    if isinstance(value, str):
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise DecodeError(path, f"expected a date, YYYY-MM-DD, found {_shown(value)}")


def _enum_decoder(cls: type[enum.Enum]) -> Decoder:
    members = {member.value: member for member in cls}

    def read(value: Any, path: str) -> Any:
        if isinstance(value, str | int) and not isinstance(value, bool) and value in members:
            return members[value]
        raise DecodeError(path, f"expected one of {', '.join(map(repr, members))}, found {_shown(value)}")

    return read


def _label_decoder(cls: Any) -> Decoder:
    def read(value: Any, path: str) -> Any:
        if not isinstance(value, str):
            raise DecodeError(path, f"expected a string, found {_shown(value)}")
        try:
            return cls.parse(value)
        except ValueError as problem:
            raise DecodeError(path, str(problem)) from None

    return read


def _tuple_decoder(args: tuple[Any, ...]) -> Decoder:
    if len(args) == 2 and args[1] is Ellipsis:
        item = _decoder(args[0])

        def read_all(value: Any, path: str) -> tuple[Any, ...]:
            if not isinstance(value, list):
                raise DecodeError(path, f"expected an array, found {_shown(value)}")
            return tuple(item(entry, f"{path}[{index}]") for index, entry in enumerate(value))

        return read_all
    items = tuple(_decoder(arg) for arg in args)

    def read_fixed(value: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(value, list) or len(value) != len(items):
            raise DecodeError(path, f"expected an array of {len(items)}, found {_shown(value)}")
        return tuple(
            item(entry, f"{path}[{index}]") for index, (item, entry) in enumerate(zip(items, value, strict=True))
        )

    return read_fixed


def _dict_decoder(value_type: Any) -> Decoder:
    item = _decoder(value_type)

    def read(value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise DecodeError(path, f"expected an object, found {_shown(value)}")
        return {key: item(entry, _member(path, key)) for key, entry in value.items()}

    return read


def _union_decoder(args: tuple[Any, ...]) -> Decoder:
    records = [arg for arg in args if isinstance(arg, type) and dataclasses.is_dataclass(arg)]
    others = [_decoder(arg) for arg in args if arg not in records]
    if len(records) > 1 and not all(tag_of(record) for record in records):
        raise TypeError(f"records in a union need a `tag` to tell them apart: {args}")
    tagged = {tag_of(record): _decoder(record) for record in records}

    def read(value: Any, path: str) -> Any:
        if isinstance(value, dict) and tagged:
            kind = value.get("type") if len(tagged) > 1 else next(iter(tagged))
            # Between tagged records, a "type" that is not a string (an array, an object) names none of them.
            if (len(tagged) > 1 and not isinstance(kind, str)) or kind not in tagged:
                raise DecodeError(
                    _member(path, "type"), f"expected one of {', '.join(map(repr, tagged))}, found {_shown(kind)}"
                )
            return tagged[kind](value, path)
        problems = []
        for other in others:
            try:
                return other(value, path)
            except DecodeError as problem:
                problems.append(problem.message.partition(", found")[0].removeprefix("expected "))
        problems += ["an object"] * bool(tagged)
        raise DecodeError(path, f"expected {' or '.join(problems)}, found {_shown(value)}")

    return read


def _record_decoder(cls: type) -> Decoder:
    # Resolved on first use, not here: a record may hold itself, and its hints may name types
    # defined after it.
    def read(value: Any, path: str) -> Any:
        if not isinstance(value, dict):
            raise DecodeError(path, f"expected an object ({cls.__name__}), found {_shown(value)}")
        fields = _field_decoders(cls)
        tag = tag_of(cls)
        for key in value:
            if key not in fields and not (tag and key == "type"):
                raise DecodeError(_member(path, key), f"unexpected key in {cls.__name__}")
        if tag and value.get("type") != tag:
            raise DecodeError(_member(path, "type"), f"expected {tag!r}, found {_shown(value.get('type'))}")
        missing = [name for name in fields if name not in value]
        if missing:
            raise DecodeError(path, f"missing {', '.join(map(repr, missing))} of {cls.__name__}")
        values = {name: read_field(value[name], _member(path, name)) for name, read_field in fields.items()}
        try:
            return cls(**values)
        except (TypeError, ValueError) as problem:  # the record's own checks, such as a position below 0
            raise DecodeError(path, f"not a valid {cls.__name__}: {problem}") from None

    return read


@functools.cache
def _field_decoders(cls: type) -> dict[str, Decoder]:
    return {name: _decoder(hint) for name, hint in _hints(cls).items()}


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{orjson.dumps(key).decode()}]"


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return f"an array of {len(value)}"
    text = orjson.dumps(value).decode() if isinstance(value, str | int | float | bool | None) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "…"


# The schema: the same declarations, as JSON Schema (draft 2020-12).


def schema(cls: type, **about: Any) -> dict[str, Any]:
    """The JSON Schema of `cls` as the codec writes and reads it; `about` adds top-level keywords."""
    definitions = _Definitions()
    root = _schema_of(cls, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **about,
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


class _Definitions(dict[str, dict[str, Any]]):
    """The `$defs` of a schema by record name, and which class owns each name."""

    def __init__(self) -> None:
        super().__init__()
        self.owners: dict[str, type] = {}


def _schema_of(tp: Any, definitions: _Definitions) -> dict[str, Any]:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is type(None) or tp is None:
        return {"type": "null"}
    simple = {str: "string", bool: "boolean", int: "integer", float: "number"}
    if tp in simple:
        return {"type": simple[tp]}
    if tp is datetime.date:
        return {"type": "string", "format": "date"}
    if tp in _LABELS:
        return {"type": "string"}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return {"enum": [member.value for member in tp]}
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return {"type": "array", "items": _schema_of(args[0], definitions)}
    if origin is tuple:
        items = [_schema_of(arg, definitions) for arg in args]
        return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    if origin is dict:
        return {"type": "object", "additionalProperties": _schema_of(args[1], definitions)}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_schema_of(arg, definitions) for arg in args]}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _record_schema(tp, definitions)
    raise TypeError(f"the codec cannot describe {tp!r}")


def _record_schema(cls: type, definitions: _Definitions) -> dict[str, Any]:
    name = cls.__name__
    reference = {"$ref": f"#/$defs/{name}"}
    if name in definitions:
        if definitions.owners[name] is not cls:
            raise TypeError(
                f"two records are called {name}: {_qualified(definitions.owners[name])} and {_qualified(cls)}"
            )
        return reference
    definition: dict[str, Any] = {}
    definitions[name], definitions.owners[name] = definition, cls  # before the fields: a record may hold itself
    properties = {"type": {"const": tag}} if (tag := tag_of(cls)) else {}
    properties.update({field: _schema_of(hint, definitions) for field, hint in _hints(cls).items()})
    definition.update(type="object", additionalProperties=False, required=list(properties), properties=properties)
    if cls.__doc__ and not cls.__doc__.startswith(f"{name}("):  # not the dataclass's generated signature
        definition["description"] = cls.__doc__.strip().splitlines()[0]
    return reference


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
