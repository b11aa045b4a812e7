"""The market desk's research tools."""

from __future__ import annotations

from typing import Any

from agentcore import StaticToolset, ToolDef, clone_schema

from .registry import wrap_function

_SEARCH = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to search the web for."},
        "recency_days": {"type": "integer", "minimum": 1, "maximum": 365},
    },
    "required": ["query"],
}

_READ = {
    "type": "object",
    "properties": {"url": {"type": "string", "format": "uri"}},
    "required": ["url"],
}

_QUOTE = {
    "type": "object",
    "properties": {
        "isin": {"type": "string", "pattern": "^[A-Z]{2}[A-Z0-9]{9}[0-9]$"},
        "currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "CHF"]},
    },
    "required": ["isin"],
}


def lookup_quote(isin: str, currency: str = "EUR") -> dict[str, Any]:
    """Last traded price of a listed instrument."""
    raise NotImplementedError("served by the market data adapter")


quote_tool = wrap_function(lookup_quote, _QUOTE, name="market__quote")


def market_tools() -> list[ToolDef]:
    """Fresh definitions of the market desk's tools."""
    return [
        ToolDef(
            name="market__web_search",
            description="Search the public web for market news and filings.",
            parameters=clone_schema(_SEARCH),
        ),
        ToolDef(
            name="market__web_read",
            description="Read a web page found by market__web_search.",
            parameters=clone_schema(_READ),
        ),
        quote_tool.definition,
    ]


class MarketToolset(StaticToolset):
    """The market desk's tools, optionally namespaced per lane."""

    def for_lane(self, lane: str) -> "MarketToolset":
        return MarketToolset(self.tools, prefix=f"{lane}__")

    def names(self) -> list[str]:
        return [definition.name for definition in self.get_tools()]


def default_toolset() -> MarketToolset:
    return MarketToolset(market_tools())
