"""HTTP client for the model provider."""

from __future__ import annotations

import json
import logging
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Protocol, Sequence

from support.errors import ProviderError

logger = logging.getLogger(__name__)


class Sealed(Protocol):
    request_id: str
    lane: str
    tools: Sequence[Mapping[str, Any]]
    messages: Sequence[Mapping[str, Any]]
    digest: str


@dataclass
class Response:
    request_id: str
    status: int
    body: dict[str, Any]

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.body.get("tool_calls") or [])


class EventStream:
    """Server-sent events of a streamed response; closes the connection on exit."""

    def __init__(self, handle: Any, request_id: str) -> None:
        self._handle = handle
        self.request_id = request_id

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._handle.close()

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for raw in self._handle:
            line = raw.decode("utf-8").strip()
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[len("data: "):])


class ProviderClient:
    """Sends sealed requests to the provider's messages endpoint."""

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = 60.0, name: str = "provider") -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.name = name

    def _payload(self, sealed: Sealed, stream: bool) -> bytes:
        body = {
            "request_id": sealed.request_id,
            "tools": list(sealed.tools),
            "messages": list(sealed.messages),
            "stream": stream,
        }
        return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def send_sealed(
        self,
        sealed: Sealed,
        *,
        stream: bool = False,
        timeout: float | None = None,
        region: str | None = None,
    ) -> Any:
        """POST *sealed* to the provider: the one place a model request leaves the host."""
        url = f"{self.base_url}/messages"
        if region:
            url = f"{url}?region={region}"
        headers = {"content-type": "application/json", "x-request-id": sealed.request_id}
        if self.api_key:
            headers["authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(url, data=self._payload(sealed, stream), headers=headers, method="POST")
        logger.info("sending %s (%d tools, digest %s)", sealed.request_id, len(sealed.tools), sealed.digest[:12])
        try:
            handle = urllib.request.urlopen(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as exc:
            raise ProviderError(f"provider answered {exc.code}", status=exc.code, retryable=exc.code >= 500) from exc
        except (urllib.error.URLError, ConnectionError, TimeoutError) as exc:
            raise ProviderError(f"provider unreachable: {exc}") from exc
        if stream:
            return EventStream(handle, sealed.request_id)
        with handle:
            return Response(request_id=sealed.request_id, status=handle.status, body=json.load(handle))


default_client = ProviderClient(
    os.environ.get("MODEL_PROVIDER_URL", "http://127.0.0.1:8400/v1"),
    api_key=os.environ.get("MODEL_PROVIDER_KEY"),
)
send_sealed = default_client.send_sealed
