"""Tools listed by an MCP server."""

from __future__ import annotations

import copy
import logging
from typing import Any, Protocol

from agentcore import StaticToolset, ToolDef

log = logging.getLogger(__name__)


class McpSession(Protocol):
    def list_tools(self, cursor: str | None = None) -> dict[str, Any]: ...


def list_all(session: McpSession) -> list[ToolDef]:
    """Every tool the server lists, following ``nextCursor`` to the last page."""
    listed: list[ToolDef] = []
    cursor: str | None = None
    while True:
        page = session.list_tools(cursor)
        for entry in page.get("tools", []):
            listed.append(
                ToolDef(
                    name=entry["name"],
                    description=entry.get("description", ""),
                    parameters=entry.get("inputSchema", {"type": "object"}),
                )
            )
        cursor = page.get("nextCursor")
        if not cursor:
            log.info("listed %d MCP tools", len(listed))
            return listed


class McpToolset(StaticToolset):
    """An MCP server's tools, listed once when the toolset is made."""

    def __init__(self, session: McpSession, *, prefix: str = "") -> None:
        super().__init__(list_all(session), prefix=prefix)
        self._session = session

    def with_session(self, session: McpSession) -> "McpToolset":
        """The same toolset bound to another session, e.g. after a reconnect."""
        clone = copy.copy(self)
        clone._session = session
        return clone

    def refresh(self) -> None:
        self.tools = list_all(self._session)
