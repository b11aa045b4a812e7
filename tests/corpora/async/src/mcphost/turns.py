"""The tool loop: call the model, run the tools it asks for, call it again with the results."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Mapping

from ledgerkit import reservation_scope
from relay import TransportError
from toolkit.controls import READ_TOOL_RESULT, read_tool_result_wire
from toolkit.wire import tool_name

from mcphost import sealed_for_dispatch as checked_seal

from .availability import WEB_SEARCH, narrow
from .context_fit import ContextFitter
from .diagnostics import search_budget_spent
from .errors import REFUSALS, OfferDriftError, ProtocolError
from .parity import verify_if_intercepted
from .requests import ModelRequest
from .sealing import seal
from .session import HostSession

log = logging.getLogger(__name__)


async def continuation_hook(request: ModelRequest) -> None:
    """Before a follow-up call, let the model page through results it saw cut short."""
    if request.turn == 0:
        return
    if any(tool_name(entry) == READ_TOOL_RESULT for entry in request.tools):
        return
    request.tools.insert(0, read_tool_result_wire(request.fmt))


class ToolLoop:
    """Runs one request through as many model calls as its tool use needs."""

    def __init__(self, session: HostSession, fitter: ContextFitter, *, max_calls: int = 4) -> None:
        self._session = session
        self._fitter = fitter
        self._max_calls = max_calls

    async def run(self, request: ModelRequest) -> dict[str, Any]:
        started = time.monotonic()
        async with reservation_scope(
            self._session.ledger, request.run_id, request.lane, refusals=REFUSALS
        ) as tab:
            expected = await self._session.baselines.for_turn(request.run_id, request.invocation, request.turn)
            request = await self._fitter.fit(request)
            async with checked_seal(request, expected) as sealed:
                tab.mark_sent()
                response = await self._session.transport.send(sealed)
            for _ in range(1, self._max_calls):
                match response.get("stop_reason"):
                    case "tool_use":
                        await self._run_tools(request, response)
                    case "end_turn" | "stop_sequence":
                        return response
                    case "max_tokens":
                        log.warning("%s: answer cut at max_tokens", request.invocation)
                        return response
                    case other:
                        raise ProtocolError(f"unexpected stop_reason {other!r}")
                if self._session.catalogue.changed_since(started):
                    raise OfferDriftError(request.lane, ["the server changed its tool list during the request"])
                request.turn += 1
                response = await self._follow_up(request, expected)
            return response

    async def _run_tools(self, request: ModelRequest, response: Mapping[str, Any]) -> None:
        content = list(response.get("content", []))
        calls = [block for block in content if block.get("type") == "tool_use"]
        results = await asyncio.gather(*(self._call_tool(call) for call in calls))
        request.messages.append({"role": "assistant", "content": content})
        request.messages.extend(results)

    async def _call_tool(self, call: Mapping[str, Any]) -> dict[str, Any]:
        result = await self._session.mcp.call_tool(call["name"], call.get("input", {}))
        diag = result.get("diagnostics") or {}
        if "quota_remaining" in diag:
            log.info("%s: provider reports %s searches left", call["name"], diag["quota_remaining"])
        await self._session.on_tool_result(result)
        return {
            "role": "tool",
            "tool_use_id": call["id"],
            "content": result.get("content", []),
            "diagnostics": diag,
        }

    async def _follow_up(self, request: ModelRequest, expected: list[dict[str, Any]]) -> dict[str, Any]:
        """Call the model again, with the tool results appended."""
        hidden: set[str] = set()
        if search_budget_spent(request.messages):
            hidden.add(WEB_SEARCH)
        request.tools = narrow(request.tools, hidden)
        expected = narrow(expected, hidden)
        await self._session.chain.run("before_seal", request)
        request = await self._fitter.fit(request)
        await self._session.chain.run("before_send", request)
        sealed = seal(request)
        await verify_if_intercepted(sealed, expected, self._session.chain.registered("before_send"))
        try:
            return await self._session.transport.send(sealed)
        except TransportError as exc:
            log.warning("%s: follow-up call %d failed: %s", request.invocation, request.turn, exc)
            raise
