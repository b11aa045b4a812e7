"""HTTP transport to a model provider.

``Transport.send`` is where a request leaves the host: everything before it prepares, checks
and seals the request, and nothing after it can take the request back.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from mcphost.requests import SealedRequest

log = logging.getLogger(__name__)


class TransportError(RuntimeError):
    """The provider could not be reached, or answered with a server error."""


class ProviderUnavailable(TransportError):
    """No lane could take the request."""


class Transport:
    """One provider endpoint."""

    def __init__(
        self,
        provider: str,
        endpoint: str,
        model: str,
        *,
        api_key_env: str,
        client: httpx.AsyncClient,
        timeout: float = 60.0,
    ) -> None:
        self.provider = provider
        self.model = model
        self._endpoint = endpoint
        self._api_key_env = api_key_env
        self._client = client
        self._timeout = timeout

    def _headers(self) -> dict[str, str]:
        key = os.environ.get(self._api_key_env, "")
        if self.provider == "anthropic":
            return {"x-api-key": key, "anthropic-version": "2023-06-01"}
        return {"authorization": f"Bearer {key}"}

    async def send(self, sealed: "SealedRequest", *, timeout: float | None = None) -> dict[str, Any]:
        """Send a sealed request and return the provider's answer."""
        request = sealed.request
        payload: dict[str, Any] = {"model": self.model, "messages": request.messages, "tools": request.tools}
        if "max_tokens" in request.metadata:
            payload["max_tokens"] = request.metadata["max_tokens"]
        started = time.monotonic()
        try:
            response = await self._client.post(
                self._endpoint,
                json=payload,
                headers={**self._headers(), "x-request-digest": sealed.digest},
                timeout=timeout or self._timeout,
            )
        except httpx.HTTPError as exc:
            raise TransportError(f"{self.provider}: {exc}") from exc
        if response.status_code >= 500:
            raise TransportError(f"{self.provider}: HTTP {response.status_code}")
        response.raise_for_status()
        log.info(
            "%s answered %s/%s in %.2fs",
            self.provider,
            request.lane,
            request.invocation,
            time.monotonic() - started,
        )
        return response.json()
