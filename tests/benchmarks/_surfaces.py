"""A realistic large surface for benchmarks: 128 tools with ~2 KB nested input schemas."""

from __future__ import annotations

import orjson


def schema(i: int) -> dict:
    """About 2 KB of JSON Schema with nesting, arrays, enums and `$defs`."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["symbol", "window"],
        "properties": {
            "symbol": {
                "type": "string",
                "pattern": "^[A-Z0-9.]{1,12}$",
                "description": f"Listing symbol for instrument family {i}.",
            },
            "venues": {
                "type": "array",
                "items": {"type": "string", "enum": ["XLON", "XETR", "XPAR", "XNYS", "XNAS", "XAMS"]},
                "maxItems": 6,
            },
            "window": {"$ref": "#/$defs/window"},
            "fields": {
                "type": "array",
                "items": {
                    "enum": ["nav", "aum", "ter", "tracking_difference", "holdings_count", "replication", "domicile"]
                },
                "uniqueItems": True,
            },
            "paging": {
                "type": "object",
                "properties": {
                    "cursor": {"type": ["string", "null"]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 500},
                },
                "additionalProperties": False,
            },
            "currency": {"type": "string", "enum": ["GBP", "EUR", "USD", "CHF", "JPY"], "default": "GBP"},
            "notes": {
                "type": "string",
                "maxLength": 2000,
                "description": "Free-text context the analyst wants echoed into the audit trail.",
            },
            "benchmarks": {
                "type": "array",
                "maxItems": 4,
                "items": {
                    "type": "object",
                    "required": ["index"],
                    "properties": {
                        "index": {
                            "type": "string",
                            "description": "Index the tracking difference is measured against.",
                        },
                        "provider": {"enum": ["FTSE", "MSCI", "S&P", "Solactive", "Bloomberg"]},
                        "total_return": {"type": "boolean", "default": True},
                    },
                    "additionalProperties": False,
                },
            },
            "costs": {
                "type": "object",
                "description": "Which cost figures to include, as published in the latest KID and annual report.",
                "properties": {
                    "ongoing_charge": {"type": "boolean", "default": True},
                    "transaction_costs": {"type": "boolean", "default": False},
                    "spread_bps": {"type": "number", "minimum": 0, "maximum": 500},
                },
                "additionalProperties": False,
            },
        },
        "$defs": {
            "window": {
                "type": "object",
                "required": ["start"],
                "properties": {
                    "start": {"type": "string", "format": "date"},
                    "end": {"type": "string", "format": "date"},
                    "granularity": {"enum": ["1d", "1w", "1mo", "1q"]},
                },
                "additionalProperties": False,
            }
        },
    }


def surface(count: int = 128) -> list[dict]:
    return [
        {
            "name": f"market__tool_{i:03d}",
            "description": f"Look up instrument data set {i}: profiles, listings and cost figures for research notes. "
            * 2,
            "input_schema": schema(i),
        }
        for i in range(count)
    ]


def schema_bytes(tools: list[dict]) -> float:
    return sum(len(orjson.dumps(t["input_schema"])) for t in tools) / len(tools)


#: The recording `scenario_of` grows: hooks, every recorded stage but recovery, web tools and a control.
_TEMPLATE = "etf-compare-main-hooked.json"


def scenario_of(count: int) -> dict:
    """The bundled hooked research recording with `count` admitted tools: its own five, then generated
    ones (`surface`) up to `count`, and a token budget that holds them all, so the unmutated request
    is dispatched whatever the size."""
    from toolsurface.scenarios import bundled_dir

    document = orjson.loads((bundled_dir() / _TEMPLATE).read_bytes())
    own = document["contract"]["admitted"]
    assert count >= len(own), f"{count=} must be at least the recording's own {len(own)} tools"
    document["id"] = f"benchmark-{count}-tools"
    document["contract"]["admitted"] = own + surface(count - len(own))
    for stage in document["stages"]:
        if "budget_tokens" in stage:
            stage["budget_tokens"] = 2000 * count + 20_000
    return document
