"""HTTP gateway to model providers: routes, keys, timeouts and retries on 5xx."""

from __future__ import annotations

import asyncio
import logging
import os
import random
from typing import Any, Mapping

import httpx

from graphhost.errors import ProviderError

log = logging.getLogger(__name__)


class Gateway:
    def __init__(self, routes: Mapping[str, str], *, timeout_s: float = 60.0, retries: int = 2,
                 client: httpx.AsyncClient | None = None) -> None:
        self._routes = dict(routes)
        self._retries = retries
        self._client = client or httpx.AsyncClient(timeout=timeout_s)

    def _headers(self, route: str) -> dict[str, str]:
        key = os.environ.get(f"GRAPHHOST_{route.upper()}_KEY", "")
        return {"authorization": f"Bearer {key}"} if key else {}

    async def invoke(self, payload: Mapping[str, Any], *, route: str = "primary") -> dict[str, Any]:
        url = self._routes.get(route) or self._routes["primary"]
        for attempt in range(self._retries + 1):
            response = await self._client.post(url, json=dict(payload), headers=self._headers(route))
            if response.status_code < 500:
                break
            delay = (2 ** attempt) * 0.25 + random.random() * 0.1
            log.warning("%s answered %s; retrying in %.2fs", route, response.status_code, delay)
            await asyncio.sleep(delay)
        if response.status_code >= 400:
            raise ProviderError(f"{route}: HTTP {response.status_code}: {response.text[:200]}")
        body = response.json()
        body.setdefault("_attempt", attempt + 1)
        return body

    async def aclose(self) -> None:
        await self._client.aclose()
