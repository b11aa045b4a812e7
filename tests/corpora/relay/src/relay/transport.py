"""The provider transport: the only place a turn leaves the process."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator

import httpx

from relay.context import ModelResponse, TurnRequest
from relay.errors import TransientError

_RETRYABLE = {408, 429, 500, 502, 503, 504}


def encode(request: TurnRequest, model: str) -> dict[str, Any]:
    return {
        "model": model,
        "input": request.messages,
        "tools": [
            {"type": "function", "name": t.name, "description": t.description,
             "parameters": t.params_json_schema, "strict": t.strict}
            for t in request.tools
        ],
        "max_output_tokens": request.max_output_tokens,
        "metadata": {"request_id": request.request_id},
    }


class ModelTransport:
    """Responses-API style transport over httpx."""

    def __init__(self, client: httpx.AsyncClient, model: str) -> None:
        self._client = client
        self.model = model

    async def send_turn(self, request: TurnRequest, *, timeout: float = 60.0) -> ModelResponse:
        resp = await self._client.post("/v1/responses", json=encode(request, self.model), timeout=timeout)
        if resp.status_code in _RETRYABLE:
            raise TransientError(f"{resp.status_code} from provider")
        resp.raise_for_status()
        body = resp.json()
        return ModelResponse(request.request_id, body.get("output", []), body.get("usage", {}),
                             body.get("status", "stop"))

    async def stream_turn(self, request: TurnRequest) -> AsyncIterator[dict[str, Any]]:
        payload = {**encode(request, self.model), "stream": True}
        async with self._client.stream("POST", "/v1/responses", json=payload) as resp:
            if resp.status_code in _RETRYABLE:
                raise TransientError(f"{resp.status_code} from provider")
            async for line in resp.aiter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    yield json.loads(line[6:])
