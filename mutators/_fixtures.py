"""Tools and a conversation of a market-research agent, shared by the mutators' examples.

They are logical tool dicts (`name`, `description`, `input_schema`) as a recorded scenario holds
them. Examples only read them: the generic test builds fresh live tools from them each time.
"""

from __future__ import annotations

from typing import Any

from toolsurface.contract._facts import WebTools

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

#: The web search and web read the examples' owner facts govern.
WEB_TOOLS = WebTools(search=WEB_SEARCH["name"], read=WEB_READ["name"])

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


def _shelf_tool(index: int) -> dict[str, Any]:
    """One of a long list of small, distinct market-data tools."""
    return {
        "name": f"market__get_sector_snapshot_{index:02d}",
        "description": (
            f"Read the daily snapshot of GICS sector panel {index:02d}: constituents, returns and valuation."
        ),
        "input_schema": {"type": "object", "properties": {"as_of": {"type": "string", "format": "date"}}},
    }


#: A list as long as real hosts send: 42 tools, more than Cursor's cap of 40.
SHELF: tuple[dict[str, Any], ...] = tuple(_shelf_tool(index) for index in range(42))

#: A name near the providers' 64-character limit (61 characters).
LONG_NAME: dict[str, Any] = {
    "name": "research_library__search_broker_notes_by_sector_region_and_date",
    "description": "Search licensed broker research notes by GICS sector, region and publication date.",
    "input_schema": {
        "type": "object",
        "properties": {
            "sector": {"type": "string"},
            "region": {"type": "string"},
            "since": {"type": "string", "format": "date"},
        },
        "required": ["sector"],
    },
}

#: A description of several paragraphs, past the 1,024 characters some hosts cut at.
LONG_DESCRIPTION: dict[str, Any] = {
    "name": "filings__search_regulatory_filings",
    "description": " ".join(
        [
            "Search regulatory filings (annual and interim reports, prospectuses, KIIDs and KIDs, holdings disclosures)"
            " by issuer, instrument or filing type, and return matching filings with their dates and "
            "source references.",
            *(
                f"Note {number}: filings are indexed within a day of publication by the regulator of the issuer's home"
                " market; amendments replace the filing they amend, and withdrawn filings are returned only when"
                " include_withdrawn is set. Cite a filing by its source reference, never by its URL."
                for number in range(1, 6)
            ),
        ]
    ),
    "input_schema": {
        "type": "object",
        "properties": {"issuer": {"type": "string"}, "filing_type": {"type": "string"}},
        "required": ["issuer"],
    },
}
