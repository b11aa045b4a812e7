"""The Agents SDK guard as a user installs it: an `Agent` written the way the SDK docs show, the
SDK's own scripted test model behind the guard's wrapper, and a small owner of the test's own."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

agents = pytest.importorskip("agents", reason="needs the openai-agents extra: pip install 'toolsurface[openai-agents]'")

from agents import Agent, RunConfig, RunHooks, function_tool
from agents.models.interface import Model
from agents.testing import ScriptedModel, assistant_message

from toolsurface import CapacityExceeded, Settlement, SurfaceRefused
from toolsurface.guard import Capacity, owning
from toolsurface.guard.openai_agents import SurfaceGuard
from toolsurface.scenarios import Binding, FactKind, OwnerFact, WebTools

REQUEST = Binding(run="run_1", scope="scope:research", invocation="inv_1", connection="conn_1")
SIBLING = Binding(run="run_1", scope="scope:research", invocation="inv_2", connection="conn_1")
WEB = WebTools(search="web_search", read="web_read")
OFFLINE = RunConfig(tracing_disabled=True)


def web_search(query: str) -> str:
    """Search the web for pages about the query."""
    return f"results for {query}"


def web_read(url: str) -> str:
    """Read one web page."""
    return f"the page at {url}"


def get_price(ticker: str) -> str:
    """The last price of a ticker."""
    return f"{ticker}: 101.5"


def admitted_tools() -> list:
    """The tools a host admits, as `@function_tool` makes them (strict schemas)."""
    return [function_tool(web_search), function_tool(web_read), function_tool(get_price)]


@dataclass
class Owner:
    """The request's owner as a host writes one: its identity, its owners' facts, its ledger."""

    binding: Binding = REQUEST
    recorded: list[OwnerFact] = field(default_factory=list)
    settled: list[tuple[Settlement, str]] = field(default_factory=list)

    def facts(self) -> list[OwnerFact]:
        return list(self.recorded)

    def settle(self, settlement: Settlement, note: str) -> None:
        self.settled.append((settlement, note))


class EditsSchemaInPlace(RunHooks):
    """A hook "saving tokens": it trims a parameter's description on the live schema dict."""

    async def on_agent_start(self, context, agent) -> None:
        agent.tools[0].params_json_schema["properties"]["query"]["description"] = "q"


class DropsATool(RunHooks):
    """A tool selector that keeps the tools it thinks the question needs."""

    async def on_agent_start(self, context, agent) -> None:
        agent.tools = [tool for tool in agent.tools if tool.name != "get_price"]


class EditsBeforeTheModel(RunHooks):
    """An edit after the early check, right before the model call: the turn's tools are the agent's objects."""

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        agent.tools[2].description = "Price."


class Recording(RunHooks):
    """A host's own hooks, which must run as they would without the guard."""

    def __init__(self) -> None:
        self.events: list[str] = []

    async def on_agent_start(self, context, agent) -> None:
        self.events.append("agent_start")

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        self.events.append("llm_start")

    async def on_llm_end(self, context, agent, response) -> None:
        self.events.append("llm_end")

    async def on_agent_end(self, context, agent, output) -> None:
        self.events.append(f"agent_end: {output}")


def installed(capacity: Capacity | None = None) -> tuple[Agent, SurfaceGuard, ScriptedModel]:
    tools = admitted_tools()
    guard = SurfaceGuard(tools, web_tools=WEB, capacity=capacity)
    model = ScriptedModel([[assistant_message("done")] for _ in range(4)])
    agent = Agent(
        name="Research assistant", instructions="Answer with the tools offered.", tools=tools, model=guard.model(model)
    )
    return agent, guard, model


def ask(guard: SurfaceGuard, agent: Agent, owner: Owner, hooks: RunHooks | None = None):
    async def request():
        with owning(owner):
            return await guard.run(agent, "How did ACME trade this week?", hooks=hooks, run_config=OFFLINE)

    return asyncio.run(request())


def sent(model: ScriptedModel, call: int = -1) -> list[tuple[str, str, dict]]:
    tools = model.calls[call].tools
    return [(tool.name, tool.description, tool.params_json_schema) for tool in tools]


def test_an_unchanged_request_goes_out_and_is_settled_dispatched_once():
    agent, guard, model = installed()
    owner, hooks = Owner(), Recording()
    assert ask(guard, agent, owner, hooks).final_output == "done"
    assert hooks.events == ["agent_start", "llm_start", "llm_end", "agent_end: done"]
    assert [name for name, _, _ in sent(model)] == ["web_search", "web_read", "get_price"]
    assert sent(model) == [(t.name, t.description, t.params_json_schema) for t in admitted_tools()]
    assert owner.settled == [(Settlement.DISPATCHED, "")]


@pytest.mark.parametrize(
    "hook, checkpoint", [(EditsSchemaInPlace, "early"), (DropsATool, "early"), (EditsBeforeTheModel, "final")]
)
def test_a_hook_that_changes_the_tools_is_refused_settled_once_and_leaves_the_next_run_clean(hook, checkpoint):
    agent, guard, model = installed()
    owner = Owner()
    with pytest.raises(SurfaceRefused) as refused:
        ask(guard, agent, owner, hooks=hook())
    assert refused.value.checkpoint == checkpoint
    assert model.calls == ()  # nothing reached the model
    assert owner.settled == [(Settlement.PRE_DISPATCH_REJECTED, f"{checkpoint} check")]
    # The edit stayed with its run: the agent's own tools, and the next request on it, are as admitted.
    assert [(t.name, t.description, t.params_json_schema) for t in agent.tools] == sent_admitted()
    nxt = Owner()
    ask(guard, agent, nxt)
    assert sent(model) == sent_admitted()
    assert nxt.settled == [(Settlement.DISPATCHED, "")]


def sent_admitted() -> list[tuple[str, str, dict]]:
    return [(t.name, t.description, t.params_json_schema) for t in admitted_tools()]


def test_a_trusted_owner_fact_narrows_the_request_and_a_siblings_does_not():
    agent, guard, model = installed()
    exhausted = OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", REQUEST, source_refs=("src_1",))
    ask(guard, agent, Owner(recorded=[exhausted]))
    # The budget stops new searches; reading the sources already found stays open.
    assert [name for name, _, _ in sent(model)] == ["web_read", "get_price"]
    siblings = OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", SIBLING)
    ask(guard, agent, Owner(recorded=[siblings]))
    assert [name for name, _, _ in sent(model)] == ["web_search", "web_read", "get_price"]


def test_a_request_that_cannot_fit_is_a_capacity_result_not_a_shorter_tool_list():
    agent, guard, model = installed(capacity=Capacity(budget_tokens=60))
    owner = Owner()
    with pytest.raises(CapacityExceeded):
        ask(guard, agent, owner)
    assert model.calls == ()
    assert owner.settled == [(Settlement.PRE_DISPATCH_REJECTED, "context_fit check")]


def test_the_owners_capacity_holds_where_the_guard_has_none_before_a_hook_can_cut_the_list():
    # The owner says the model call takes two tools; a hook keeps the first two of three to fit.
    agent, guard, model = installed()
    owner = Owner()
    owner.capacity = Capacity(budget_tokens=100_000, max_tools=2)  # type: ignore[attr-defined]
    with pytest.raises(CapacityExceeded):
        ask(guard, agent, owner, hooks=DropsATool())
    assert model.calls == ()
    assert [settlement for settlement, _ in owner.settled] == [Settlement.PRE_DISPATCH_REJECTED]


def test_a_model_left_unwrapped_or_run_outside_the_guard_fails_loudly():
    agent, guard, model = installed()
    bare = agent.clone(model=ScriptedModel([[assistant_message("done")]]))
    owner = Owner()
    with pytest.raises(RuntimeError, match=r"guard\.model"):
        ask(guard, bare, owner)
    assert owner.settled == [(Settlement.DISPATCHED, "run failed: RuntimeError")]
    with pytest.raises(RuntimeError, match=r"guard\.run"):
        asyncio.run(agents.Runner.run(agent, "hello", run_config=OFFLINE))
    assert model.calls == ()


def test_concurrent_requests_on_one_agent_keep_their_tools_apart():
    class DropsLater(RunHooks):
        async def on_agent_start(self, context, agent) -> None:
            await asyncio.sleep(0)  # the other request runs meanwhile
            agent.tools = agent.tools[:1]

    agent, guard, model = installed()
    dropping, unchanged = Owner(), Owner()

    async def both():
        async def one(owner, hooks):
            with owning(owner):
                return await guard.run(agent, "How did ACME trade?", hooks=hooks, run_config=OFFLINE)

        return await asyncio.gather(one(dropping, DropsLater()), one(unchanged, None), return_exceptions=True)

    refused, answered = asyncio.run(both())
    assert isinstance(refused, SurfaceRefused) and answered.final_output == "done"
    assert dropping.settled == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]
    assert unchanged.settled == [(Settlement.DISPATCHED, "")]
    assert sent(model) == sent_admitted()


class DoublesASpace(RunHooks):
    """An edit right before the model call, on the turn's own tool; with `guard`, checked right after it."""

    def __init__(self, guard: SurfaceGuard | None = None) -> None:
        self.guard = guard

    async def on_llm_start(self, context, agent, system_prompt, input_items) -> None:
        agent.tools[2].description = agent.tools[2].description.replace(" ", "  ", 1)
        if self.guard is not None:
            self.guard.check(agent, input_items)


class CollapsesSpaces(Model):
    """A model wrapper of the user's, outside the guard's, that tidies descriptions "to save tokens":
    it puts the doubled space back as admitted."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def tidy(self, tools: list) -> list:
        for tool in tools:
            tool.description = " ".join(tool.description.split())
        return tools

    async def get_response(self, system_instructions, input, model_settings, tools, *args, **kwargs):
        return await self.model.get_response(
            system_instructions, input, model_settings, self.tidy(tools), *args, **kwargs
        )

    def stream_response(self, system_instructions, input, model_settings, tools, *args, **kwargs):
        return self.model.stream_response(system_instructions, input, model_settings, self.tidy(tools), *args, **kwargs)


def test_a_piece_that_puts_a_change_back_hides_it_unless_the_guard_checks_between_them():
    agent, guard, model = installed()
    with pytest.raises(SurfaceRefused):  # the change alone is refused at the final check
        ask(guard, agent, Owner(), hooks=DoublesASpace())
    tidied = agent.clone(model=CollapsesSpaces(agent.model))
    repaired = Owner()
    ask(guard, tidied, repaired, hooks=DoublesASpace())
    assert sent(model) == sent_admitted() and repaired.settled == [(Settlement.DISPATCHED, "")]  # repaired, not refused
    refused = Owner()
    with pytest.raises(SurfaceRefused) as early:
        ask(guard, tidied, refused, hooks=DoublesASpace(guard))
    assert early.value.checkpoint == "early" and refused.settled == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]
    assert len(model.calls) == 1


class EditsTheHandoff(RunHooks):
    """A hook that rewords the handoff the model is told about, on the agent's own handoff object."""

    async def on_agent_start(self, context, agent) -> None:
        agent.handoffs[0].tool_description = "Ask the desk."


def with_a_handoff(declared: bool) -> tuple[Agent, SurfaceGuard, ScriptedModel]:
    tools = admitted_tools()
    desk = Agent(name="Pricing desk", instructions="Price what you are asked.")
    guard = SurfaceGuard(tools, handoffs=[desk] if declared else ())
    model = ScriptedModel([[assistant_message("done")] for _ in range(4)])
    agent = Agent(name="Research assistant", tools=tools, handoffs=[desk], model=guard.model(model))
    return agent, guard, model


def test_a_handoff_reaches_the_model_as_a_tool_and_is_checked_as_one():
    # Declared: the transfer tool is admitted and goes out after the tools.
    agent, guard, model = with_a_handoff(declared=True)
    owner = Owner()
    ask(guard, agent, owner)
    assert [h.tool_name for h in model.calls[-1].handoffs] == ["transfer_to_pricing_desk"]
    assert owner.settled == [(Settlement.DISPATCHED, "")]
    # Edited by a hook: refused, and the next run's handoff is as admitted.
    with pytest.raises(SurfaceRefused, match="description of 'transfer_to_pricing_desk'"):
        ask(guard, agent, Owner(), hooks=EditsTheHandoff())
    ask(guard, agent, Owner())
    assert "Ask the desk." not in {h.tool_description for h in model.calls[-1].handoffs}
    # Not given to the guard: the model would get a tool nobody admitted, so the request is refused.
    agent, guard, model = with_a_handoff(declared=False)
    owner = Owner()
    with pytest.raises(SurfaceRefused, match="added 'transfer_to_pricing_desk'"):
        ask(guard, agent, owner)
    assert model.calls == ()
    assert owner.settled == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]
