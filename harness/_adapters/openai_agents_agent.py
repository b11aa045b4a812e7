"""`openai-agents:PKG.MOD:FACTORY` — your own OpenAI Agents SDK agent as a target.

`FACTORY(tools, model)` is handed the contract's tools as `FunctionTool`s (each returns what the
recorded tool returned) and an offline `Model` that reports what reached it to the gateway and
answers with the recorded model's tool calls. It returns one of:

- the `Agent` you build with them (its `model` is the model handed in, or your wrapper of it such as
  `guard.model(model)`); the harness runs each request with `Runner.run(agent, input)`;
- your application: an object whose `async run(input)` runs one request the way you do, say
  `guard.run(self.agent, input, hooks=AppHooks(), run_config=RunConfig(...))`.

Your pieces are the SDK's extension points that run before a model call and can change its tools
or input, in the order the SDK runs them: your `RunHooks.on_agent_start`, your agent's
`AgentHooks.on_start` (the first model call of a run only: the SDK collects the turn's tools from
`Agent.tools` right after), `RunConfig.call_model_input_filter`, your `RunHooks.on_llm_start` and
your agent's `AgentHooks.on_llm_start` (before every model call). A hook is yours where your class
overrides it; toolsurface's guard hooks are not yours and get no boundary. Boundaries: `before:FIRST`
as a model call's first piece starts, and `after:EACH` as each returns, named `Class.method` (a
filter by its name); a model call none of yours precedes has `before:model`, where the agent's model
is called, outside any wrapper of yours (so outside `guard.model`). A wrapper of yours around the
model is part of the model here: it gets no boundary of its own, and what it does to the tools is
judged by what reaches the offline model.

Your agent's handoffs reach the model as function tools after its tools: they are tools the agent
admits beside the recording's (the harness records each model call's tools and handoffs, as the SDK
collects them, as that call's admission), and what reaches the offline model is judged with them.
Changes are injected into the tools, not the handoffs, and no recorded model call hands off.

The seam: every `Runner.run` goes through the SDK's default agent runner
(`agents.run.set_default_agent_runner`, marked experimental, which is why the adapter pins 0.24).
The harness installs one that, inside a harness request only, sees the run's agent, hooks and run
config exactly as the SDK will use them — yours, or inside `guard.run` — borders your hook methods
for that run, and restores them after. Where tools are live (`on_agent_start`, `on_start`) a
boundary's change lands on `Agent.tools`; later, the SDK has collected the turn's tools and hands
hooks and filters none, so a changed list is carried to the agent's model, the one place that
takes it (in-place edits land on the `FunctionTool`s themselves, which the turn's list holds).
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the openai-agents targets need the OpenAI Agents SDK 0.24: pip install 'toolsurface[openai-agents]'"
with requires(_INSTALL):
    import agents
    import agents.run as sdk_run
    from agents import Agent, FunctionTool, RunConfig, RunContextWrapper, Runner
    from agents.items import ModelResponse
    from agents.lifecycle import AgentHooksBase, RunHooksBase
    from agents.models.interface import Model
    from agents.run_config import CallModelData, ModelInputData
    from agents.run_internal.turn_preparation import get_handoffs
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
require_version(_INSTALL, agents, "openai-agents", "0.24.")

import asyncio
import contextlib
import contextvars
import copy
import dataclasses
import functools
import inspect
import json
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, cast

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._formats import FORMATS, LOGICAL, ToolDescriptor
from toolsurface.guard._openai_agents_views import as_handoffs, tool_view
from toolsurface.scenarios import Boundary, Scenario

from .._ports import Ports
from ._agent import (
    UserAgentTarget,
    boundary_name,
    builds_own_tools,
    current_run,
    offer,
    recorded_tools,
    sealed_messages,
)
from ._common import same
from ._openai_agents_views import Crossing, input_items
from .openai_agents import ANSWER

#: Where the agent's model is called: the boundary of a model call no piece of yours precedes.
MODEL = "before:model"
#: Where the SDK's `is_enabled` selected a model call's tools, for the harness's record of it.
ADMISSION = "admission"
#: The module every piece of toolsurface's guard (`toolsurface.guard.openai_agents`) lives in.
GUARD = "toolsurface.guard"


# -- the tools and the offline model -------------------------------------------------------------


async def _recorded(context: Any, arguments: str) -> str:
    """Every tool: what the recorded tool returned for the call the SDK executes."""
    run = current_run()
    if run is None:
        raise RuntimeError("this tool only answers inside a toolsurface run")
    return str(run.ports.tool_result(context.tool_call_id))


def tool_of(view: Any) -> FunctionTool:
    """An admitted tool as a `FunctionTool` is made from a JSON schema; `strict_json_schema=False`
    keeps the schema dict it is given, so an in-place edit of a view lands on the tool."""
    if isinstance(view, ToolDescriptor):
        view = view.as_logical()
    return FunctionTool(
        name=view["name"], description=view.get("description", ""), params_json_schema=view["input_schema"],
        on_invoke_tool=_recorded, strict_json_schema=False,
    )  # fmt: skip


class OfflineModel(Model):
    """The offline model: it reports what reached it to the gateway and answers with the recorded
    model's function calls, under the gateway's ids, or in text once the recording ends."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        run = current_run()
        if run is None:
            raise RuntimeError("the offline model only answers inside a toolsurface run")
        sent = Crossing([t for t in tools if isinstance(t, FunctionTool)], _as_items(input), "dispatch", tool_of)
        # The handoffs go out as function tools after the tools (the SDK's converters): part of the surface.
        surface = [*sent.tools, *map(tool_view, handoffs)]
        reply = run.ports.gateway.dispatch(run.scenario.identity.request, surface, sent.messages)
        run.dispatched = True
        if calls := reply.get("tool_calls"):
            asked = [
                ResponseFunctionToolCall(
                    type="function_call", id=f"fc_{call['id']}", call_id=call["id"], name=call["name"],
                    arguments=json.dumps(call["arguments"]), status="completed",
                )
                for call in calls
            ]  # fmt: skip
            return ModelResponse(output=list(asked), usage=Usage(), response_id=None)
        text = ResponseOutputText(type="output_text", text=ANSWER, annotations=[])
        message = ResponseOutputMessage(
            id="msg_toolsurface", type="message", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("toolsurface runs the agent with Runner.run, not streamed")
        yield  # an async generator, as the interface declares


def _as_items(input: Any) -> list[Any]:
    return [{"role": "user", "content": input}] if isinstance(input, str) else list(input)


# -- your pieces and their boundaries ------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Pieces:
    """Your pieces, by name, in the order the SDK runs them: once as a run starts, and before every model call."""

    start: tuple[str, ...] = ()
    each: tuple[str, ...] = ()

    def of_call(self, call: int) -> tuple[str, ...]:
        return (*self.start, *self.each) if call == 1 else self.each

    def points(self, call: int) -> tuple[str, ...]:
        """The boundaries a model call crosses: before its first piece and after each, or the model's."""
        names = self.of_call(call)
        if not names:
            return (MODEL,)
        return (boundary_name("before", names[0]), *(boundary_name("after", name) for name in names))


@dataclasses.dataclass(slots=True)
class Turn:
    """One run's state between its boundaries: the pieces seen, and the tools a model call goes on with."""

    #: Seen as the run began (None: it never reached `Runner.run`).
    pieces: Pieces | None = None
    #: The model call `tools` are of; a changed list is carried to the agent's model.
    call: int = 0
    tools: list[Any] = dataclasses.field(default_factory=list)
    replaced: bool = False
    #: A new input list a boundary made before the SDK built the first model call's input.
    input: list[Any] | None = None

    #: Every tool the agent registered as the run began, and whether its `is_enabled` selects among them.
    registered: Snapshot = dataclasses.field(default_factory=lambda: capture([], LOGICAL))
    selects: bool = False
    #: The agent's handoffs as it was built (None: not known), which a run's edit in place cannot reach.
    handoffs: list[dict[str, Any]] | None = None

    async def tools_of(
        self, agent: Agent[Any], wrapper: RunContextWrapper[Any], call: int, items: list[Any]
    ) -> list[Any]:
        """This model call's tools: as carried, else as the SDK collects them (its own `get_all_tools`)."""
        if self.call != call:
            self.call, self.replaced = call, False
            self.tools = [tool for tool in await agent.get_all_tools(wrapper) if isinstance(tool, FunctionTool)]
            self.admitted(self.tools, await get_handoffs(agent, wrapper), items)
        return self.tools

    def admitted(self, tools: list[Any], handoffs: list[Any], items: list[Any]) -> None:
        """Where the SDK has collected a model call's tools, `is_enabled` has selected them: the
        harness's record of what the call admitted, for an agent whose `is_enabled` selects."""
        if self.selects and (run := current_run()) is not None:
            crossing = Crossing(tools, items, ADMISSION, tool_of)
            surface = [*crossing.tools, *map(tool_view, handoffs)]
            run.ports.admit(surface, list(crossing.messages), self.registered)

    def carry(self, tools: list[Any]) -> None:
        if not same(tools, self.tools):
            self.tools, self.replaced = tools, True


_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("toolsurface_openai_agents_turn", default=None)


def _crossing(point: str, tools: list[Any], items: list[Any]) -> tuple[list[Any], list[Any]]:
    """A boundary: the live tools and input items offered, and what the harness left of them."""
    crossing = Crossing(tools, items, point, tool_of)
    tool_views, message_views = offer(point, crossing.tools, crossing.messages)
    if (run := current_run()) is not None and run.ports.past_admission:  # what must fit is decided on these
        run.ports.refit(list(message_views))
    return crossing.function_tools(list(tool_views)), crossing.input_items(list(message_views))


def _yours(hooks: Any, base: type, method: str) -> bool:
    """Whether `hooks` is yours and overrides `method` (the SDK's own are no-ops)."""
    if hooks is None or type(hooks).__module__.startswith(GUARD):
        return False
    return getattr(type(hooks), method, None) is not getattr(base, method)


class Bordering:
    """One run's boundaries around your pieces: bordered while it runs, restored after."""

    def __init__(self, turn: Turn, agent: Agent[Any], hooks: Any, config: RunConfig) -> None:
        self.turn, self.agent, self.config = turn, agent, config
        registered = [tool for tool in agent.tools if isinstance(tool, FunctionTool)]
        handoffs = turn.handoffs if turn.handoffs is not None else handoff_views(agent)
        turn.registered = capture([*Crossing(registered, [], ADMISSION, tool_of).tools, *handoffs], LOGICAL)
        # Selection: tools `is_enabled` chooses among, or handoffs (tools the agent adds to those it was handed).
        turn.selects = bool(handoffs) or any(tool.is_enabled is not True for tool in registered)
        if hooks is not None and type(hooks).__module__.startswith(GUARD):
            hooks = getattr(hooks, "_yours", None)  # the guard's run hooks call yours, then check
        self.run_hooks, self.agent_hooks = hooks, agent.hooks
        run_name, agent_name = type(hooks).__name__, type(agent.hooks).__name__
        start, each = [], []
        self._methods: list[tuple[Any, str, str, bool]] = []
        for owner, base, method, name, at_start in (
            (hooks, RunHooksBase, "on_agent_start", f"{run_name}.on_agent_start", True),
            (agent.hooks, AgentHooksBase, "on_start", f"{agent_name}.on_start", True),
        ):
            if _yours(owner, base, method):
                start.append(name)
                self._methods.append((owner, method, name, at_start))
        self._filter = config.call_model_input_filter
        if self._filter is not None and not type(self._filter).__module__.startswith(GUARD):
            each.append(getattr(self._filter, "__name__", type(self._filter).__name__))
        for owner, base, name in (
            (hooks, RunHooksBase, f"{run_name}.on_llm_start"),
            (agent.hooks, AgentHooksBase, f"{agent_name}.on_llm_start"),
        ):
            if _yours(owner, base, "on_llm_start"):
                each.append(name)
                self._methods.append((owner, "on_llm_start", name, False))
        turn.pieces = Pieces(tuple(start), tuple(each))

    @property
    def pieces(self) -> Pieces:
        assert self.turn.pieces is not None
        return self.turn.pieces

    def _first(self, name: str, call: int) -> bool:
        return self.pieces.of_call(call)[:1] == (name,)

    def _at_start(self, name: str, hook: Callable[..., Any]) -> Callable[..., Any]:
        """A hook of the run's start: `Agent.tools` is live (the SDK collects the turn's tools after it)."""

        def cross(point: str, context: Any, agent: Any) -> None:
            tools = [tool for tool in agent.tools if isinstance(tool, FunctionTool)]
            others = [tool for tool in agent.tools if not isinstance(tool, FunctionTool)]
            new_tools, items = _crossing(point, tools, list(context.turn_input))
            if not same(new_tools, tools):
                agent.tools = [*new_tools, *others]
            if not same(items, context.turn_input):
                context.turn_input = self.turn.input = items  # installed as the model input by the filter

        @functools.wraps(hook)
        async def bordered(context: Any, agent: Any) -> Any:
            if self._first(name, 1):
                cross(boundary_name("before", name), context, agent)
            result = await hook(context, agent)
            cross(boundary_name("after", name), context, agent)
            return result

        return bordered

    def _at_llm_start(self, name: str, hook: Callable[..., Any]) -> Callable[..., Any]:
        """`on_llm_start`: the turn's tools are collected; its input items are the list the model gets."""

        async def cross(point: str, wrapper: Any, agent: Any, items: list[Any]) -> None:
            tools, new_items = _crossing(point, await self.turn.tools_of(agent, wrapper, _call(), items), items)
            self.turn.carry(tools)
            if not same(new_items, items):
                items[:] = new_items

        @functools.wraps(hook)
        async def bordered(wrapper: Any, agent: Any, system_prompt: str | None, items: list[Any]) -> Any:
            if self._first(name, _call()):
                await cross(boundary_name("before", name), wrapper, agent, items)
            result = await hook(wrapper, agent, system_prompt, items)
            await cross(boundary_name("after", name), wrapper, agent, items)
            return result

        return bordered

    async def _filter_input(self, data: CallModelData[Any]) -> ModelInputData:
        """The run's input filter: a new input a start hook's boundary made, then yours, bordered."""
        model_data = data.model_data
        if self.turn.input is not None:
            model_data, self.turn.input = (
                ModelInputData(input=self.turn.input, instructions=model_data.instructions),
                None,
            )
        if self._filter is None or type(self._filter).__module__.startswith(GUARD):
            return (
                model_data
                if self._filter is None
                else await _maybe(self._filter(dataclasses.replace(data, model_data=model_data)))
            )
        name, call = self.pieces.each[0], _call()
        wrapper = RunContextWrapper(context=data.context)

        async def cross(point: str, model_data: ModelInputData) -> ModelInputData:
            items = list(model_data.input)
            tools, items = _crossing(point, await self.turn.tools_of(data.agent, wrapper, call, items), items)
            self.turn.carry(tools)
            return ModelInputData(input=items, instructions=model_data.instructions)

        if self._first(name, call):
            model_data = await cross(boundary_name("before", name), model_data)
        model_data = await _maybe(self._filter(dataclasses.replace(data, model_data=model_data)))
        return await cross(boundary_name("after", name), model_data)

    @contextlib.contextmanager
    def placed(self) -> Iterator[RunConfig]:
        """Your hooks bordered and the agent's model entered through the harness, for this run."""
        placed: list[tuple[Any, str, bool]] = []
        for owner, method, name, at_start in self._methods:
            hook = getattr(owner, method)
            placed.append((owner, method, method in vars(owner)))
            setattr(owner, method, (self._at_start if at_start else self._at_llm_start)(name, hook))
        model = self.agent.model
        if not isinstance(model, Model):
            raise TypeError(
                f"the agent's model is {model!r}: make it the model FACTORY(tools, model) is handed (or "
                "your wrapper of it)"
            )
        self.agent.model = Entry(model, self.turn)
        # Every tool call is answered from the recording: an agent's own tools never run here.
        tools = [tool for tool in self.agent.tools if isinstance(tool, FunctionTool)]
        invoked = [tool.on_invoke_tool for tool in tools]
        for tool in tools:
            tool.on_invoke_tool = _recorded
        try:
            yield dataclasses.replace(self.config, call_model_input_filter=self._filter_input)
        finally:
            for tool, invoke in zip(tools, invoked, strict=True):
                tool.on_invoke_tool = invoke
            self.agent.model = model
            for owner, method, had in reversed(placed):
                if not had:
                    delattr(owner, method)


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def _call() -> int:
    run = current_run()
    assert run is not None, "bordered only inside a harness run"
    return run.ports.call


class Entry(Model):
    """The agent's model as the harness calls it: the tools a boundary carried put in place, and the
    model's own boundary where no piece of yours precedes the call; then your model (wrappers and all)."""

    def __init__(self, model: Model, turn: Turn) -> None:
        self.model, self.turn = model, turn

    def _before(self, input: Any, tools: list[Any], handoffs: list[Any]) -> tuple[Any, list[Any]]:
        call, turn = _call(), self.turn
        if turn.call != call:  # no piece of yours after the SDK collected this call's tools
            turn.call, turn.replaced = call, False
            turn.tools = [tool for tool in tools if isinstance(tool, FunctionTool)]
            turn.admitted(turn.tools, handoffs, _as_items(input))
        if turn.call == call and turn.replaced:
            tools = [*turn.tools, *(tool for tool in tools if not isinstance(tool, FunctionTool))]
        if turn.pieces is not None and turn.pieces.of_call(call):
            return input, tools
        function_tools = [tool for tool in tools if isinstance(tool, FunctionTool)]
        new_tools, items = _crossing(MODEL, function_tools, _as_items(input))
        return items, [*new_tools, *(tool for tool in tools if not isinstance(tool, FunctionTool))]

    async def get_response(
        self,
        system_instructions: str | None,
        input: Any,
        model_settings: Any,
        tools: list[Any],
        output_schema: Any,
        handoffs: list[Any],
        tracing: Any,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: Any,
    ) -> ModelResponse:
        input, tools = self._before(input, tools, handoffs)
        return await self.model.get_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
            previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
        )  # fmt: skip

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError("toolsurface runs the agent with Runner.run, not streamed")
        yield  # an async generator, as the interface declares


class BorderingRunner:
    """The SDK's default agent runner, with your pieces bordered inside a harness request; outside
    one, the runner it replaced, untouched."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.runner, name)

    async def run(self, starting_agent: Agent[Any], input: Any, **kwargs: Any) -> Any:
        turn = _TURN.get()
        if current_run() is None or turn is None:
            return await self.runner.run(starting_agent, input, **kwargs)
        config = kwargs.get("run_config")
        config = RunConfig(**config) if isinstance(config, dict) else config or RunConfig()
        # Offline: nothing is traced or exported.
        config = dataclasses.replace(config, tracing_disabled=True, trace_include_sensitive_data=False)
        bordering = Bordering(turn, starting_agent, kwargs.get("hooks"), config)
        with bordering.placed() as bordered:
            return await self.runner.run(starting_agent, input, **{**kwargs, "run_config": bordered})


def handoff_views(agent: Agent[Any]) -> list[dict[str, Any]]:
    """The agent's handoffs as the model is told of them: function tools, after the tools."""
    return [tool_view(item) for item in as_handoffs(agent.handoffs)]


def _install() -> None:
    """The harness's runner in front of the SDK's default, once."""
    runner = sdk_run.get_default_agent_runner()
    if not isinstance(runner, BorderingRunner):
        sdk_run.set_default_agent_runner(cast(Any, BorderingRunner(runner)))


# -- the target ----------------------------------------------------------------------------------


class OpenAIAgentsAgentTarget(UserAgentTarget):
    """Your OpenAI Agents SDK agent, or the application running it, built by your factory, as a target."""

    framework = "openai-agents"

    def __init__(self, factory: Callable[..., Any], spec: str, *, own_tools: bool = False) -> None:
        super().__init__(factory, spec, own_tools=own_tools)
        self._pieces: dict[str, Pieces] = {}
        #: Each scenario's agent's handoffs as the factory built them: what the agent admits beside the tools.
        self._handoffs: dict[str, list[dict[str, Any]]] = {}

    def build_agent(self, scenario: Scenario | None) -> Any:
        model = OfflineModel()
        app = self.factory(model) if self.own_tools else self.factory(recorded_tools(scenario, tool_of), model)
        if not isinstance(app, Agent) and not callable(getattr(app, "run", None)):
            raise TypeError(
                f"the factory returned {type(app).__name__}: expected an Agent, or an object whose async "
                "run(input) runs a request"
            )
        agent = app if isinstance(app, Agent) else getattr(app, "agent", None)
        if scenario is not None and isinstance(agent, Agent):
            self._handoffs[scenario.id] = copy.deepcopy(handoff_views(agent))
        return app

    def registered(self) -> list[dict[str, Any]]:
        app = self.build_agent(None)
        agent = app if isinstance(app, Agent) else getattr(app, "agent", None)
        if not isinstance(agent, Agent):
            raise TypeError(
                f"cannot read the tools of the agent {type(app).__name__} runs: give it the Agent as its `agent`"
            )
        tools = [tool for tool in agent.tools if isinstance(tool, FunctionTool)]
        return [dict(view) for view in Crossing(tools, [], ADMISSION, tool_of).tools]

    def checkpoints(self, scenario: Scenario) -> tuple[Boundary, ...]:
        """Every boundary before every model call of the recording, from your pieces as an unchanged
        run shows them (known as the run begins, so a request that ends early still has its cases)."""
        pieces = self._pieces.get(scenario.id)
        if pieces is None:
            with contextlib.suppress(Exception):  # a refusal or failure is the cases' to report
                asyncio.run(self.run(scenario, Ports(scenario, FORMATS["logical"], None, None, own_boundaries=True)))
            pieces = self._pieces.get(scenario.id, Pieces())
        return tuple(
            Boundary(point, call) for call in range(1, scenario.model_calls + 1) for point in pieces.points(call)
        )

    async def run(self, scenario: Scenario, ports: Any) -> None:
        _install()
        app = self.agent_for(scenario)
        turn = Turn(handoffs=self._handoffs.get(scenario.id))
        token = _TURN.set(turn)
        try:
            with self.request(scenario, ports, lambda error: None) as run:
                items = input_items(sealed_messages(scenario, run.ports))
                if isinstance(app, Agent):
                    await Runner.run(app, cast(Any, items), max_turns=scenario.model_calls)
                else:
                    await app.run(items)
        finally:
            _TURN.reset(token)
            if turn.pieces is not None:
                self._pieces[scenario.id] = turn.pieces


def target(factory: Callable[..., Any], spec: str) -> OpenAIAgentsAgentTarget:
    return OpenAIAgentsAgentTarget(factory, spec, own_tools=builds_own_tools(factory))
