"""Guard cost on a 128-tool surface with ~2 KB schemas: baseline capture + early + final check.

The reference guard takes its baseline from the contract's recorded descriptors and checks the
live request twice. Compared in the same run with:
(a)  `==` of two independently built trees (parsed from JSON: no leaf is shared, every byte read);
(a′) `==` of a tree and its deepcopy (leaf strings shared, so compared by identity — a floor);
(b)  the same guard with a `copy.deepcopy` capture and `==` checks.
The snapshot guard is also measured on the same surface with every schema's keys in the opposite
order, a change parity ignores: snapshots sort keys when taken, so it costs what the unchanged
surface costs.
Ratios are printed by conftest.py at the end of the run.

The LangChain integration's overhead per model call of an unchanged surface is measured the same
way: one `create_agent` run of one model call with an offline model, with `toolsurface.guard.langchain`
installed, against the same agent without it; on the 128 tools (where the guard sends OpenAI-format
dicts, sparing LangChain's own conversion of each JSON schema) and on three `@tool` functions
(where both convert alike, so the difference is the guard's own work).

The pydantic-ai guard (`toolsurface.guard.pydantic_ai`) is measured the same way too: a run of one
model call on the 128 tools, through an offline `FunctionModel`, with the guard's capability
against the same agent given the tools directly.
"""

import asyncio
import copy

import orjson
import pytest

from tests.benchmarks._surfaces import schema_bytes, surface
from toolsurface.contract._canonical import capture, snapshot_of
from toolsurface.guard import owning
from toolsurface.scenarios import Binding, ToolDescriptor

TOOLS = surface(128)
DESCRIPTORS = [ToolDescriptor.of(t["name"], t["description"], t["input_schema"]) for t in TOOLS]
INDEPENDENT = orjson.loads(orjson.dumps(TOOLS))
SHARED = copy.deepcopy(TOOLS)


def _keys_reversed(value):
    if isinstance(value, dict):
        return {key: _keys_reversed(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_keys_reversed(item) for item in value]
    return value


#: The same surface with every schema's keys in the opposite order: a legitimate change, so parity holds.
REORDERED = [dict(tool, input_schema=_keys_reversed(tool["input_schema"])) for tool in TOOLS]


def test_schema_size_is_realistic():
    assert 1500 <= schema_bytes(TOOLS) <= 2600


def guard_with_snapshot():
    baseline = snapshot_of(DESCRIPTORS)
    return capture(TOOLS) == baseline and capture(TOOLS) == baseline


def guard_with_snapshot_reordered():
    baseline = snapshot_of(DESCRIPTORS)
    return capture(REORDERED) == baseline and capture(REORDERED) == baseline


def guard_with_deepcopy():
    baseline = copy.deepcopy(TOOLS)
    return baseline == TOOLS and baseline == TOOLS


def test_snapshot_guard(benchmark):
    benchmark.group = "guard"
    benchmark.name = "snapshot capture + early + final"
    assert benchmark(guard_with_snapshot)


def test_snapshot_guard_on_reordered_keys(benchmark):
    benchmark.group = "guard"
    benchmark.name = "snapshot capture + early + final, every schema's keys reordered"
    benchmark.extra_info["against"] = "(a) == of two independently built trees"
    assert benchmark(guard_with_snapshot_reordered)


def test_independent_equality(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(a) == of two independently built trees"
    assert benchmark(lambda: TOOLS == INDEPENDENT)


def test_shared_leaf_equality(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(a') == of a tree and its deepcopy"
    assert benchmark(lambda: TOOLS == SHARED)


def test_deepcopy_guard(benchmark):
    benchmark.group = "guard"
    benchmark.name = "(b) deepcopy capture + early + final"
    assert benchmark(guard_with_deepcopy)


# -- the LangChain integration: its overhead per model call of an unchanged surface ----------------


def _langchain_agents(surface: str):
    """The same `create_agent` agent and offline model, bare and with the guard, on the 128 tools
    (JSON-schema `StructuredTool`s) or on three `@tool` functions (pydantic schemas)."""
    pytest.importorskip("langchain", reason="needs the langchain extra")
    from langchain.agents import create_agent
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import StructuredTool, tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from toolsurface.guard.langchain import SurfaceGuardMiddleware

    class OfflineModel(BaseChatModel):
        """Answers in text; binds tools as provider integrations do."""

        @property
        def _llm_type(self):
            return "offline"

        def bind_tools(self, tools, **kwargs):
            return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

        def _generate(self, messages, stop=None, run_manager=None, **kwargs):
            return ChatResult(generations=[ChatGeneration(message=AIMessage("done"))])

    if surface == "128":
        tools = [
            StructuredTool(name=t["name"], description=t["description"], args_schema=t["input_schema"], func=str)
            for t in TOOLS
        ]
    else:

        @tool
        def search(query: str, limit: int = 10) -> str:
            """Search the catalogue."""
            return query

        @tool
        def read(url: str) -> str:
            """Read a page."""
            return url

        @tool
        def quote(ticker: str, currency: str = "EUR") -> str:
            """Quote an instrument."""
            return ticker

        tools = [search, read, quote]
    guard = SurfaceGuardMiddleware(tools)
    return create_agent(OfflineModel(), tools=tools), create_agent(
        OfflineModel(), tools=tools, middleware=[guard, guard.last]
    )


class _Owner:
    binding = Binding("run", "scope", "invocation", "connection")
    settled = None

    def facts(self):
        return ()

    def settle(self, settlement, note):
        self.settled = settlement


def _one_model_call(agent, owner=None):
    with owning(owner or _Owner()):
        return agent.invoke({"messages": [{"role": "user", "content": "hello"}]})


SURFACES = {"128": "128 JSON-schema tools", "3": "3 @tool functions"}


@pytest.mark.parametrize("surface", SURFACES)
def test_langchain_agent_bare(benchmark, surface):
    bare, _ = _langchain_agents(surface)
    benchmark.group = "langchain guard"
    benchmark.name = f"create_agent, {SURFACES[surface]}, one model call"
    assert benchmark(_one_model_call, bare)["messages"][-1].content == "done"


@pytest.mark.parametrize("surface", SURFACES)
def test_langchain_agent_guarded(benchmark, surface):
    _, guarded = _langchain_agents(surface)
    benchmark.group = "langchain guard"
    benchmark.name = f"the same with toolsurface.guard.langchain, {SURFACES[surface]}"
    benchmark.extra_info["against"] = f"create_agent, {SURFACES[surface]}, one model call"
    owner = _Owner()
    assert _one_model_call(guarded, owner)["messages"][-1].content == "done"
    assert str(owner.settled) == "dispatched"
    benchmark(_one_model_call, guarded)


# -- the OpenAI Agents SDK guard: what it adds to one model call of an unchanged surface --------------

AGENTS_BARE = "(openai-agents) Runner.run: one call of the offline model, no guard"


def _agents_runs():
    """A bare and a guarded run of the same agent of the 128 tools, on one event loop."""
    import asyncio

    from agents import Agent, FunctionTool, RunConfig, Runner
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.testing import assistant_message
    from agents.usage import Usage

    from toolsurface.guard import owning
    from toolsurface.guard.openai_agents import SurfaceGuard
    from toolsurface.scenarios import Binding

    class Offline(Model):
        async def get_response(self, *args, **kwargs):
            return ModelResponse(output=[assistant_message("done")], usage=Usage(), response_id=None)

        async def stream_response(self, *args, **kwargs):
            raise NotImplementedError
            yield

    class Owner:
        binding = Binding("run", "scope", "invocation", "connection")

        def facts(self):
            return ()

        def settle(self, settlement, note):
            self.settlement = settlement

    async def result(context, arguments):
        return "ok"

    tools = [
        FunctionTool(
            name=t["name"],
            description=t["description"],
            params_json_schema=t["input_schema"],
            on_invoke_tool=result,
            strict_json_schema=False,
        )
        for t in TOOLS
    ]
    guard = SurfaceGuard(tools)
    agent = Agent(name="bench", instructions="Answer.", tools=tools, model=Offline())
    guarded = agent.clone(model=guard.model(Offline()))
    config = RunConfig(tracing_disabled=True)
    loop = asyncio.new_event_loop()

    async def bare_run():
        return await Runner.run(agent, "hello", run_config=config)

    async def guarded_run():
        with owning(Owner()):
            return await guard.run(guarded, "hello", run_config=config)

    return (lambda: loop.run_until_complete(bare_run())), (lambda: loop.run_until_complete(guarded_run()))


def _needs_agents():
    import importlib.util

    import pytest

    return pytest.mark.skipif(importlib.util.find_spec("agents") is None, reason="needs the openai-agents extra")


@_needs_agents()
def test_agents_bare_model_call(benchmark):
    benchmark.group = "openai-agents guard"
    benchmark.name = AGENTS_BARE
    bare, _ = _agents_runs()
    assert benchmark(bare).final_output == "done"


@_needs_agents()
def test_agents_guarded_model_call(benchmark):
    benchmark.group = "openai-agents guard"
    benchmark.name = "(openai-agents) guard.run: the same call, checked early and right before the model"
    benchmark.extra_info["against"] = AGENTS_BARE
    _, guarded = _agents_runs()
    assert benchmark(guarded).final_output == "done"


# -- the pydantic-ai guard, per model call ------------------------------------------------------

BARE = "pydantic-ai agent, no guard (one model call)"


@pytest.fixture(scope="module")
def pydantic_ai_agents():
    pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra")
    from pydantic_ai import Agent, Tool
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    from toolsurface.guard.pydantic_ai import SurfaceGuardCapability

    def tools():
        return [
            Tool.from_schema(
                lambda **_: "", name=t["name"], description=t["description"], json_schema=t["input_schema"]
            )
            for t in TOOLS
        ]

    model = FunctionModel(lambda messages, info: ModelResponse(parts=[TextPart(f"{len(info.function_tools)} tools")]))
    bare = Agent(model, tools=tools())
    guarded = Agent(model, capabilities=[SurfaceGuardCapability(tools())])
    loop = asyncio.new_event_loop()
    yield loop, bare, guarded
    loop.close()


def test_pydantic_ai_bare_model_call(benchmark, pydantic_ai_agents):
    loop, bare, _ = pydantic_ai_agents
    benchmark.group = "pydantic-ai guard"
    benchmark.name = BARE
    assert benchmark(lambda: loop.run_until_complete(bare.run("hi")).output) == "128 tools"


def test_pydantic_ai_guarded_model_call(benchmark, pydantic_ai_agents):
    loop, _, guarded = pydantic_ai_agents
    benchmark.group = "pydantic-ai guard"
    benchmark.name = "pydantic-ai agent with SurfaceGuardCapability (one model call)"
    benchmark.extra_info["against"] = BARE
    owner = _Owner()

    def run():
        with owning(owner):
            return loop.run_until_complete(guarded.run("hi")).output

    assert benchmark(run) == "128 tools"
    assert str(owner.settled) == "dispatched"
