"""The nodes of the default agent graph, and its router."""

from __future__ import annotations

import functools
import logging

from plugins.budget import deadline_left, fit_within, quota_pruned

from .graph import END
from .models import CallRequest, Message, ToolCall
from .parity import assert_toolset_parity
from .state import RunState

log = logging.getLogger(__name__)

FLAKY = frozenset({"web_search", "browse_page"})
SYSTEM_PROMPT = "You are an operations agent. Use tools when they help; say when you are done."


def _attempts(highest: int, message: Message) -> int:
    return max(highest, int(message.metadata.get("provider_attempt", 0)))


def plan(run: RunState, runner) -> RunState:
    """Keep the recent history and make sure the system prompt leads it."""
    window: list[Message] = []
    for message in reversed(run.messages):
        if len(window) >= runner.settings.history_window:
            break
        window.append(message)
    window.reverse()
    if not window or window[0].role != "system":
        window.insert(0, Message(role="system", content=SYSTEM_PROMPT))
    run.messages = window
    return run


def select_tools(run: RunState, runner) -> RunState:
    """Choose which of the admitted tools this step offers."""
    visible = list(run.tools)
    attempts = functools.reduce(_attempts, run.messages, 0)
    if attempts >= runner.settings.max_attempts:
        visible = [t for t in visible if t.name not in FLAKY]
    if (left := deadline_left(run.tool_results)) is not None and left < 2.0:
        visible = [t for t in visible if not t.slow]
    visible = quota_pruned(run.messages, visible, runner.settings)
    visible = fit_within(visible, runner.settings.tool_token_budget)
    run.tools = visible
    return run


def build_request(run: RunState, model: str) -> CallRequest:
    return CallRequest(
        graph_id=run.graph_id,
        turn=run.step,
        model=model,
        messages=[m.model_copy(deep=True) for m in run.messages],
        tools=[t.model_copy(deep=True) for t in run.tools],
    )


def guard(run: RunState, runner) -> RunState:
    """Refuse to go on when the pending request carries tools this step was not granted."""
    if run.pending is None:
        run.pending = build_request(run, runner.settings.model)
    expected = run.admitted_view()
    assert_toolset_parity(run.pending.tools, expected)
    return run


async def call(run: RunState, runner) -> RunState:
    request = run.pending or build_request(run, runner.settings.model)
    result = await runner.call_model(request, runner.graph.baseline.tools)
    calls = [c.model_dump() for c in result.tool_calls]
    message = result.message.model_copy(update={"metadata": {**result.message.metadata, "tool_calls": calls}})
    return run.advance(message)


async def run_tools(run: RunState, runner) -> RunState:
    calls = [ToolCall(**c) for c in run.messages[-1].metadata.get("tool_calls", [])]
    results = await runner.call_tools(run, calls)
    run.tool_results = [*run.tool_results, *results]
    run.messages = [*run.messages, *(Message(role="tool", content=r.content, metadata={"call_id": r.call_id})
                                     for r in results)]
    return run


def route(run: RunState) -> str:
    last = run.messages[-1] if run.messages else None
    match last:
        case Message(role="assistant", metadata={"tool_calls": [_, *_]}):
            return "tools"
        case Message(role="assistant"):
            return END
        case _:
            return "plan"
