"""Child lanes: a sub-task run as its own request, admitted and settled on its own lane."""

from __future__ import annotations

import logging
from typing import Any

from ledgerkit import Outcome
from relay import TransportError

from .admission import admit
from .base import BasePipeline
from .errors import REFUSALS
from .requests import ModelRequest, SubTask
from .sealing import seal

log = logging.getLogger(__name__)


class ChildPipeline(BasePipeline):
    """Runs one sub-task of a parent request on a child lane."""

    lane_kind = "child"

    async def run(self, parent: ModelRequest, task: SubTask) -> dict[str, Any]:
        lane = self._session.settings.lanes[0]
        lane_name = f"child:{task.name}"
        reservation = self._ledger.reserve(parent.run_id, lane_name)
        try:
            admission = await admit(
                self._session.catalogue,
                self._session.settings,
                run_id=parent.run_id,
                invocation=task.invocation,
                lane=lane,
                store=self._session.baselines,
            )
            pinned = admission.offer.model_copy()
            request = ModelRequest(
                run_id=parent.run_id,
                lane=lane_name,
                invocation=task.invocation,
                scope=parent.scope,
                fmt=lane.fmt,
                messages=[{"role": "user", "content": task.prompt}],
                tools=admission.offer.entries,
                metadata={"connection": parent.metadata.get("connection"), "parent": parent.invocation},
            )
            await self._chain.run("before_seal", request)
            request = await self._fitter.fit(request)
            await self._chain.run("before_send", request)
            sealed = seal(request)
            await self._final_check(sealed, pinned.entries)
        except REFUSALS:
            self._settle_if_open(reservation, Outcome.REJECTED)
            raise
        except Exception:
            self._settle_if_open(reservation, Outcome.FAILED)
            raise
        try:
            response = await self._transport.send(sealed)
        except TransportError:
            self._settle_if_open(reservation, Outcome.FAILED)
            raise
        self._settle_if_open(reservation, Outcome.DISPATCHED)
        log.info("child %s answered for %s", task.name, parent.invocation)
        return response
