"""Copies of tool lists and schemas, shallow and deep."""

from __future__ import annotations

import copy
import json
from typing import Any, Iterable, Mapping


def snapshot_tools(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """An independent copy of a tool list: nothing in it is shared with the original.

    A JSON round trip keeps integers exact and text as written, which is what
    the comparison in :mod:`support.diffing` sees.
    """
    return json.loads(json.dumps(list(tools), ensure_ascii=False))


def clone_tools(tools: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A new list of new tool mappings, cheap enough to take on every request."""
    return [dict(tool) for tool in tools]


def snapshot_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of one JSON schema."""
    return copy.deepcopy(dict(schema))
