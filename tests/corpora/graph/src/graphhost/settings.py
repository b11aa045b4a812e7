"""Host settings, read once from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


def _int(env: Mapping[str, str], key: str, default: int) -> int:
    raw = env.get(key)
    return int(raw) if raw not in (None, "") else default


def _flag(env: Mapping[str, str], key: str, default: bool) -> bool:
    raw = env.get(key)
    if raw is None:
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    model: str = "gpt-4.1"
    fallback_model: str | None = "claude-sonnet-4"
    max_tools: int = 24
    tool_token_budget: int = 6000
    max_attempts: int = 3
    hold_cents: int = 40
    history_window: int = 40
    paging: bool = True
    tenant: str = "default"

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> "Settings":
        return cls(
            model=env.get("GRAPHHOST_MODEL", cls.model),
            fallback_model=env.get("GRAPHHOST_FALLBACK_MODEL", cls.fallback_model) or None,
            max_tools=_int(env, "GRAPHHOST_MAX_TOOLS", cls.max_tools),
            tool_token_budget=_int(env, "GRAPHHOST_TOOL_TOKENS", cls.tool_token_budget),
            max_attempts=_int(env, "GRAPHHOST_MAX_ATTEMPTS", cls.max_attempts),
            hold_cents=_int(env, "GRAPHHOST_HOLD_CENTS", cls.hold_cents),
            history_window=_int(env, "GRAPHHOST_HISTORY", cls.history_window),
            paging=_flag(env, "GRAPHHOST_PAGING", cls.paging),
            tenant=env.get("GRAPHHOST_TENANT", cls.tenant),
        )


SETTINGS = Settings.from_env()
