"""The request a host prepares for one model call, its seal, and the receipt it keeps."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence


@dataclass
class Task:
    """What a caller asks the host to do."""

    invocation: str
    prompt: str
    summary: str
    history: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> "Task":
        return cls(
            invocation=str(data["invocation"]),
            prompt=str(data["prompt"]),
            summary=str(data.get("summary", "")),
            history=copy.deepcopy(list(data.get("history", []))),
        )

    def messages(self) -> list[dict[str, Any]]:
        """The capability summary first, then the history, then the prompt."""
        return [
            {"role": "user", "content": self.summary},
            *copy.deepcopy(self.history),
            {"role": "user", "content": self.prompt},
        ]


@dataclass
class SubTask:
    """A part of a task handed to a child lane."""

    name: str
    invocation: str
    prompt: str


@dataclass
class ModelRequest:
    """One model call as the host prepares it."""

    run_id: str
    lane: str
    invocation: str
    scope: str
    fmt: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    turn: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)

    def with_messages(self, messages: Sequence[dict[str, Any]]) -> "ModelRequest":
        """A copy of this request carrying other messages (after compression)."""
        return dataclasses.replace(self, messages=list(messages), tools=copy.deepcopy(self.tools))


@dataclass(frozen=True)
class SealedRequest:
    """A request whose content can no longer change: what goes to the transport."""

    request: ModelRequest
    digest: str
    sealed_at: float


@dataclass
class Receipt:
    """What the host keeps of a dispatched request, to resume or resend it."""

    id: str
    sealed: SealedRequest
    digest: str
    baseline: list[dict[str, Any]] | None
    expires_at: float
