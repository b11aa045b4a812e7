"""Small helpers with no better home."""

from __future__ import annotations

import copy
import json
from typing import Iterable, Sequence, TypeVar

T = TypeVar("T")


def first_n(items: Iterable[T], n: int) -> list[T]:
    """At most n items, in order."""
    return list(items)[:n]


def copy_specs(specs: Iterable) -> list[dict]:
    """Plain-dict copies of tool specs, for comparisons and logs."""
    return list(map(dict, specs))


def deep_specs(specs: Iterable[T]) -> list[T]:
    """Copies of the specs that share nothing with them."""
    return [copy.deepcopy(s) for s in specs]


def estimate_tokens(spec) -> int:
    """A rough token count for offering one tool to a model."""
    text = json.dumps(spec.input_schema, sort_keys=True) + spec.description + spec.name
    return max(1, len(text) // 4)


def names(items: Sequence) -> list[str]:
    return [getattr(i, "name", None) or i["name"] for i in items]
