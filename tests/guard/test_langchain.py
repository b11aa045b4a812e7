"""`toolsurface.guard.langchain` as a user installs it: a `create_agent` agent, its middleware, an Owner of its own."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, wrap_model_call
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import StructuredTool, tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from toolsurface.contract._refusals import CapacityExceeded, SurfaceRefused
from toolsurface.guard import Capacity, owning
from toolsurface.guard.langchain import SurfaceGuardMiddleware
from toolsurface.scenarios import Binding, FactKind, OwnerFact, WebTools

ORDER_SCHEMA = {
    "type": "object",
    "properties": {
        "ticker": {"type": "string", "description": "The instrument's exchange ticker, e.g. VWRL."},
        "quantity": {"type": "integer"},
    },
    "required": ["ticker", "quantity"],
}


def _order(ticker: str, quantity: int) -> str:
    return f"ordered {quantity} {ticker}"


@tool
def web_search(query: str) -> str:
    """Search the web."""
    return f"results for {query}"


@tool
def web_read(url: str) -> str:
    """Read a web page."""
    return f"page {url}"


place_order = StructuredTool.from_function(
    _order, name="place_order", description="Place an order.", args_schema=copy.deepcopy(ORDER_SCHEMA)
)
TOOLS = [web_search, web_read, place_order]
WEB = WebTools(search="web_search", read="web_read")


class OfflineModel(BaseChatModel):
    """A chat model that answers in text and keeps the tools each call was bound with, as a provider gets them."""

    sent: list[list[dict[str, Any]]] = []  # noqa: RUF012 (a pydantic field: each model gets its own copy)

    @property
    def _llm_type(self) -> str:
        return "offline"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.sent.append(kwargs.get("tools", []))
        return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])


@dataclass
class Owner:
    """The user's side: who the request is, its owners' facts, and its ledger."""

    binding: Binding
    recorded: list[OwnerFact] = field(default_factory=list)
    settled: list[tuple[str, str]] = field(default_factory=list)

    def facts(self) -> list[OwnerFact]:
        return self.recorded

    def settle(self, settlement: Any, note: str) -> None:
        self.settled.append((str(settlement), note))


REQUEST = Binding(run="run_1", scope="research", invocation="inv_1", connection="conn_1")
SIBLING = Binding(run="run_1", scope="research", invocation="inv_2", connection="conn_1")


@wrap_model_call
def trim_schemas(request: Any, handler: Any) -> Any:
    """A flawed middleware: drops property descriptions 'to save tokens', in place."""
    for t in request.tools:
        if isinstance(t.args_schema, dict):
            for prop in t.args_schema["properties"].values():
                prop.pop("description", None)
    return handler(request)


@wrap_model_call
def drop_order_tool(request: Any, handler: Any) -> Any:
    """A flawed tool selector: keeps the tools it thinks relevant."""
    return handler(request.override(tools=[t for t in request.tools if t.name != "place_order"]))


def _agent(*theirs: AgentMiddleware[Any, Any], capacity: Capacity | None = None) -> tuple[Any, OfflineModel]:
    guard = SurfaceGuardMiddleware(TOOLS, web_tools=WEB, capacity=capacity)
    model = OfflineModel(sent=[])
    return create_agent(model, tools=TOOLS, middleware=[guard, *theirs, guard.last]), model


def _invoke(agent: Any, owner: Owner) -> None:
    with owning(owner):
        agent.invoke({"messages": [{"role": "user", "content": "Buy 10 VWRL."}]})


def _names(sent: list[dict[str, Any]]) -> list[str]:
    return [t["function"]["name"] for t in sent]


def test_an_unchanged_surface_goes_out_as_admitted_and_is_settled_dispatched_once():
    agent, model = _agent()
    owner = Owner(REQUEST)
    _invoke(agent, owner)
    assert _names(model.sent[0]) == ["web_search", "web_read", "place_order"]
    # The JSON schema goes out as written: LangChain's conversion is not left to rewrite it.
    assert model.sent[0][2]["function"]["parameters"] == ORDER_SCHEMA
    assert owner.settled == [("dispatched", "")]


@pytest.mark.parametrize("flaw", [trim_schemas, drop_order_tool], ids=["schema-edited-in-place", "tool-dropped"])
def test_a_middleware_that_changes_the_tools_is_refused_before_anything_is_sent(flaw):
    agent, model = _agent(flaw)
    owner = Owner(REQUEST)
    with pytest.raises(SurfaceRefused) as refused:
        _invoke(agent, owner)
    assert refused.value.checkpoint == "final"
    assert model.sent == []
    assert owner.settled == [("pre_dispatch_rejected", "final check")]


def test_an_in_place_edit_does_not_reach_the_next_run_of_the_same_agent():
    edits = {"on": True}

    @wrap_model_call
    def sometimes_trim(request: Any, handler: Any) -> Any:
        if edits["on"]:
            for prop in next(t for t in request.tools if t.name == "place_order").args_schema["properties"].values():
                prop.pop("description", None)
        return handler(request)

    agent, model = _agent(sometimes_trim)
    with pytest.raises(SurfaceRefused):
        _invoke(agent, Owner(REQUEST))
    edits["on"] = False
    owner = Owner(REQUEST)
    _invoke(agent, owner)
    assert model.sent[0][2]["function"]["parameters"] == ORDER_SCHEMA
    assert place_order.args_schema == ORDER_SCHEMA  # the agent's own tool was never handed out
    assert owner.settled == [("dispatched", "")]


def test_a_trusted_fact_of_this_request_narrows_and_a_siblings_does_not():
    exhausted = OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", REQUEST)
    agent, model = _agent()
    _invoke(agent, Owner(REQUEST, [exhausted]))
    _invoke(agent, Owner(REQUEST, [OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", SIBLING)]))
    _invoke(agent, Owner(REQUEST, [OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "someone_else", REQUEST)]))
    assert [_names(sent) for sent in model.sent] == [
        ["place_order"],
        ["web_search", "web_read", "place_order"],
        ["web_search", "web_read", "place_order"],
    ]


def test_a_request_over_capacity_is_an_explicit_result_never_a_cut():
    agent, model = _agent(capacity=Capacity(budget_tokens=10_000, max_tools=2))
    owner = Owner(REQUEST)
    with pytest.raises(CapacityExceeded) as exceeded:
        _invoke(agent, owner)
    assert exceeded.value.tools == 3 and exceeded.value.max_tools == 2
    assert model.sent == []
    assert [settlement for settlement, _ in owner.settled] == ["pre_dispatch_rejected"]


def test_a_run_of_several_model_calls_is_settled_once_and_checked_on_every_call():
    calls = {"n": 0}

    class ToolCallingModel(OfflineModel):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            self.sent.append(kwargs.get("tools", []))
            if len(self.sent) == 1:
                call = {"name": "web_search", "args": {"query": "VWRL"}, "id": "call_1", "type": "tool_call"}
                return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=[call]))])
            return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])

    @wrap_model_call
    def drop_on_second_call(request: Any, handler: Any) -> Any:
        calls["n"] += 1
        return handler(request.override(tools=request.tools[:2]) if calls["n"] == 2 else request)

    model = ToolCallingModel(sent=[])
    guard = SurfaceGuardMiddleware(TOOLS, web_tools=WEB)
    agent = create_agent(model, tools=TOOLS, middleware=[guard, drop_on_second_call, guard.last])
    owner = Owner(REQUEST)
    with pytest.raises(SurfaceRefused), guard.running(owner):
        agent.invoke({"messages": [{"role": "user", "content": "Search VWRL."}]})
    assert len(model.sent) == 1  # the first call went out; the second, changed, did not
    assert owner.settled == [("pre_dispatch_rejected", "final check")]


def test_the_async_agent_is_guarded_the_same_way():
    @wrap_model_call
    async def drop_order_tool_async(request: Any, handler: Any) -> Any:
        return await handler(request.override(tools=[t for t in request.tools if t.name != "place_order"]))

    agent, model = _agent(drop_order_tool_async)
    owner = Owner(REQUEST)

    async def invoke() -> None:
        with owning(owner):
            await agent.ainvoke({"messages": [{"role": "user", "content": "Buy 10 VWRL."}]})

    with pytest.raises(SurfaceRefused):
        asyncio.run(invoke())
    assert model.sent == [] and owner.settled == [("pre_dispatch_rejected", "final check")]


def test_guard_early_refuses_a_change_that_a_later_rebuild_would_hide():
    @wrap_model_call
    def rebuild(request: Any, handler: Any) -> Any:
        """A re-validation that rebuilds the tools from the registry: it launders what came before."""
        return handler(request.override(tools=[t.model_copy() for t in TOOLS]))

    guard = SurfaceGuardMiddleware(TOOLS, web_tools=WEB)
    model = OfflineModel(sent=[])
    laundered = Owner(REQUEST)
    _invoke(create_agent(model, tools=TOOLS, middleware=[guard, drop_order_tool, rebuild, guard.last]), laundered)
    assert laundered.settled == [("dispatched", "")]  # the final check alone sees the rebuilt list
    refused = Owner(REQUEST)
    with pytest.raises(SurfaceRefused) as early:
        _invoke(
            create_agent(model, tools=TOOLS, middleware=[guard, drop_order_tool, guard.early, rebuild, guard.last]),
            refused,
        )
    assert early.value.checkpoint == "early" and refused.settled == [("pre_dispatch_rejected", "early check")]
    assert len(model.sent) == 1
