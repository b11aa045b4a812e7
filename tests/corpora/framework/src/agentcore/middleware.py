"""Model requests and the middleware that wraps model calls.

Modelled on the agent-middleware protocol of the big frameworks: a middleware can look at
the state before the model runs (``before_model``), wrap the call itself
(``wrap_model_call``), and look at the state afterwards (``after_model``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Sequence

from .tools import ToolDef


@dataclass
class Message:
    """One chat message; tool results carry what the tool reported in ``metadata``."""

    role: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    tool_call_id: str | None = None


@dataclass
class ModelRequest:
    """Everything one model call is made with."""

    model: str
    messages: list[Message]
    tools: list[ToolDef]
    run_id: str = ""
    settings: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)

    def override(self, **changes: Any) -> "ModelRequest":
        """A copy of the request with ``changes`` applied; the original is left as it is."""
        return replace(self, **changes)


@dataclass
class ModelResponse:
    """What the provider answered."""

    message: Message
    usage: dict[str, int] = field(default_factory=dict)
    raw: dict[str, Any] | None = None


Handler = Callable[[ModelRequest], ModelResponse]


class AgentMiddleware:
    """Base class for agent middleware; override the methods you need."""

    name: str = ""

    def before_model(self, state: dict[str, Any]) -> dict[str, Any] | None:
        return None

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        return handler(request)

    def after_model(self, state: dict[str, Any]) -> dict[str, Any] | None:
        return None


def compose(middleware: Sequence[AgentMiddleware], terminal: Handler) -> Handler:
    """Wrap ``terminal`` in the middleware, the first one outermost."""
    handler: Handler = terminal
    for layer in reversed(middleware):
        handler = functools.partial(layer.wrap_model_call, handler=handler)
    return handler
