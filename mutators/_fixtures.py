"""Tools and a conversation of a market-research agent, shared by the mutators' examples.

They are logical tool dicts (`name`, `description`, `input_schema`) as a recorded scenario holds
them. Examples only read them: the generic test builds fresh live tools from them each time.
"""

from __future__ import annotations

from typing import Any

SEARCH: dict[str, Any] = {
    "name": "market__search_instruments",
    "description": "Search listed instruments (ETFs, stocks, bonds, funds) by name, ticker or ISIN.",
    "input_schema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Name, ticker or ISIN to look for."},
            "asset_class": {"type": "string", "enum": ["etf", "stock", "bond", "fund"]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
}

PROFILE: dict[str, Any] = {
    "name": "market__get_instrument_profile",
    "description": "Read the public profile of one instrument: issuer, fees, top holdings and performance.",
    "input_schema": {
        "type": "object",
        "properties": {
            "symbol": {"type": "string", "description": "Ticker or ISIN."},
            "sections": {
                "type": "array",
                "items": {"type": "string", "enum": ["overview", "fees", "holdings", "performance"]},
            },
        },
        "required": ["symbol"],
        "additionalProperties": False,
    },
}

WEB_SEARCH: dict[str, Any] = {
    "name": "market__web_search",
    "description": "Search public web sources for recent news and filings about an instrument.",
    "input_schema": {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 10},
        },
        "required": ["query"],
    },
}

WEB_READ: dict[str, Any] = {
    "name": "market__web_read",
    "description": "Read one public web page found by market__web_search and return its text.",
    "input_schema": {
        "type": "object",
        "properties": {"url": {"type": "string", "format": "uri"}},
        "required": ["url"],
    },
}

HOLDINGS: dict[str, Any] = {
    "name": "portfolio__get_holdings",
    "description": "List the user's current holdings with quantity, cost basis and currency.",
    "input_schema": {
        "type": "object",
        "properties": {
            "account": {"$ref": "#/$defs/AccountRef"},
            "as_of": {"type": "string", "format": "date"},
        },
        "required": ["account"],
        "$defs": {
            "AccountRef": {
                "type": "string",
                "description": "Account id as shown in the portfolio.",
                "pattern": "^acc_[0-9a-z]{8}$",
            }
        },
    },
}

#: The control tool only the host/fitting entry may admit.
READ_TOOL_RESULT: dict[str, Any] = {
    "name": "read_tool_result",
    "description": "Read the full stored result of an earlier tool call by its result id.",
    "input_schema": {
        "type": "object",
        "properties": {"result_id": {"type": "string"}},
        "required": ["result_id"],
    },
}

#: A research turn long enough to be compressed.
CONVERSATION: tuple[dict[str, str], ...] = (
    {"role": "system", "content": "You are a research assistant for listed funds. Cite sources."},
    {"role": "user", "content": "Compare the fees of VWCE and IWDA."},
    {"role": "assistant", "content": "Looking up both profiles."},
    {"role": "user", "content": "Also check whether either had news this month."},
    {"role": "assistant", "content": "Searching recent news for both funds."},
)

#: The holdings tool as a Python MCP SDK generates its input schema: a title on every node.
TITLED_HOLDINGS: dict[str, Any] = {
    "name": "portfolio__get_holdings",
    "description": "List the user's current holdings with quantity, cost basis and currency.",
    "input_schema": {
        "title": "get_holdingsArguments",
        "type": "object",
        "properties": {
            "account": {"title": "Account", "type": "string", "description": "Account id as shown in the portfolio."},
            "as_of": {"title": "As Of", "type": "string", "format": "date", "default": "today"},
        },
        "required": ["account"],
    },
}

#: The same tool as an MCP server lists it, with a display title, behaviour hints and an output
#: schema (wire fields, by their scenario names).
MCP_HOLDINGS: dict[str, Any] = {
    **TITLED_HOLDINGS,
    "title": "Portfolio holdings",
    "annotations": {"title": "Portfolio holdings", "readOnlyHint": True, "openWorldHint": False},
    "output_schema": {
        "type": "object",
        "properties": {
            "holdings": {"type": "array", "items": {"type": "object"}},
            "currency": {"type": "string"},
        },
        "required": ["holdings"],
    },
}
