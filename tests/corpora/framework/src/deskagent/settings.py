"""Desk settings, read once from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Mapping

from agentcore import ToolDef
from desktools import drop_examples, market_tools


@dataclass
class DeskSettings:
    model: str = "gpt-4.1"
    max_tools: int = 128
    budget_tokens: int = 120_000
    description_limit: int = 1024
    grants: frozenset[str] = frozenset()
    catalogue: list[ToolDef] = field(default_factory=list)


def load_settings(environ: Mapping[str, str] = os.environ) -> DeskSettings:
    catalogue = market_tools()
    drop_examples(catalogue)
    granted = frozenset(name for name in environ.get("DESK_GRANTS", "").split(",") if name)
    return DeskSettings(
        model=environ.get("DESK_MODEL", "gpt-4.1"),
        max_tools=int(environ.get("DESK_MAX_TOOLS", "128")),
        budget_tokens=int(environ.get("DESK_BUDGET_TOKENS", "120000")),
        description_limit=int(environ.get("DESK_DESCRIPTION_LIMIT", "1024")),
        grants=granted or frozenset(definition.name for definition in catalogue),
        catalogue=catalogue,
    )


SETTINGS = load_settings()
