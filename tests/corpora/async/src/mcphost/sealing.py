"""Sealing a request, and the store of receipts for dispatched ones."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
import logging
import time
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Mapping, Sequence

from toolkit.wire import freeze_offer

from .parity import verify_offer_parity
from .requests import ModelRequest, Receipt, SealedRequest

log = logging.getLogger(__name__)


def digest_of(request: ModelRequest) -> str:
    body = json.dumps(
        {"lane": request.lane, "invocation": request.invocation, "messages": request.messages, "tools": request.tools},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def seal(request: ModelRequest) -> SealedRequest:
    """Seal ``request``: from here on only the final check and the transport see it."""
    sealed = SealedRequest(request=request, digest=digest_of(request), sealed_at=time.time())
    log.info("sealed %s/%s turn %d as %s", request.lane, request.invocation, request.turn, sealed.digest[:12])
    return sealed


def pinned_offer(sealed: SealedRequest) -> list[dict[str, Any]]:
    """The tools as they stood when ``sealed`` was sealed."""
    return freeze_offer(sealed.request.tools)


@asynccontextmanager
async def sealed_for_dispatch(
    request: ModelRequest,
    baseline: Sequence[Mapping[str, Any]],
) -> AsyncIterator[SealedRequest]:
    """Seal ``request``, check the seal against ``baseline``, and hand the seal to the block."""
    sealed = seal(request)
    await verify_offer_parity(sealed.request.tools, baseline, lane=request.lane)
    yield sealed


class ReceiptStore:
    """Receipts of dispatched requests, kept in memory for the length of a run."""

    def __init__(self) -> None:
        self._receipts: dict[str, Receipt] = {}
        self._lock = asyncio.Lock()

    async def save(self, receipt: Receipt) -> None:
        async with self._lock:
            self._receipts[receipt.id] = receipt

    async def load(self, receipt_id: str) -> Receipt:
        async with self._lock:
            receipt = self._receipts[receipt_id]
        return copy.deepcopy(receipt)

    async def discard(self, receipt_id: str) -> None:
        async with self._lock:
            self._receipts.pop(receipt_id, None)
