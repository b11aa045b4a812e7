"""The provider gateway: the one place a model request leaves the process."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from typing import Any, Callable, Protocol, Sequence

from .errors import ProviderError
from .middleware import Message, ModelRequest, ModelResponse
from .tools import ToolDef

log = logging.getLogger(__name__)

Encoder = Callable[[Sequence[ToolDef]], list[dict[str, Any]]]


class Transport(Protocol):
    def post(self, payload: dict[str, Any], *, timeout: float | None) -> dict[str, Any]: ...


class HttpTransport:
    """JSON over HTTP POST."""

    def __init__(self, endpoint: str, *, headers: dict[str, str] | None = None) -> None:
        self.endpoint = endpoint
        self.headers = {"content-type": "application/json", **(headers or {})}

    def post(self, payload: dict[str, Any], *, timeout: float | None) -> dict[str, Any]:
        body = json.dumps(payload, ensure_ascii=False).encode()
        call = urllib.request.Request(self.endpoint, data=body, headers=self.headers, method="POST")
        with urllib.request.urlopen(call, timeout=timeout) as reply:
            return json.loads(reply.read())


def plain_encoder(tools: Sequence[ToolDef]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]


class ModelGateway:
    """Encodes a request for its provider and posts it."""

    def __init__(self, transport: Transport, *, provider: str = "openai", encoder: Encoder = plain_encoder) -> None:
        self._transport = transport
        self.provider = provider
        self._encoder = encoder

    def invoke_model(self, request: ModelRequest, *, timeout: float | None = None) -> ModelResponse:
        payload = {
            "model": request.model,
            "messages": [{"role": m.role, "content": m.content} for m in request.messages],
            "tools": self._encoder(request.tools),
            **request.settings,
        }
        try:
            raw = self._transport.post(payload, timeout=timeout)
        except (ConnectionError, TimeoutError, urllib.error.URLError) as exc:
            log.warning("%s call for %s failed: %s", self.provider, request.run_id, exc)
            raise ProviderError(str(exc)) from exc
        choice = (raw.get("choices") or [{}])[0].get("message", {})
        return ModelResponse(
            message=Message(role=choice.get("role", "assistant"), content=choice.get("content") or ""),
            usage=raw.get("usage", {}),
            raw=raw,
        )
