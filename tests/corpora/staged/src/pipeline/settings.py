"""Deployment settings for a pipeline lane."""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

logger = logging.getLogger(__name__)


@dataclass
class Settings:
    """What a lane admits and the limits it runs under."""

    lane: str = "main"
    catalogue: list[dict[str, Any]] = field(default_factory=list)
    grants: dict[str, list[str]] = field(default_factory=dict)
    pinned: tuple[str, ...] = ()
    max_tools: int = 128
    budget_tokens: int = 120_000
    max_turns: int = 8
    retry_attempts: int = 3
    retry_backoff: float = 0.5
    regions: tuple[str, ...] = ("eu-west", "us-east")
    strict_schemas: bool = False
    provider_format: str = "anthropic"
    fit_strategy: str = "prefix"

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any]) -> "Settings":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(raw) - known)
        if unknown:
            logger.warning("ignoring unknown settings: %s", ", ".join(unknown))
        values = {key: copy.deepcopy(value) for key, value in raw.items() if key in known}
        for key in ("pinned", "regions"):
            if key in values:
                values[key] = tuple(values[key])
        return cls(**values)

    def with_lane(self, lane: str) -> "Settings":
        """The same deployment for another lane (child, batch, evaluation)."""
        return dataclasses.replace(self, lane=lane)

    def granted_to(self, scope: str) -> list[str]:
        return list(self.grants.get(scope, ()))


def load_settings(path: str | Path) -> Settings:
    """Settings from a JSON file."""
    with open(path, encoding="utf-8") as handle:
        return Settings.from_mapping(json.load(handle))
