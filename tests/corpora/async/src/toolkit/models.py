"""Typed views of the tools a host offers a model."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass, field
from typing import Any, Mapping

from pydantic import BaseModel, Field

log = logging.getLogger(__name__)

@dataclass
class ToolSpec:
    """One tool as an MCP server lists it, before any provider conversion."""

    name: str
    description: str
    input_shape: dict[str, Any]
    title: str | None = None
    annotations: dict[str, Any] | None = None
    output_shape: dict[str, Any] | None = None

    @classmethod
    def from_listing(cls, item: Mapping[str, Any]) -> "ToolSpec":
        """Build a spec from one entry of a ``tools/list`` result."""
        return cls(
            name=item["name"],
            input_shape=item.get("inputSchema") or {"type": "object", "properties": {}},
            description=item.get("description") or "",
            title=item.get("title"),
            annotations=item.get("annotations"),
            output_shape=item.get("outputSchema"),
        )

    @property
    def qualified(self) -> bool:
        """Whether the name carries its server prefix (``market__web_read``)."""
        return "__" in self.name


@dataclass
class Offer:
    """The specs admitted for one model call on one lane."""

    run_id: str
    lane: str
    specs: list[ToolSpec]
    turn: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.specs]

    def next_turn(self) -> "Offer":
        """The same offer, carried to the next model call of the request."""
        log.info("offer for %s carried to turn %d", self.lane, self.turn + 1)
        return dataclasses.replace(self, turn=self.turn + 1)

    def narrowed(self, hidden: set[str]) -> "Offer":
        """The offer less the tools that trusted owner facts hide."""
        kept = [spec for spec in self.specs if spec.name not in hidden]
        note = f"hid {', '.join(sorted(hidden))}" if hidden else "nothing hidden"
        return dataclasses.replace(self, specs=kept, notes=[*self.notes, note])


class OfferModel(BaseModel):
    """Wire-side record of an offer, as kept in receipts and written to the audit log."""

    run_id: str
    lane: str
    invocation: str
    entries: list[dict[str, Any]] = Field(default_factory=list)
    turn: int = 0

    def for_lane(self, lane: str) -> "OfferModel":
        """The same offer, recorded against another provider lane (after a fallback)."""
        return self.model_copy(update={"lane": lane})

    def names(self) -> list[str]:
        from .wire import tool_name

        return [tool_name(entry) for entry in self.entries]
