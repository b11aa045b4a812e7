"""Model requests and their sealed form."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from dataclasses import dataclass, field
from typing import Any, Sequence

from support.diffing import surface_digest


@dataclass
class ModelRequest:
    """One model call being prepared: the tools it may use and the transcript so far."""

    request_id: str
    run_id: str
    lane: str
    turn: int
    scope: str
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def new(cls, run_id: str, scope: str, messages: Sequence[dict[str, Any]], *, lane: str = "main") -> "ModelRequest":
        return cls(
            request_id=uuid.uuid4().hex,
            run_id=run_id,
            lane=lane,
            turn=0,
            scope=scope,
            tools=[],
            messages=list(messages),
        )

    def fork(self, lane: str) -> "ModelRequest":
        """A request for a child lane, starting from the parent's transcript so far."""
        return dataclasses.replace(
            self,
            lane=lane,
            request_id=f"{self.request_id}/{lane}",
            messages=list(self.messages),
        )

    def next_turn(self, messages: Sequence[dict[str, Any]]) -> "ModelRequest":
        """The next model call of this request, with the grown transcript."""
        return dataclasses.replace(
            self,
            turn=self.turn + 1,
            messages=list(messages),
            tools=copy.deepcopy(self.tools),
        )


@dataclass(frozen=True)
class SealedRequest:
    """A request frozen for sending; nothing in it is shared with the live request."""

    request_id: str
    run_id: str
    lane: str
    turn: int
    tools: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]
    digest: str

    @classmethod
    def seal(cls, request: ModelRequest) -> "SealedRequest":
        tools = tuple(copy.deepcopy(request.tools))
        return cls(
            request_id=request.request_id,
            run_id=request.run_id,
            lane=request.lane,
            turn=request.turn,
            tools=tools,
            messages=tuple(copy.deepcopy(request.messages)),
            digest=surface_digest(tools),
        )
