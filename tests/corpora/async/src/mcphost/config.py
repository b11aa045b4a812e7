"""Host settings, read once from ``mcphost.toml`` (or the file ``MCPHOST_CONFIG`` names)."""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LaneSettings:
    name: str
    provider: str
    endpoint: str
    model: str
    fmt: str
    api_key_env: str
    max_tools: int = 128
    budget_tokens: int = 120_000


@dataclass
class HostSettings:
    server_command: list[str]
    scope: str
    granted: tuple[str, ...]
    lanes: tuple[LaneSettings, ...]
    catalogue: list[dict[str, Any]] = field(default_factory=list)
    result_paging: bool = True
    max_argument_chars: int = 2048
    max_child_tools: int = 16
    overrides: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    repeat_window: float = 30.0

    @property
    def server(self) -> str:
        return self.server_command[0] if self.server_command else "offline"


def load_settings(path: Path) -> HostSettings:
    """Read settings from a TOML file."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    host = data.get("host", {})
    lanes = tuple(LaneSettings(**lane) for lane in data.get("lanes", []))
    return HostSettings(
        server_command=list(host.get("server_command", [])),
        scope=str(host["scope"]),
        granted=tuple(host.get("granted", [])),
        lanes=lanes,
        catalogue=list(data.get("catalogue", {}).get("tools", [])),
        result_paging=bool(host.get("result_paging", True)),
        max_argument_chars=int(host.get("max_argument_chars", 2048)),
        max_child_tools=int(host.get("max_child_tools", 16)),
        overrides=dict(data.get("overrides", {})),
        repeat_window=float(host.get("repeat_window", 30.0)),
    )


def _load_default() -> HostSettings:
    path = Path(os.environ.get("MCPHOST_CONFIG", "mcphost.toml"))
    if path.exists():
        return load_settings(path)
    log.warning("%s not found; starting with empty settings", path)
    return HostSettings(server_command=[], scope="scope:default", granted=(), lanes=())


SETTINGS = _load_default()
