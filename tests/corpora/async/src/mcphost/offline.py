"""Offline mode: requests served from the static catalogue in the settings."""

from __future__ import annotations

import logging
from typing import Any

from ledgerkit import reservation_scope

from .base import BasePipeline
from .config import SETTINGS
from .errors import REFUSALS
from .requests import ModelRequest, Task
from .sealing import seal

log = logging.getLogger(__name__)


class OfflinePipeline(BasePipeline):
    """Serves requests when no MCP server answers, from the tools the settings list."""

    async def run(self, task: Task) -> dict[str, Any]:
        lane = SETTINGS.lanes[0]
        run_id = self._session.run_id
        async with reservation_scope(self._ledger, run_id, lane.name, refusals=REFUSALS) as tab:
            request = ModelRequest(
                run_id=run_id,
                lane=lane.name,
                invocation=task.invocation,
                scope=SETTINGS.scope,
                fmt=lane.fmt,
                messages=task.messages(),
                tools=SETTINGS.catalogue,
            )
            baseline = SETTINGS.catalogue
            await self._chain.run("before_seal", request)
            request = await self._fitter.fit(request)
            await self._chain.run("before_send", request)
            sealed = seal(request)
            await self._final_check(sealed, baseline)
            tab.mark_sent()
            log.info("offline request %s on %s", task.invocation, lane.name)
            return await self._session.lanes.send(sealed)
