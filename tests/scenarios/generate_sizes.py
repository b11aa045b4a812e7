"""Writes the bundled recordings at real sizes: the research desk's host with 46, 128 and 140 tools.

Deterministic (no randomness, no clock): running it again writes the same bytes. The JSON it
writes is what ships; this script is kept to regenerate them after a change to the catalogue.

    python -m tests.scenarios.generate_sizes
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "bundled"

# -- input schemas, built from the parameters research tools share --------------------------------

_PARAMS: dict[str, dict[str, Any]] = {
    "symbol": {"type": "string", "pattern": "^[A-Z0-9.]{1,16}$", "description": "Exchange ticker, e.g. 'VWRL.L'."},
    "isin": {"type": "string", "pattern": "^[A-Z]{2}[A-Z0-9]{9}[0-9]$", "description": "ISIN of the instrument."},
    "account_id": {"type": "string", "pattern": "^acc_[0-9a-z]{8}$", "description": "Client account id."},
    "as_of": {"type": "string", "format": "date", "description": "Valuation date; the latest close when omitted."},
    "start": {"type": "string", "format": "date", "description": "First day of the window, inclusive."},
    "end": {"type": "string", "format": "date", "description": "Last day of the window, inclusive."},
    "currency": {"type": "string", "enum": ["GBP", "EUR", "USD", "CHF", "JPY"], "default": "GBP"},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20},
    "query": {"type": "string", "minLength": 2, "description": "Free text: a name, a ticker or a phrase."},
    "sector": {
        "type": "string",
        "enum": [
            "energy",
            "materials",
            "industrials",
            "consumer",
            "health",
            "financials",
            "technology",
            "utilities",
            "real_estate",
        ],
    },
    "region": {"type": "string", "enum": ["uk", "europe", "north_america", "japan", "asia_pacific", "emerging"]},
    "frequency": {"type": "string", "enum": ["daily", "weekly", "monthly"], "default": "daily"},
    "benchmark": {"type": "string", "description": "Benchmark index code, e.g. 'FTSE_AW'."},
    "source_ref": {"type": "string", "pattern": "^src_[0-9a-f]{4}$", "description": "Source reference to cite."},
    "fields": {
        "type": "array",
        "items": {"type": "string"},
        "uniqueItems": True,
        "description": "Fields to return; all when omitted.",
    },
}


#: Paging, which every listing tool of the desk takes.
_PAGE = {
    "type": "object",
    "description": "Paging: the cursor a previous call returned, and how many records each page holds at most.",
    "properties": {
        "cursor": {
            "type": "string",
            "description": "next_cursor from the previous page of results; the first page when omitted.",
        },
        "size": {"type": "integer", "minimum": 1, "maximum": 200, "default": 50},
    },
    "additionalProperties": False,
}


def _schema(required: list[str], optional: list[str]) -> dict[str, Any]:
    names = required + optional
    return {
        "type": "object",
        "properties": {**{name: _PARAMS[name] for name in names}, "page": _PAGE},
        "required": required,
        "additionalProperties": False,
    }


def _recorded() -> dict[str, dict[str, Any]]:
    """Tools the other bundled recordings already carry: a tool reads the same in every file."""
    tools: dict[str, dict[str, Any]] = {}
    for path in sorted(BUNDLED.glob("*.json")):
        if path.name.startswith("desk-"):
            continue
        contract = json.loads(path.read_text(encoding="utf-8"))["contract"]
        for group in ("admitted", "controls", "admitted_elsewhere"):
            for tool in contract.get(group, ()):
                tools.setdefault(tool["name"], tool)
    return tools


# -- the catalogue: (name, what it does, required, optional) ---------------------------------------

_DESKS: list[tuple[str, str, list[tuple[str, str, list[str], list[str]]]]] = [
    (
        "market",
        "market data",
        [
            (
                "search_instruments",
                "Search listed instruments (ETFs, stocks, bonds, funds) by name, ticker or ISIN",
                ["query"],
                ["limit"],
            ),
            (
                "get_instrument_profile",
                "Read the public profile of one instrument: issuer, fees, top holdings and performance",
                ["symbol"],
                ["as_of"],
            ),
            (
                "get_price_history",
                "Read closing prices of one instrument over a window",
                ["symbol", "start"],
                ["end", "frequency", "currency"],
            ),
            ("get_intraday_quotes", "Read delayed intraday quotes of one instrument", ["symbol"], ["limit"]),
            (
                "get_dividend_history",
                "List the dividends one instrument paid over a window",
                ["symbol", "start"],
                ["end", "currency"],
            ),
            (
                "get_corporate_actions",
                "List splits, mergers and rights issues of one instrument",
                ["symbol"],
                ["start", "end"],
            ),
            (
                "compare_instruments",
                "Compare fees, size and performance of instruments side by side",
                ["query"],
                ["as_of", "currency"],
            ),
            (
                "get_index_constituents",
                "List the constituents of a benchmark index with their weights",
                ["benchmark"],
                ["as_of", "limit"],
            ),
            (
                "get_fx_rates",
                "Read spot and historical exchange rates against one base currency",
                ["currency"],
                ["as_of"],
            ),
            (
                "web_search",
                "Search the public web for news and documents about instruments and issuers",
                ["query"],
                ["limit"],
            ),
            (
                "web_read",
                "Read one public web page found by market__web_search and return its text",
                ["source_ref"],
                [],
            ),
        ],
    ),
    (
        "portfolio",
        "client portfolios (read-only)",
        [
            (
                "get_holdings",
                "List the positions held in one client account as of a date",
                ["account_id"],
                ["as_of", "fields"],
            ),
            (
                "get_transactions",
                "List the trades and cash movements of one client account over a window",
                ["account_id", "start"],
                ["end", "limit"],
            ),
            (
                "get_performance",
                "Read the time-weighted return of one client account against a benchmark",
                ["account_id", "start"],
                ["end", "benchmark", "currency"],
            ),
            (
                "get_allocation",
                "Break one client account down by asset class, region and sector",
                ["account_id"],
                ["as_of"],
            ),
            (
                "get_cash_forecast",
                "Forecast the cash balance of one client account from settlements and income",
                ["account_id"],
                ["end", "currency"],
            ),
            (
                "get_cost_basis",
                "Read the cost basis and unrealised gain of each position",
                ["account_id"],
                ["as_of", "currency"],
            ),
            (
                "get_look_through_exposure",
                "Look through fund holdings to the single stocks a client account holds",
                ["account_id"],
                ["as_of", "limit"],
            ),
        ],
    ),
    (
        "risk",
        "risk analytics",
        [
            (
                "compute_value_at_risk",
                "Compute the one-day historical value at risk of a client account",
                ["account_id"],
                ["as_of", "currency"],
            ),
            (
                "compute_tracking_error",
                "Compute the tracking error of a client account against a benchmark",
                ["account_id", "benchmark"],
                ["start", "end"],
            ),
            (
                "compute_factor_exposure",
                "Estimate the style-factor exposures of a client account",
                ["account_id"],
                ["as_of"],
            ),
            (
                "compute_concentration",
                "Measure single-name and sector concentration of a client account",
                ["account_id"],
                ["as_of", "limit"],
            ),
            (
                "run_stress_scenario",
                "Revalue a client account under a named historical stress scenario",
                ["account_id", "query"],
                ["currency"],
            ),
            (
                "compute_drawdowns",
                "List the largest drawdowns of an instrument over a window",
                ["symbol", "start"],
                ["end"],
            ),
            (
                "compute_correlations",
                "Compute return correlations between instruments over a window",
                ["query", "start"],
                ["end", "frequency"],
            ),
        ],
    ),
    (
        "filings",
        "regulatory filings",
        [
            (
                "search_regulatory_filings",
                "Search regulatory filings by issuer, instrument or filing type",
                ["query"],
                ["start", "end", "limit"],
            ),
            (
                "get_annual_report",
                "Read the latest annual report of an issuer, section by section",
                ["symbol"],
                ["fields"],
            ),
            ("get_fund_factsheet", "Read the latest factsheet of a fund", ["isin"], ["as_of"]),
            ("get_key_information_document", "Read the key information document (KID) of a fund", ["isin"], []),
            (
                "get_holdings_disclosure",
                "Read the latest full holdings disclosure of a fund",
                ["isin"],
                ["as_of", "limit"],
            ),
            ("get_director_dealings", "List director dealings disclosed by an issuer", ["symbol"], ["start", "end"]),
        ],
    ),
    (
        "esg",
        "sustainability data",
        [
            ("get_esg_ratings", "Read the ESG ratings of an issuer from the licensed providers", ["symbol"], ["as_of"]),
            (
                "get_carbon_metrics",
                "Read carbon intensity and financed emissions of an instrument",
                ["symbol"],
                ["as_of"],
            ),
            ("get_controversy_flags", "List ESG controversies flagged for an issuer", ["symbol"], ["start", "limit"]),
            (
                "screen_exclusions",
                "Screen a client account against the house exclusion list",
                ["account_id"],
                ["as_of"],
            ),
            ("get_sfdr_classification", "Read the SFDR article classification of a fund", ["isin"], []),
        ],
    ),
    (
        "fixed_income",
        "bonds and rates",
        [
            (
                "get_bond_terms",
                "Read the terms of one bond: coupon, maturity, call schedule and seniority",
                ["isin"],
                [],
            ),
            ("get_yield_curve", "Read a government yield curve", ["currency"], ["as_of"]),
            (
                "compute_bond_analytics",
                "Compute yield, duration and convexity of one bond at a price",
                ["isin"],
                ["as_of"],
            ),
            ("get_credit_ratings", "Read the agency credit ratings of an issuer", ["symbol"], ["as_of"]),
            ("get_spread_history", "Read the credit spread of one bond over a window", ["isin", "start"], ["end"]),
        ],
    ),
    (
        "research_library",
        "licensed research",
        [
            (
                "search_broker_notes_by_sector_region_and_date",
                "Search licensed broker research notes by sector, region and publication date",
                ["sector"],
                ["region", "start", "end", "limit"],
            ),
            (
                "get_house_view",
                "Read the investment committee's current house view on an asset class",
                ["query"],
                ["as_of"],
            ),
            ("get_analyst_estimates", "Read consensus analyst estimates of an issuer", ["symbol"], ["fields"]),
            (
                "get_earnings_call_transcript",
                "Read the transcript of an issuer's latest earnings call",
                ["symbol"],
                ["as_of"],
            ),
        ],
    ),
    (
        "macro",
        "macroeconomic data",
        [
            (
                "get_economic_series",
                "Read a macroeconomic time series (inflation, growth, employment)",
                ["query", "start"],
                ["end", "frequency"],
            ),
            ("get_central_bank_rates", "Read policy rates of the central banks", ["currency"], ["start", "end"]),
            (
                "get_commodity_prices",
                "Read benchmark commodity prices over a window",
                ["query", "start"],
                ["end", "currency"],
            ),
            (
                "search_economic_calendar_by_region_and_release_importance",
                "Search scheduled economic releases by region and importance",
                ["region"],
                ["start", "end", "limit"],
            ),
        ],
    ),
    (
        "compliance",
        "suitability and compliance (read-only)",
        [
            (
                "get_client_risk_profile",
                "Read the recorded risk profile and capacity for loss of a client account",
                ["account_id"],
                [],
            ),
            (
                "check_product_governance_target_market",
                "Check a fund's target market against a client account's profile",
                ["account_id", "isin"],
                [],
            ),
            (
                "get_restricted_list",
                "Read the house list of instruments restricted from research output",
                [],
                ["as_of"],
            ),
            (
                "get_research_disclaimer_by_jurisdiction_and_category",
                "Read the disclaimer research output must carry for a jurisdiction",
                ["region"],
                [],
            ),
        ],
    ),
    (
        "notes",
        "the desk's research notes",
        [
            ("search_notes", "Search the desk's own research notes", ["query"], ["start", "limit"]),
            ("get_note", "Read one of the desk's research notes", ["source_ref"], []),
            ("list_watchlist", "List the instruments on the desk's watchlist", [], ["sector", "region"]),
        ],
    ),
]

#: Names near the providers' 64-character limit, beside the long catalogue names above.
_LONG = [
    "market__get_sector_snapshot_with_constituents_and_valuations",
]


def _long_description(namespace: str, action: str, what: str, kind: str, paragraphs: int) -> str:
    """A description of several KB, as real tool listings carry: usage notes, fields, limits, caveats."""
    name = f"{namespace}__{action}"
    parts = [
        f"{what}. Part of the {kind} tools of the research desk; read-only: it never places, changes or "
        "cancels orders, "
        "and it never writes to a client record.",
        "When to use it: call it once per instrument or account the user asked about; do not call it in a loop over a "
        f"whole watchlist, and prefer a single call with a wider window to several narrow ones. {name} "
        "answers from the "
        "desk's licensed data and is authoritative for the figures it returns; public web pages are not.",
    ]
    for number in range(1, paragraphs + 1):
        parts.append(
            f"Note {number}. Figures are as of the close of the market the instrument trades on, in the currency "
            "requested (GBP when omitted), converted at the WM/Reuters 4pm London fix of the same day. Every figure "
            "carries a source reference (src_xxxx) that must be cited beside it in the answer; a figure without one "
            "must not be quoted. Data older than five business days is marked stale and should be presented as such. "
            f"Rate limit: 60 calls a minute per desk; over it, {name} returns a retry_after field and no "
            "data, which is "
            "a transient condition and says nothing about whether the tool is available this turn."
        )
    parts.append(
        "Returned fields: results (a list of records), as_of (the date the data refers to), currency, source_refs, "
        "stale (true when older than five business days) and next_cursor when more records exist."
    )
    return "\n\n".join(parts)


def catalogue() -> list[dict[str, Any]]:
    """Every tool of the desk's host, in the order the host lists them (140 tools)."""
    tools: list[dict[str, Any]] = []
    long_every = 9  # every ninth tool carries a long, several-KB description
    for namespace, kind, entries in _DESKS:
        for action, what, required, optional in entries:
            position = len(tools)
            if position % long_every == 4:
                description = _long_description(namespace, action, what, kind, paragraphs=4 + position % 7)
            else:
                description = f"{what}. Read-only; every figure comes with a source reference to cite."
            tools.append(
                {
                    "name": f"{namespace}__{action}",
                    "description": description,
                    "input_schema": _schema(required, optional),
                }
            )
    for name in _LONG:
        tools.append(
            {
                "name": name,
                "description": "Read one GICS sector's daily snapshot: constituents, returns and valuation multiples.",
                "input_schema": _schema(["sector"], ["region", "as_of"]),
            }
        )
    # Per-sector and per-region screens fill the list to the length real hosts reach.
    for sector in _PARAMS["sector"]["enum"]:
        for region in _PARAMS["region"]["enum"]:
            tools.append(
                {
                    "name": f"screens__{sector}_{region}_equity_screen",
                    "description": f"Run the desk's saved equity screen for {sector.replace('_', ' ')} in "
                    f"{region.replace('_', ' ')}: "
                    "quality, value and momentum scores of the screen's constituents, ranked. Read-only.",
                    "input_schema": _schema([], ["as_of", "limit", "fields"]),
                }
            )
    for sector in _PARAMS["sector"]["enum"]:
        tools.append(
            _simple(
                f"research_library__{sector}_sector_primer",
                f"Read the desk's current primer on the {sector.replace('_', ' ')} sector",
                ["region"],
            )
        )
    for region in _PARAMS["region"]["enum"]:
        tools.append(
            _simple(
                f"macro__{region}_economic_dashboard",
                f"Read the economic dashboard of {region.replace('_', ' ')}: growth, inflation, rates",
                ["as_of"],
            )
        )
    for currency in _PARAMS["currency"]["enum"]:
        tools.append(
            _simple(
                f"fixed_income__{currency.lower()}_government_bond_screen",
                f"Screen {currency} government bonds by maturity and yield",
                ["limit"],
            )
        )
    for level in range(1, 10):
        tools.append(
            _simple(
                f"portfolio__model_portfolio_risk_{level}_drift_report",
                f"Report how far accounts on model portfolio risk level {level} drifted from it",
                ["account_id"],
            )
        )
    assert (
        len(tools) == 140
        and len({tool["name"] for tool in tools}) == 140
        and max(len(tool["name"]) for tool in tools) <= 64
    )
    recorded = _recorded()
    return [recorded.get(tool["name"], tool) for tool in tools]


def _simple(name: str, what: str, optional: list[str]) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"{what}. Read-only; every figure comes with a source reference to cite.",
        "input_schema": _schema([], optional),
    }


READ_TOOL_RESULT = {
    "name": "read_tool_result",
    "description": "Read back part of an earlier tool result that was truncated to fit the context, using the result "
    "reference shown in the truncation notice. Returns the requested character window of the stored "
    "result verbatim.",
    "input_schema": {
        "type": "object",
        "properties": {
            "result_ref": {
                "type": "string",
                "pattern": "^res_[A-Za-z0-9]+$",
                "description": "Reference from the truncation notice, e.g. 'res_8c1e'.",
            },
            "window": {
                "type": "object",
                "description": "Character window to return; from the start when omitted.",
                "properties": {
                    "offset": {"type": "integer", "minimum": 0, "description": "First character to return."},
                    "length": {"type": "integer", "minimum": 1, "maximum": 20000, "default": 8000},
                },
                "required": ["offset"],
                "additionalProperties": False,
            },
        },
        "required": ["result_ref"],
        "additionalProperties": False,
    },
}

SYSTEM = (
    "You are the research agent of Northbeam Wealth's investment desk. Answer with facts from the desk's tools only, "
    "cite every figure with its source reference, state dates for all data, and never recommend a trade: comparisons "
    "are for the adviser, who decides."
)


def _messages(question: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": question},
        {
            "role": "assistant",
            "content": 'Starting with the account\'s positions.\n[tool_call portfolio__get_holdings] {"account_id": '
            '"acc_3k9d2m7q"}',
        },
        {
            "role": "tool",
            "content": "[portfolio__get_holdings] acc_3k9d2m7q as of 2026-11-04, GBP: VWRL.L 1,240 units (62.1%); "
            "AAPL 85 (7.9%); MSFT 40 (7.6%); cash 22.4%.",
        },
        {"role": "assistant", "content": "Three positions and cash. Checking the fund's exposure next."},
        {"role": "user", "content": "Include anything on the restricted list, and keep it to one page."},
    ]


def scenario(
    scenario_id: str,
    description: str,
    tool_format: str,
    tools: list[dict[str, Any]],
    *,
    request: str,
    invocation: str,
    question: str,
    eligible: bool,
    hooks: bool,
    trace: str,
    outcome: str | None = None,
    budget: int = 200_000,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "$schema": "../scenario.schema.json",
        "format": "toolsurface.scenario/1",
        "id": scenario_id,
        "description": description,
        "mode": "research",
        "lane": "main",
        "identity": {
            "run": "run_2026_11_06_a",
            "scope": "scope:research/desk",
            "invocation": invocation,
            "connection": "conn_desk_tools_1",
            "request": request,
        },
        "tool_format": tool_format,
    }
    if outcome is not None:
        document["outcome"] = outcome
    document["contract"] = {
        "admitted": tools,
        "controls": [READ_TOOL_RESULT],
        "eligible_controls": ["read_tool_result"] if eligible else [],
        "web_tools": {"search": "market__web_search", "read": "market__web_read"},
    }
    document["messages"] = _messages(question)
    # Each point multiplies the cases of a list this long, and each case costs in proportion to it:
    # the hosts without hooks go from fitting straight to sealing; the hooked one (over the limit,
    # so it stops at fitting) adds evidence and prepares asynchronously, as hooked hosts here do.
    late = [
        {
            "stage": "evidence",
            "add_messages": [
                {
                    "role": "user",
                    "content": "[evidence S1] VWRL factsheet 30 September 2026 (src_9a01): top holdings Apple 4.1%, "
                    "Microsoft 3.9%, NVIDIA 3.6%.",
                },
                {
                    "role": "user",
                    "content": "[evidence S2] acc_3k9d2m7q look-through 2026-11-04 (src_4c7e): Apple 10.4%, "
                    "Microsoft 10.0%, NVIDIA 2.2% of the account.",
                },
            ],
        },
        {
            "stage": "async_prep",
            "metadata": {
                "prefetch": {"quotes": ["VWRL.L", "AAPL", "MSFT"]},
                "trace": {"trace_id": trace, "span": "desk_prepare", "sampled": True},
            },
        },
    ]
    document["hooks"] = hooks
    document["stages"] = [
        *([{"stage": "hook"}] if hooks else []),
        {"stage": "revalidate"},
        {"stage": "context_fit", "keep_messages": 4, "budget_tokens": budget, "max_tools": 128},
        *(late if hooks else []),
        {"stage": "seal"},
    ]
    return document


def documents() -> dict[str, dict[str, Any]]:
    tools = catalogue()
    return {
        "desk-review-main-openai-46-tools": scenario(
            "desk-review-main-openai-46-tools",
            "An account review on an OpenAI-format host that sends 46 tools, more than a 40-tool cap such as "
            "Cursor's lets through, several with descriptions of several KB and names near the "
            "64-character limit, every "
            "one of which must reach the model as admitted.",
            "openai",
            tools[:46],
            request="req_main_0040",
            invocation="inv_40",
            question="Review account acc_3k9d2m7q: overlap between its global ETF and its single stocks, and its risk.",
            eligible=False,
            hooks=False,
            trace="5d1e9a07c3b24f68a0e1d2c3b4a59687",
        ),
        "desk-research-main-mcp-128-tools": scenario(
            "desk-research-main-mcp-128-tools",
            "A desk research request on an MCP-format host whose servers list 127 tools, plus the "
            "eligible read_tool_result "
            "control: exactly 128, the most OpenAI takes in one request, so it fits and every tool must "
            "be sent as admitted.",
            "mcp",
            tools[:127],
            request="req_main_0041",
            invocation="inv_41",
            question="Research the account's look-through exposure, its ESG flags and the house view on global "
            "equities.",
            eligible=True,
            hooks=False,
            trace="6e2f0b18d4c3507991f2e3d4c5b6a798",
        ),
        "desk-research-main-openai-over-tool-limit": scenario(
            "desk-research-main-openai-over-tool-limit",
            "A desk research request on an OpenAI-format host admitting 140 tools, over the provider's "
            "128 per request though "
            "well within the token budget: the only right outcome is an explicit capacity result, nothing sent and the "
            "reservation closed, never the first 128 or a selector's pick.",
            "openai",
            tools,
            request="req_main_0042",
            invocation="inv_42",
            question="Screen every sector and region for the adviser's quarterly review of acc_3k9d2m7q.",
            eligible=False,
            hooks=True,
            trace="7f301c29e5d46108a203f4e5d6c7b8a9",
            outcome="capacity",
        ),
    }


def main() -> None:
    for name, document in documents().items():
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        (BUNDLED / f"{name}.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
