"""The MCP server the harness owns: what a host that discovers its tools lists them from.

It serves every tool the run knows of — the admitted tools, the host's control catalogue and the
tools admitted to other scopes — so a host's admission has something to refuse. It pages its
`tools/list` as the scenario records (`nextCursor` until the last page), makes the scenario's
recorded list changes at their injection points, and takes a case's list-change mutation at the
case's point. After each change it notifies its subscribers, as a server with the
`tools.listChanged` capability sends `notifications/tools/list_changed`: a listener is told only
that the list changed, and must list again to see how.

Targets that take their tools from the scenario never list from it, and nothing they see changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toolsurface.contract._formats import ToolDescriptor
from toolsurface.scenarios import (
    Boundary,
    Contract,
    ListChange,
    ListChangeKind,
    McpListing,
    Scenario,
)

#: The cursor of the page that starts at an offset; opaque to a client, as MCP cursors are.
_CURSOR = "tools-from-"


class InvalidCursor(ValueError):
    """A `tools/list` cursor this server never handed out (MCP's -32602 invalid params)."""


@dataclass(frozen=True, slots=True)
class ToolsPage:
    """One `tools/list` result: a page of tools, and the cursor of the next page (None: the last)."""

    tools: tuple[ToolDescriptor, ...]
    next_cursor: str | None


def served(contract: Contract) -> tuple[ToolDescriptor, ...]:
    """Everything the server lists for a contract, in recorded order, each name once."""
    seen: set[str] = set()
    listed = []
    for descriptor in (*contract.admitted, *contract.controls, *contract.admitted_elsewhere):
        if descriptor.name not in seen:
            seen.add(descriptor.name)
            listed.append(descriptor)
    return tuple(listed)


class McpCatalogue:
    """One case's MCP server: paged listing, list changes, list_changed subscriptions."""

    def __init__(self, scenario: Scenario) -> None:
        listing = scenario.mcp or McpListing()
        self._tools: list[ToolDescriptor] = list(served(scenario.contract))
        #: Tools per page; None: the whole list is one page.
        self.page_size = listing.page_size
        self._recorded = listing.list_changes
        self._listeners: list[Callable[[], None]] = []
        self._unannounced = 0
        #: Every change the server made, in order, in words: what a case's change names.
        self.changes: list[str] = []
        #: How many `tools/list` pages it served.
        self.pages_served = 0

    def list_tools(self, cursor: str | None = None) -> ToolsPage:
        """One page of the list as it stands now, from `cursor` (None: the first page)."""
        start = self._offset(cursor)
        end = start + (self.page_size or max(len(self._tools), 1))
        self.pages_served += 1
        return ToolsPage(tuple(self._tools[start:end]), f"{_CURSOR}{end}" if end < len(self._tools) else None)

    def list_all(self) -> tuple[ToolDescriptor, ...]:
        """Every page, following `next_cursor`: what a correct client reads."""
        listed: list[ToolDescriptor] = []
        cursor: str | None = None
        while True:
            page = self.list_tools(cursor)
            listed += page.tools
            if (cursor := page.next_cursor) is None:
                return tuple(listed)

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call `listener` (no arguments) after each change: the host's `notifications/tools/list_changed` handler."""
        self._listeners.append(listener)

    def change(self, change: ListChange) -> None:
        """Make one change to the list; subscribers hear of it at `announce`."""
        names = [tool.name for tool in self._tools]
        if change.change is ListChangeKind.ADD:
            if change.name in names or change.tool is None:
                raise ValueError(f"cannot add {change.name!r}: already listed, or no tool given")
            self._tools.append(change.tool)
            what = "added"
        elif change.name not in names:
            raise ValueError(f"cannot {change.change} {change.name!r}: the server does not list it")
        elif change.change is ListChangeKind.REMOVE:
            del self._tools[names.index(change.name)]
            what = "removed"
        elif change.tool is None or change.tool.name != change.name:
            raise ValueError(f"cannot update {change.name!r}: no tool of that name given")
        else:
            what = f"changed the {_differences(self._tools[names.index(change.name)], change.tool)} of"
            self._tools[names.index(change.name)] = change.tool
        self.changes.append(f"server {what} {change.name!r} and sent notifications/tools/list_changed")
        self._unannounced += 1

    def reach(self, at: Boundary) -> None:
        """The request reached boundary `at`: make the changes the scenario records there."""
        for change in self._recorded:
            if change.point == at:
                self.change(change)

    def announce(self) -> None:
        """Send `notifications/tools/list_changed` once for the changes made since the last one."""
        if self._unannounced:
            self._unannounced = 0
            for listener in tuple(self._listeners):
                listener()

    def _offset(self, cursor: str | None) -> int:
        if cursor is None:
            return 0
        offset = cursor.removeprefix(_CURSOR)
        if cursor == offset or not offset.isdigit() or int(offset) > len(self._tools):
            raise InvalidCursor(f"invalid cursor {cursor!r}")
        return int(offset)


def _differences(old: ToolDescriptor, new: ToolDescriptor) -> str:
    """What an update changed of a tool, in words."""
    parts = [
        part
        for part, differs in (
            ("description", old.description != new.description),
            ("input schema", old.input_schema != new.input_schema),
        )
        if differs
    ]
    return " and ".join(parts) or "listing"
