"""The catalogue of tools an installation offers, merged from every provider."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any, Iterable, Mapping

from relay.tools import FunctionTool
from relay_mcp.schemas import clone_schema, merge_into

_WORD = re.compile(r"[a-z0-9]+")


def snapshot_tools(specs: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Plain-dict copies of the specs, safe to serialise."""
    return [dict(s) for s in specs]


def render_names(tools: Iterable[FunctionTool]) -> str:
    return ", ".join(sorted(t.name for t in tools)) or "(none)"


def rank_by_relevance(tools: Iterable[FunctionTool], query: str) -> list[tuple[float, FunctionTool]]:
    """Score each tool by word overlap of its name and description with the query."""
    wanted = set(_WORD.findall(query.lower()))
    scored = []
    for tool in tools:
        words = set(_WORD.findall(f"{tool.name} {tool.description}".lower()))
        overlap = len(words & wanted) / (len(wanted) or 1)
        scored.append((overlap + tool.priority / 1000, tool))
    return sorted(scored, key=lambda pair: pair[0], reverse=True)


def apply_overrides(specs: list[dict[str, Any]], overrides: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Apply deployment overrides (descriptions, enum limits) to listed specs."""
    for spec in specs:
        if patch := overrides.get(spec["name"]):
            merge_into(spec["inputSchema"], patch)
    return specs


def tighten(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the schema that rejects unknown arguments."""
    fresh = clone_schema(schema)
    fresh["additionalProperties"] = False
    return fresh


def without_examples(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The schema without per-property examples, which some providers reject."""
    props = {k: dict(v) for k, v in schema.get("properties", {}).items()}
    for prop in props.values():
        prop.pop("examples", None)
    return {**schema, "properties": props}


class ToolCatalog:
    """Tools grouped by the server that listed them."""

    def __init__(self, tools: Iterable[FunctionTool] = ()) -> None:
        self.tools = list(tools)
        self._by_server: dict[str, Any] = {}
        self._tags: dict[str, set[str]] = defaultdict(set)

    def remember(self, server: str, listing: Any) -> None:
        """Record what a server listed, for diffing against its next listing."""
        self._by_server[server] = listing
        for tool in listing:
            self._tags[server].update(tool.tags)

    def copy(self) -> "ToolCatalog":
        clone = ToolCatalog(self.tools)
        clone._by_server = dict(self._by_server)
        return clone

    def listed_by(self, server: str) -> Any:
        return self._by_server.get(server, ())
