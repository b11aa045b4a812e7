"""Operator console: commands sent to a running host over its control socket."""

from __future__ import annotations

import json
import logging
from typing import Any, Mapping

from ledgerkit import held
from toolkit import ToolRegistry, cached_listing

from .errors import OfferDriftError
from .pipeline import RequestPipeline
from .recovery import Recovery
from .requests import Task
from .sealing import ReceiptStore, digest_of
from .session import HostSession
from .warmup import CacheWarmer

log = logging.getLogger(__name__)


class HostCommands:
    """Dispatches console commands by kind."""

    def __init__(
        self,
        session: HostSession,
        pipeline: RequestPipeline,
        recovery: Recovery,
        receipts: ReceiptStore,
        warmer: CacheWarmer,
        registry: ToolRegistry,
    ) -> None:
        self._session = session
        self._pipeline = pipeline
        self._recovery = recovery
        self._receipts = receipts
        self._warmer = warmer
        self._registry = registry

    async def handle(self, command: Mapping[str, Any]) -> dict[str, Any] | None:
        match command:
            case {"kind": "run", "task": dict(task)}:
                return await self._pipeline.run(Task.from_mapping(task))
            case {"kind": "resend", "receipt": str(receipt_id)}:
                return await self._resend(receipt_id)
            case {"kind": "repeat", "receipt": str(receipt_id)}:
                return await self._pipeline.run_repeat(await self._receipts.load(receipt_id))
            case {"kind": "resume", "receipt": str(receipt_id)}:
                return await self._recovery.resume(receipt_id)
            case {"kind": "replay", "receipt": str(receipt_id)}:
                return await self._recovery.replay(receipt_id)
            case {"kind": "warm", "invocation": str(invocation)}:
                return {"warmed": await self._warmer.warm(invocation)}
            case {"kind": "refresh"}:
                specs = await self._session.catalogue.refresh()
                return {"listed": len(specs), "mirrored": self._registry.adopt(specs)}
            case {"kind": "listing"}:
                return {"tools": cached_listing(self._session.catalogue.server) or []}
            case {"kind": "offer"}:
                return {"offer": self._session.offer}
            case {"kind": kind}:
                raise ValueError(f"unknown console command {kind!r}")
            case _:
                raise ValueError(f"malformed console command: {json.dumps(command)[:200]}")

    async def _resend(self, receipt_id: str) -> dict[str, Any]:
        """Send a stored request again, as it was sealed."""
        receipt = await self._receipts.load(receipt_id)
        sealed = receipt.sealed
        async with held(self._session.ledger, sealed.request.run_id, sealed.request.lane):
            if digest_of(sealed.request) != receipt.digest:
                raise OfferDriftError(sealed.request.lane, [f"receipt {receipt_id} no longer matches its seal"])
            log.info("resending %s on %s", receipt_id, sealed.request.lane)
            return await self._session.deliver(sealed)
