"""toolsurface.guard.pydantic_ai as a user installs it: an Agent built as pydantic-ai's docs show,
the guard added to its capabilities, run offline on a FunctionModel under an Owner of the test's
own (not the harness's ports)."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'")

from pydantic_ai import Agent, RunContext, Tool
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.tools import ToolDefinition

from toolsurface import CapacityExceeded, Settlement, SummaryRefused, SurfaceRefused
from toolsurface.guard import Capacity, owning
from toolsurface.guard.pydantic_ai import SurfaceGuardCapability
from toolsurface.scenarios import SUMMARY_HEADER, Binding, FactKind, OwnerFact, WebTools

# -- what the user has: tools, an owner, a model ----------------------------------------------

opened: list[str] = []


def search_instruments(query: str) -> str:
    """Search the market-data catalogue for instruments by name, ticker or ISIN."""
    return f"instruments matching {query}"


def web_search(query: str) -> str:
    """Search the web."""
    return f"pages about {query}"


def web_read(url: str) -> str:
    """Read one web page."""
    opened.append(url)
    return f"the text of {url}"


TOOLS = [search_instruments, web_search, web_read]
WEB = WebTools(search="web_search", read="web_read")
THIS = Binding("run_1", "scope:research", "inv_1", "conn_1")
SIBLING = replace(THIS, invocation="inv_2")


@dataclass
class Owner:
    """The user's side of a request: its identity, its owners' facts, its ledger entry."""

    binding: Binding = THIS
    recorded: list[OwnerFact] = field(default_factory=list)
    settlements: list[tuple[Settlement, str]] = field(default_factory=list)

    def facts(self) -> tuple[OwnerFact, ...]:
        return tuple(self.recorded)

    def settle(self, settlement: Settlement, note: str) -> None:
        self.settlements.append((settlement, note))


@dataclass
class Provider:
    """The offline model: records each request's tools as they reached it; calls `web_read` once
    when asked to, then answers in text."""

    calls_a_tool: bool = False
    sent: list[list[dict[str, Any]]] = field(default_factory=list)

    def model(self) -> FunctionModel:
        async def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.sent.append(
                [{"name": t.name, "schema": copy.deepcopy(t.parameters_json_schema)} for t in info.function_tools]
            )
            answered = any(isinstance(part, ToolReturnPart) for message in messages for part in message.parts)
            if self.calls_a_tool and not answered:
                return ModelResponse(parts=[ToolCallPart("web_read", {"url": "https://example.org/vwrl"})])
            return ModelResponse(parts=[TextPart("done")])

        return FunctionModel(reply)

    def names(self, call: int = 0) -> list[str]:
        return [tool["name"] for tool in self.sent[call]]


@dataclass
class Hook(AbstractCapability[Any]):
    """A user's `prepare_tools` hook: `change` edits the step's tool definitions, when set."""

    change: Callable[[list[ToolDefinition]], list[ToolDefinition]] | None = None

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        return tool_defs if self.change is None else self.change(tool_defs)


def edit_schema_in_place(tools: list[ToolDefinition]) -> list[ToolDefinition]:
    tools[0].parameters_json_schema["properties"]["limit"] = {"type": "integer"}
    return tools


def drop_web_read(tools: list[ToolDefinition]) -> list[ToolDefinition]:
    return [tool for tool in tools if tool.name != "web_read"]


def add_foreign(tools: list[ToolDefinition]) -> list[ToolDefinition]:
    return [
        *tools,
        ToolDefinition(
            name="shell__run", description="Run a shell command.", parameters_json_schema={"type": "object"}
        ),
    ]


def run(agent: Agent[Any, Any], owner: Owner, model: Model, prompt: str = "Compare VWRL and SSAC") -> Any:
    with owning(owner):
        return asyncio.run(agent.run(prompt, model=model))


def admitted_schema(tool: Callable[..., Any]) -> dict[str, Any]:
    return Tool(tool).tool_def.parameters_json_schema


# -- the tests --------------------------------------------------------------------------------


def test_an_unchanged_surface_goes_out_and_the_run_is_settled_dispatched_once():
    provider, owner = Provider(calls_a_tool=True), Owner()
    guard = SurfaceGuardCapability(TOOLS, web_tools=WEB)
    agent = Agent(provider.model(), capabilities=[Hook(), guard])
    opened.clear()
    assert run(agent, owner, provider.model()).output == "done"
    # Both model calls of the run went out with the admitted tools; the tool call ran the user's function.
    assert [provider.names(call) for call in (0, 1)] == [["search_instruments", "web_search", "web_read"]] * 2
    assert provider.sent[1][0]["schema"] == admitted_schema(search_instruments)
    assert opened == ["https://example.org/vwrl"]
    assert owner.settlements == [(Settlement.DISPATCHED, "")]


@pytest.mark.parametrize("change", [edit_schema_in_place, drop_web_read, add_foreign])
@pytest.mark.parametrize("guard_first", [False, True], ids=["guard-last", "guard-first"])
def test_a_hook_that_changes_the_tools_is_refused_before_anything_is_sent(change, guard_first):
    provider, owner = Provider(), Owner()
    guard = SurfaceGuardCapability(TOOLS)
    hook = Hook(change)
    # The guard sits in the innermost tier: wherever the user lists it, it checks after their hooks.
    agent = Agent(provider.model(), capabilities=[guard, hook] if guard_first else [hook, guard])
    with pytest.raises(SurfaceRefused) as refused:
        run(agent, owner, provider.model())
    assert refused.value.checkpoint == "toolset"
    assert provider.sent == []
    assert owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "toolset check")]


def test_an_in_place_edit_stays_in_its_run_with_the_guard_and_leaks_into_the_next_without_it():
    hook = Hook(edit_schema_in_place)
    stock_provider = Provider()
    stock = Agent(stock_provider.model(), tools=TOOLS, capabilities=[hook])
    asyncio.run(stock.run("first"))
    hook.change = None
    asyncio.run(stock.run("second"))
    # Without the guard the edit landed on the schema dict the agent's Tool holds: the next run sends it.
    assert "limit" in stock_provider.sent[1][0]["schema"]["properties"]

    provider, guard = Provider(), SurfaceGuardCapability(TOOLS)
    agent = Agent(provider.model(), capabilities=[hook, guard])
    run(agent, Owner(), provider.model())  # unchanged: its tool copies are handed on to the next run
    hook.change = edit_schema_in_place
    with pytest.raises(SurfaceRefused):
        run(agent, Owner(), provider.model())
    hook.change = None
    owner = Owner()
    run(agent, owner, provider.model())
    assert len(provider.sent) == 2 and provider.sent[1][0]["schema"] == admitted_schema(search_instruments)
    assert owner.settlements == [(Settlement.DISPATCHED, "")]


@pytest.mark.parametrize(
    "bound_to, hidden", [(THIS, {"web_search", "web_read"}), (SIBLING, set())], ids=["own", "sibling"]
)
def test_a_trusted_owner_fact_narrows_the_surface_and_a_siblings_does_not(bound_to, hidden):
    provider = Provider()
    owner = Owner(recorded=[OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", bound_to)])
    agent = Agent(provider.model(), capabilities=[Hook(), SurfaceGuardCapability(TOOLS, web_tools=WEB)])
    run(agent, owner, provider.model())
    assert provider.names() == [name for name in ("search_instruments", "web_search", "web_read") if name not in hidden]
    assert owner.settlements == [(Settlement.DISPATCHED, "")]


def test_a_fact_that_arrives_mid_run_narrows_the_next_model_call():
    owner = Owner()
    deadline = OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", THIS)

    def web_read_then_deadline(url: str) -> str:
        """Read one web page."""
        owner.recorded.append(deadline)  # the host's deadline passes while the tool runs
        return "page"

    provider = Provider(calls_a_tool=True)
    tools = [search_instruments, web_search, Tool(web_read_then_deadline, name="web_read")]
    run(Agent(provider.model(), capabilities=[SurfaceGuardCapability(tools, web_tools=WEB)]), owner, provider.model())
    assert [provider.names(call) for call in (0, 1)] == [
        ["search_instruments", "web_search", "web_read"],
        ["search_instruments"],
    ]
    assert owner.settlements == [(Settlement.DISPATCHED, "")]


def test_a_model_wrapper_that_adds_a_tool_after_the_hooks_is_refused_at_the_final_check():
    @dataclass
    class Seal(AbstractCapability[Any]):
        def get_wrapper_model(self, model: Model) -> Model:
            class Adding(WrapperModel):
                async def request(self, messages: Any, settings: Any, parameters: Any) -> ModelResponse:
                    parameters = replace(parameters, function_tools=add_foreign(list(parameters.function_tools)))
                    return await self.wrapped.request(messages, settings, parameters)

            return Adding(model)

    provider, owner = Provider(), Owner()
    agent = Agent(provider.model(), capabilities=[SurfaceGuardCapability(TOOLS), Seal()])
    with pytest.raises(SurfaceRefused) as refused:
        run(agent, owner, provider.model())
    assert refused.value.checkpoint == "final"
    assert provider.sent == [] and owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "final check")]


def test_the_checkpoint_after_the_hooks_sees_an_edit_a_later_rebuild_would_hide():
    def rebuild(tools: list[ToolDefinition]) -> list[ToolDefinition]:
        return [Tool(tool).tool_def for tool in TOOLS]  # a re-validation that lists the tools afresh

    guard = SurfaceGuardCapability(TOOLS)
    laundered, provider = Owner(), Provider()
    run(Agent(provider.model(), capabilities=[Hook(add_foreign), Hook(rebuild), guard]), laundered, provider.model())
    assert laundered.settlements == [(Settlement.DISPATCHED, "")]  # the hook's add never showed

    owner, provider = Owner(), Provider()
    agent = Agent(provider.model(), capabilities=[Hook(add_foreign), guard.checkpoint(), Hook(rebuild), guard])
    with pytest.raises(SurfaceRefused) as refused:
        run(agent, owner, provider.model())
    assert refused.value.checkpoint == "early"
    assert provider.sent == [] and owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]


@pytest.mark.parametrize(
    "capacity", [Capacity(budget_tokens=60), Capacity(budget_tokens=100_000, max_tools=2)], ids=["tokens", "tools"]
)
def test_a_request_that_cannot_fit_is_an_explicit_capacity_result_never_a_cut(capacity):
    provider, owner = Provider(), Owner()
    agent = Agent(provider.model(), capabilities=[SurfaceGuardCapability(TOOLS, capacity=capacity)])
    with pytest.raises(CapacityExceeded) as exceeded:
        run(agent, owner, provider.model())
    assert exceeded.value.tools == 3
    assert provider.sent == [] and owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "context_fit check")]
    roomy = Owner()
    run(
        Agent(provider.model(), capabilities=[SurfaceGuardCapability(TOOLS, capacity=Capacity(100_000, 3))]),
        roomy,
        provider.model(),
    )
    assert (
        provider.names() == ["search_instruments", "web_search", "web_read"]
        and roomy.settlements[0][0] is Settlement.DISPATCHED
    )


def test_an_entry_request_must_state_the_contracts_summary_word_for_word():
    summary = f"{SUMMARY_HEADER}\nsearch_instruments, web_search, web_read"
    guard = SurfaceGuardCapability(TOOLS, summary=summary)
    provider, owner = Provider(), Owner()
    run(Agent(provider.model(), system_prompt=summary, capabilities=[guard]), owner, provider.model())
    assert owner.settlements == [(Settlement.DISPATCHED, "")]
    overclaim, provider = Owner(), Provider()
    with pytest.raises(SummaryRefused):
        run(
            Agent(provider.model(), system_prompt=summary + ", shell__run", capabilities=[guard]),
            overclaim,
            provider.model(),
        )
    assert provider.sent == [] and overclaim.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "toolset check")]


def test_a_run_without_an_owner_is_not_started():
    provider = Provider()
    with pytest.raises(LookupError, match="owning"):
        asyncio.run(Agent(provider.model(), capabilities=[SurfaceGuardCapability(TOOLS)]).run("hi"))
    assert provider.sent == []


def test_the_guard_imports_nothing_of_the_harness_machinery():
    import ast
    from pathlib import Path

    import toolsurface.guard

    forbidden = ("toolsurface.harness._ports", "toolsurface.harness._adapters", "toolsurface.harness._runner",
                 "toolsurface.harness._oracles", "toolsurface.harness._reference")  # fmt: skip
    folder = Path(toolsurface.guard.__file__).parent
    for module in ("pydantic_ai.py", "_pydantic_ai_views.py"):
        tree = ast.parse((folder / module).read_text())
        imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)] + [
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        ]
        names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names]
        assert not [name for name in imported if name.startswith(forbidden)], module
        assert "Scenario" not in names, module


def test_a_streamed_run_is_checked_and_settled_as_a_run_is():
    sent: list[list[str]] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        sent.append([tool.name for tool in info.function_tools])
        yield "done"

    owner = Owner(recorded=[OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", THIS)])
    agent = Agent(FunctionModel(stream_function=stream), capabilities=[SurfaceGuardCapability(TOOLS, web_tools=WEB)])

    async def main() -> str:
        async with agent.run_stream("Compare VWRL and SSAC") as result:
            return await result.get_output()

    with owning(owner):
        assert asyncio.run(main()) == "done"
    assert sent == [["search_instruments"]]  # narrowed by the trusted fact, through the model's stream
    assert owner.settlements == [(Settlement.DISPATCHED, "")]


def double_a_space(tools: list[ToolDefinition]) -> list[ToolDefinition]:
    return [replace(tools[0], description=tools[0].description.replace(" ", "  ", 1)), *tools[1:]]


def collapse_spaces(tools: list[ToolDefinition]) -> list[ToolDefinition]:
    """A clean-up "to save tokens" that puts the doubled space back as admitted."""
    return [replace(tool, description=" ".join(tool.description.split())) for tool in tools]


@dataclass
class RequestHook(AbstractCapability[Any]):
    """A user's `before_model_request` hook: `change` edits the request's tool definitions."""

    change: Callable[[list[ToolDefinition]], list[ToolDefinition]]

    async def before_model_request(self, ctx: RunContext[Any], request_context: Any) -> Any:
        parameters = request_context.model_request_parameters
        return replace(
            request_context,
            model_request_parameters=replace(parameters, function_tools=self.change(parameters.function_tools)),
        )


@pytest.mark.parametrize("hook", [Hook, RequestHook], ids=["prepare_tools", "before_model_request"])
def test_a_hook_that_puts_a_change_back_hides_it_and_the_request_goes_out_repaired(hook):
    guard = SurfaceGuardCapability(TOOLS)
    provider = Provider()
    with pytest.raises(SurfaceRefused):  # the change alone is refused, at the toolset or the final check
        run(Agent(provider.model(), capabilities=[hook(double_a_space), guard]), Owner(), provider.model())
    owner = Owner()
    run(
        Agent(provider.model(), capabilities=[hook(double_a_space), hook(collapse_spaces), guard]),
        owner,
        provider.model(),
    )
    assert provider.names() == ["search_instruments", "web_search", "web_read"]
    assert owner.settlements == [(Settlement.DISPATCHED, "")]  # repaired, not refused


def test_the_checkpoint_between_a_change_and_the_hook_that_puts_it_back_refuses_it():
    guard = SurfaceGuardCapability(TOOLS)
    owner, provider = Owner(), Provider()
    agent = Agent(
        provider.model(), capabilities=[Hook(double_a_space), guard.checkpoint(), Hook(collapse_spaces), guard]
    )
    with pytest.raises(SurfaceRefused) as refused:
        run(agent, owner, provider.model())
    assert refused.value.checkpoint == "early"
    assert provider.sent == [] and owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]
