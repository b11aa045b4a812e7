"""Guard cost on a 128-tool surface with ~2 KB schemas: baseline capture + early + final check.

The reference guard takes its baseline from the contract's recorded descriptors and checks the
live request twice. Compared in the same run with:
(a)  `==` of two independently built trees (parsed from JSON: no leaf is shared, every byte read);
(a′) `==` of a tree and its deepcopy (leaf strings shared, so compared by identity — a floor);
(b)  the same guard with a `copy.deepcopy` capture and `==` checks.
Ratios are printed by conftest.py at the end of the run.
"""

import copy

import orjson

from tests.benchmarks._surfaces import schema_bytes, surface
from toolsurface.harness._canonical import capture, snapshot_of
from toolsurface.scenarios import ToolDescriptor

TOOLS = surface(128)
DESCRIPTORS = [ToolDescriptor.of(t["name"], t["description"], t["input_schema"]) for t in TOOLS]
INDEPENDENT = orjson.loads(orjson.dumps(TOOLS))
SHARED = copy.deepcopy(TOOLS)


def test_schema_size_is_realistic():
    assert 1500 <= schema_bytes(TOOLS) <= 2600


def guard_with_snapshot():
    baseline = snapshot_of(DESCRIPTORS)
    return capture(TOOLS) == baseline and capture(TOOLS) == baseline


def guard_with_deepcopy():
    baseline = copy.deepcopy(TOOLS)
    return TOOLS == baseline and TOOLS == baseline


def test_snapshot_guard(benchmark):
    benchmark.group = "guard"
    benchmark.name = "snapshot capture + early + final"
    assert benchmark(guard_with_snapshot)


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
        FunctionTool(name=t["name"], description=t["description"], params_json_schema=t["input_schema"], on_invoke_tool=result, strict_json_schema=False)
        for t in TOOLS
    ]  # fmt: skip
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
