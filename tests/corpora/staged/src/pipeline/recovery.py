"""Recovery: resume an interrupted request from its sealed receipt."""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Mapping, Sequence

from billing import settled
from providers import send_sealed as resend
from support.errors import SurfaceDrift
from support.tokens import estimate_all

from .admission import BASELINES
from .base import BaseStage
from .context import RequestContext
from .facts import WEB_READ, WEB_SEARCH
from .request import SealedRequest

logger = logging.getLogger(__name__)


class RecoveryStage(BaseStage):
    """Replays the sealed receipt of a request whose worker died mid-call."""

    name = "recover"

    def _hidden_from(self, transcript: Sequence[Mapping[str, Any]]) -> set[str]:
        hidden: set[str] = set()
        for entry in transcript:
            match entry:
                case {"role": "tool", "metadata": {"diagnostics": {"deadline_exceeded": True}}}:
                    hidden.update((WEB_SEARCH, WEB_READ))
                case _:
                    continue
        return hidden

    def resume(self, receipt: SealedRequest, transcript: Sequence[Mapping[str, Any]]) -> Any:
        reservation = self.ledger.reserve(f"{receipt.request_id}/resume", amount=estimate_all(receipt.tools))
        with settled(self.ledger, reservation):
            baseline = BASELINES.lookup(receipt.request_id)
            hidden = self._hidden_from(transcript)
            if hidden:
                logger.info("recovering %s without %s", receipt.request_id, sorted(hidden))
                receipt = dataclasses.replace(receipt, tools=tuple(t for t in receipt.tools if t["name"] not in hidden))
                baseline = [tool for tool in baseline if tool["name"] not in hidden]
            if len(receipt.tools) != len(baseline):
                raise SurfaceDrift([f"receipt holds {len(receipt.tools)} tools, {len(baseline)} admitted"])
            return resend(receipt)

    def apply(self, ctx: RequestContext) -> None:
        if ctx.sealed is None:
            return
        ctx.response = self.resume(ctx.sealed, ctx.request.messages)
