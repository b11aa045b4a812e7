"""OTLP JSON as the OTLP file exporters write it: values, attributes, ids and the spans of an export.

An export is `{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`; an attribute is
`{"key": ..., "value": {"stringValue" | "intValue" | ...: ...}}`, and the trace and span ids are
hex. It is the protobuf JSON mapping with those ids turned to hex, and the mapping's own base64 ids
are read too, as are its spellings of int64 (a string) and of the non-finite doubles.
"""

from __future__ import annotations

import base64
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from toolsurface.contract._json import loads as exact_json

from ._import_common import Problem, list_at, object_at

_T = TypeVar("_T")
_HEX = re.compile(r"[0-9a-fA-F]+")
_DOUBLES = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


@dataclass(frozen=True, slots=True)
class Attribute:
    """One attribute's value, and the JSON path of its entry (for problems)."""

    value: Any
    path: str


def decode_value(raw: Any, path: str) -> Any:
    """What an OTLP JSON `AnyValue` holds: str, bool, int, float, bytes, a list or a dict of them;
    None for an empty one."""
    value = object_at(raw, path, "an OTLP AnyValue")
    if not value:
        return None
    if len(value) != 1:
        raise Problem(path, f"expected one value kind, found {', '.join(map(repr, sorted(value)))}")
    ((kind, inner),) = value.items()
    where = f"{path}.{kind}"
    if kind == "stringValue" and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and not isinstance(inner, bool) and isinstance(inner, int | str):
        try:
            return int(inner)  # the protobuf JSON mapping writes an int64 as a string
        except ValueError:
            pass
    if kind == "doubleValue" and not isinstance(inner, bool) and isinstance(inner, int | float | str):
        if not isinstance(inner, str):
            return float(inner)
        if inner in _DOUBLES:  # the protobuf JSON mapping spells the non-finite doubles
            return _DOUBLES[inner]
    if kind == "bytesValue" and isinstance(inner, str):
        try:
            return base64.b64decode(inner, validate=True)
        except ValueError:  # binascii.Error, or text that is not ASCII
            pass
    if kind == "arrayValue" and isinstance(inner, dict):
        items = list_at(inner.get("values", []), f"{where}.values", "a list of values")
        return [decode_value(item, f"{where}.values[{index}]") for index, item in enumerate(items)]
    if kind == "kvlistValue" and isinstance(inner, dict):
        return {key: entry.value for key, entry in attributes(inner.get("values", []), f"{where}.values").items()}
    kinds = "stringValue, boolValue, intValue, doubleValue, bytesValue, arrayValue, kvlistValue"
    if kind in kinds.split(", "):
        raise Problem(where, f"{inner!r} is not a {kind}")
    raise Problem(path, f"{kind!r} is not a value kind (expected one of {kinds})")


def attributes(raw: Any, path: str) -> dict[str, Attribute]:
    """OTLP `KeyValue` entries by key (a key given twice: the last one)."""
    found: dict[str, Attribute] = {}
    for index, entry in enumerate(list_at(raw, path, "a list of attributes")):
        where = f"{path}[{index}]"
        entry = object_at(entry, where, "an attribute")
        key = entry.get("key", "")  # the protobuf JSON mapping leaves out an empty key
        if not isinstance(key, str):
            raise Problem(f"{where}.key", f"expected an attribute key (a string), found {type(key).__name__}")
        found[key] = Attribute(decode_value(entry.get("value", {}), f"{where}.value"), where)
    return found


def otlp_id(raw: Any, path: str, size: int) -> str | None:
    """A trace (16 bytes) or span (8 bytes) id as lower-case hex, from hex or base64; None for none."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        if len(raw) == 2 * size and _HEX.fullmatch(raw):
            return raw.lower()
        try:
            data = base64.b64decode(raw, validate=True)
        except ValueError:  # binascii.Error, or text that is not ASCII
            data = b""
        if len(data) == size:
            return data.hex()
    raise Problem(path, f"expected a {size}-byte id as {2 * size} hex digits (or base64), found {raw!r}")


def spans(document: Any) -> Iterator[tuple[str, dict[str, Any]]]:
    body = object_at(document, "$", "an OTLP trace export")
    if "resourceSpans" not in body:
        raise Problem("$", "expected an OTLP trace export with 'resourceSpans'")
    for r, resource in enumerate(list_at(body["resourceSpans"], "$.resourceSpans", "a list of resource spans")):
        base = f"$.resourceSpans[{r}]"
        scopes = object_at(resource, base, "resource spans").get("scopeSpans", [])
        for s, scope in enumerate(list_at(scopes, f"{base}.scopeSpans", "a list of scope spans")):
            where = f"{base}.scopeSpans[{s}]"
            spans = object_at(scope, where, "scope spans").get("spans", [])
            for index, span in enumerate(list_at(spans, f"{where}.spans", "a list of spans")):
                yield f"{where}.spans[{index}]", object_at(span, f"{where}.spans[{index}]", "a span")


def within(key: str, attribute: Attribute, read: Callable[[Any, str], _T], plain_text: bool = False) -> _T:
    """`read` applied to an attribute that holds JSON (as a string, or structured); a problem
    inside it is reported at the attribute, its path inside starting with `key`."""
    value = attribute.value
    if isinstance(value, str):
        try:
            value = exact_json(value)
        except orjson.JSONDecodeError as error:
            if not plain_text:
                raise Problem(attribute.path, f"{key}: not JSON: {error}") from None
    try:
        return read(value, key)
    except Problem as problem:
        raise Problem(attribute.path, f"{problem.path}: {problem}") from None


def indexed(found: dict[str, Attribute], prefix: str) -> list[dict[str, Attribute]]:
    """Attributes `prefix.N.rest` as one `{rest: attribute}` per N = 0, 1, … while N is present."""
    groups: list[dict[str, Attribute]] = []
    while True:
        head = f"{prefix}.{len(groups)}."
        group = {key[len(head) :]: value for key, value in found.items() if key.startswith(head)}
        if not group:
            return groups
        groups.append(group)
