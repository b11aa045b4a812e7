"""The state one run of the host shares between its pipelines."""

from __future__ import annotations

import functools
import logging
from typing import Any, Mapping

from ledgerkit import LedgerService, ledger as default_ledger
from relay import FallbackLanes, InterceptorChain
from toolkit import ToolCatalogue
from toolkit.mcp_client import McpClient
from toolkit.wire import deep_clone as detached

from .admission import BaselineStore
from .config import HostSettings
from .facts import FactFeed
from .parity import OfferGuard
from .sealing import ReceiptStore

log = logging.getLogger(__name__)


class HostSession:
    """Catalogue, lanes, ledger, interceptors and stores of one run."""

    def __init__(
        self,
        *,
        run_id: str,
        settings: HostSettings,
        catalogue: ToolCatalogue,
        mcp: McpClient,
        lanes: FallbackLanes,
        chain: InterceptorChain,
        guard: OfferGuard,
        facts: FactFeed,
        baselines: BaselineStore | None = None,
        receipts: ReceiptStore | None = None,
        ledger: LedgerService = default_ledger,
    ) -> None:
        self.run_id = run_id
        self.settings = settings
        self.scope = settings.scope
        self.connection = f"conn_{settings.server}"
        self.catalogue = catalogue
        self.mcp = mcp
        self.lanes = lanes
        self.chain = chain
        self.guard = guard
        self.facts = facts
        self.baselines = baselines or BaselineStore()
        self.receipts = receipts or ReceiptStore()
        self.ledger = ledger
        self.transport = lanes.primary.transport
        self.deliver = self.transport.send
        self.on_tool_result = functools.partial(self._record_tool_result, scope=settings.scope)
        self.offer: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    @property
    def intercepting(self) -> bool:
        """Whether any interceptor is registered on this run's chain."""
        return bool(self.chain.registered("before_seal") or self.chain.registered("before_send"))

    def adopt_offer(self, entries: list[dict[str, Any]]) -> None:
        """Keep the offer admitted for the run's current call, for the console to show."""
        self.offer = detached(entries)

    async def _record_tool_result(self, result: Mapping[str, Any], *, scope: str) -> None:
        self.results.append(
            {"scope": scope, "content": result.get("content"), "is_error": bool(result.get("isError"))}
        )
