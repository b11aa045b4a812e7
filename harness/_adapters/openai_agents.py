"""OpenAI Agents SDK targets: a real `agents.Agent` built from a scenario's contract, run offline.

`stock()` is the SDK as people use it; `guarded()` is the same agent with a guard in the SDK's own
idiom. Each recorded stage runs where the SDK runs that kind of work, in the reference order, and
offers its injection point with the SDK's live objects:

- projection: `FunctionTool`s from the descriptors, `is_enabled` by trusted owner facts; offered: nothing
- recover, hook: `RunHooks.on_agent_start`, before the SDK collects the turn's tools; offered: `agent.tools` (enabled
  ones), the run input
- revalidate: `is_enabled` narrows in `Agent.get_all_tools` (a rebuild re-projects `agent.tools` first); offered first
  in the input filter; offered: the turn's tools, the model input
- context_fit, evidence, publication: `RunConfig.call_model_input_filter`; offered: the turn's tools,
  `ModelInputData.input`
- async_prep: `RunHooks.on_llm_start`; offered: the turn's tools, the input list the model gets
- seal: a `Model` wrapper around the model; offered: what the model is about to get
- dispatch: an offline `Model`: reports what reached it to `ports.gateway`, answers with its reply's tool calls;
  offered: —

A recording of several model calls runs on the SDK's own turns (`max_turns` is the recording's
model calls): the offline model answers with the gateway's tool calls as `function_call` items
(under the gateway's ids), the SDK runs the `FunctionTool`s, which return the recorded results
(`ports.tool_result`), and calls the model again. `on_agent_start` runs once per run, so before a
later call the input filter runs that call's recovery and hooks first, and carries the turn's tools
as they and `is_enabled` leave them to the model wrapper; every stage runs the stages the recording
ran before the call being prepared. While the SDK answers a reply, a tool the recorded model called
runs even if owner facts hide it now (they narrow what a call offers, not the recorded replies), and
a call to a tool a change renamed away goes back to the model as an error
(`tool_not_found_behavior`), as pydantic-ai and LangChain do. The request is settled once, when the
run ends.

The SDK hands its hooks and input filter no tool list: once `get_all_tools` has run, the turn's
tools reach only the model. A stage there edits the `FunctionTool`s in place (the turn's list holds
them), and a change to the list itself is carried in the run context to the model wrapper, the one
SDK mechanism that can still change it. Likewise `on_agent_start` cannot change the run input (the
SDK has copied the list; its items are still shared), so a new message list from a hook is installed
by the input filter, the SDK's mechanism for editing model input.

The SDK itself refuses nothing before the model call: it accepts any tool name, and of tools that
share a name it keeps the last, with a warning (`RunConfig.tool_name_collision_policy="warn"`). And
it shares: a `FunctionTool` keeps the schema dict it was given and is the agent's own object, and
`on_agent_start` edits `Agent.tools` itself, so an in-place edit anywhere, or a hook's new list,
reaches every later run of the same agent. The target keeps one agent per scenario and runs every
request on it, as a host keeps its agent, so stock, those edits reach the next request.

`guarded()` installs the public guard, `toolsurface.guard.openai_agents.SurfaceGuard`, as a user
does: built once with the agent's tools, it runs each request (`guard.run`, under `owning` the
ports' owner) on a clone of the agent with tool objects of its own, and its model wrapper sits
inside the seal, right before the model. The stages call its early check (`guard.check`) where the
recorded host checks, after the hooks and before a re-validation that rebuilds the tools can
launder an edit; a context_fit stage's budget is the guard's capacity.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the openai-agents targets need the OpenAI Agents SDK 0.24: pip install 'toolsurface[openai-agents]'"
with requires(_INSTALL):
    import agents
    from agents import (
        Agent,
        FunctionTool,
        RunConfig,
        RunContextWrapper,
        RunHooks,
        Runner,
    )
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.run_config import CallModelData, ModelInputData
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
require_version(_INSTALL, agents, "openai-agents", "0.24.")

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from toolsurface.contract._canonical import capture
from toolsurface.contract._formats import LOGICAL
from toolsurface.contract._owner import owning
from toolsurface.guard.openai_agents import SurfaceGuard
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import recorded_capacity
from .._reference._stages import replay_messages
from ._common import AgentTarget, PreparedRequest, contract_guard, same, settle_run
from ._openai_agents_views import Crossing, input_items, tool_view

INSTRUCTIONS = "Carry on from the conversation, using only the tools offered."
ANSWER = "Nothing to add: this offline model only records what reached it."

_AGENT_START = (StageKind.RECOVER, StageKind.HOOK)
_INPUT_FILTER = (StageKind.REVALIDATE, StageKind.CONTEXT_FIT, StageKind.EVIDENCE, StageKind.PUBLICATION)


@dataclass(slots=True)
class Request(PreparedRequest):
    """One request being prepared: the run context, which every stage reads as `context.context`."""

    #: The recorded conversation as input items, handed to `Runner.run`; a hook's new list is installed by the filter.
    input: list[Any] = field(default_factory=list)
    input_replaced: bool = False
    #: The turn's tools once the SDK collected them; a stage's new list is carried to the model wrapper.
    tools: list[FunctionTool] = field(default_factory=list)
    tools_replaced: bool = False
    wrapper: Any = None
    #: Between a reply with tool calls and the preparation of the next model call.
    answering: bool = False

    def __post_init__(self) -> None:
        self.input = input_items(self.scenario.request_messages)

    def offer(
        self,
        point: str,
        tools: list[FunctionTool],
        items: list[Any],
        replay: Callable[[list[Any]], list[Any]] | None = None,
    ) -> tuple[list[FunctionTool], list[Any]]:
        """Offer a boundary's live objects to the harness (after the stage's own effect, `replay`)."""
        crossing = Crossing(tools, items, point, function_tool)
        views = crossing.messages if replay is None else replay(crossing.messages)
        tool_views, message_views_ = self.ports.inject(point, crossing.tools, views)
        return crossing.function_tools(list(tool_views)), crossing.input_items(list(message_views_))

    def carry(self, tools: list[FunctionTool]) -> None:
        """Keep the turn's tool list a stage went on with, for the model wrapper."""
        if not same(tools, self.tools):
            self.tools, self.tools_replaced = tools, True


# -- the tools ---------------------------------------------------------------------------------


async def _recorded(context: Any, arguments: str) -> str:
    """Every tool: what the recorded tool returned for the call the SDK executes (its `ToolContext`
    carries the call's id and the run context, the request)."""
    request: Request = context.context
    return request.ports.tool_result(context.tool_call_id)


def function_tool(view: Any) -> FunctionTool:
    """A `FunctionTool` as a host builds one from a descriptor; owner facts decide if it is enabled.

    `strict_json_schema=False` keeps the schema dict it is given (strict mode would copy it).
    """
    tool = FunctionTool(
        name=view["name"],
        description=view.get("description", ""),
        params_json_schema=view["input_schema"],
        on_invoke_tool=_recorded,
        strict_json_schema=False,
    )

    def enabled(context: RunContextWrapper[Request], agent: Any) -> bool:
        request = context.context
        # While the SDK answers a reply's tool calls, a tool the recorded model called runs as it
        # did: owner facts narrow what a model call offers, not the recorded replies.
        return (
            request.answering or tool.name not in request.hidden()
        )  # the tool's name now: a rename is judged as renamed

    tool.is_enabled = enabled
    return tool


def project(scenario: Scenario) -> list[FunctionTool]:
    """Every admitted tool from its recorded descriptor: fresh objects, fresh schema dicts."""
    return [function_tool(descriptor.as_logical()) for descriptor in scenario.contract.surface]


async def enabled_tools(agent: Agent[Request], context: RunContextWrapper[Request]) -> list[FunctionTool]:
    """The tools the SDK enables for this turn, by its own `get_all_tools`."""
    return [tool for tool in await agent.get_all_tools(context) if isinstance(tool, FunctionTool)]


# -- the stages -------------------------------------------------------------------------------


def _stages_of(request: Request, kinds: tuple[StageKind, ...]) -> list[Stage]:
    """The stages of these kinds the host runs before the model call being prepared, in stage order."""
    return [stage for stage in request.scenario.stages_of(request.ports.call) if stage.kind in kinds]


class Preparation(RunHooks[Request]):
    """The run hooks: recovery and the hooks before the SDK collects tools; asynchronous preparation last."""

    def __init__(self, guard: SurfaceGuard | None) -> None:
        self.guard = guard

    async def on_agent_start(self, context: Any, agent: Agent[Request]) -> None:
        request: Request = context.context
        request.wrapper = context
        items = await self.start(request, agent, request.input)
        if not same(items, request.input):
            request.input, request.input_replaced = items, True

    async def start(self, request: Request, agent: Agent[Request], items: list[Any]) -> list[Any]:
        """Recovery and the hooks of the model call being prepared, on the agent's tools and `items`;
        the input items they leave."""
        # The step's tools: the projection as the SDK enables it now, then as each stage leaves it.
        tools = enabled = await enabled_tools(agent, request.wrapper)
        disabled = [tool for tool in agent.tools if not any(tool is e for e in enabled)]
        for stage in _stages_of(request, _AGENT_START):
            if stage.kind is StageKind.RECOVER:
                # A resumed run's tools are the agent's fresh projection; the transcript is history, never availability.
                request.metadata["recovered_from"] = stage.receipt
            else:
                request.metadata.setdefault("hooks", []).append("trace_annotations")
            tools, items = request.offer(stage.point, tools, items)
            # Tools the owners disabled stay on the agent, where `is_enabled` keeps hiding them.
            agent.tools[:] = [*tools, *disabled]
        if self.guard is not None:
            # What the stages left, before a rebuilding re-validation replaces it: an edit is refused, not laundered.
            self.guard.check(agent, items)
        revalidate = next(iter(_stages_of(request, (StageKind.REVALIDATE,))), None)
        if revalidate is not None and revalidate.rebuild:
            # The owners rebuild the tool objects from their own descriptors; `is_enabled` narrows them.
            agent.tools[:] = project(request.scenario)
        return items

    async def on_llm_start(
        self, context: Any, agent: Agent[Request], system_prompt: str | None, input_items: list[Any]
    ) -> None:
        request: Request = context.context
        for stage in _stages_of(request, (StageKind.ASYNC_PREP,)):
            await asyncio.sleep(0)  # the preparation is asynchronous: other work may run in between
            request.metadata.update(stage.metadata)
            tools, items = request.offer(stage.point, request.tools, input_items)
            request.carry(tools)
            if not same(items, input_items):
                input_items[:] = items  # the very list the SDK hands the model next


class InputFilter:
    """`call_model_input_filter`: re-validation's boundary, then context fitting, evidence and publication.

    The SDK runs `on_agent_start` once per run, before its first model call; before every later
    call, after the tools ran, this filter is the first place the run hands the host, so recovery
    and the hooks of that call run here first (`Preparation.start`).
    """

    def __init__(self, preparation: Preparation) -> None:
        self.preparation = preparation

    async def __call__(self, data: CallModelData[Request]) -> ModelInputData:
        request = data.context
        assert request is not None, "the run context is the Request"
        request.tools_replaced = False  # a list a stage went on with holds for its own model call only
        request.answering = False
        items = data.model_data.input
        if request.ports.call == 1:
            items = list(request.input) if request.input_replaced else items
            # The turn's tools as `get_all_tools` gave them a moment ago: the same FunctionTool objects. (The SDK's
            # own list may differ only by its name-collision pass; the model wrapper keeps it unless a stage here
            # changed this one.)
            request.tools = await enabled_tools(data.agent, request.wrapper)
        else:
            # The SDK collected this turn's tools while it answered the reply's tool calls, before
            # the hooks ran: the turn's tools as the hooks left them, and as enabled now, are carried.
            items = await self.preparation.start(request, data.agent, items)
            request.tools, request.tools_replaced = await enabled_tools(data.agent, request.wrapper), True
            request.narrowed()  # `is_enabled` just narrowed this call's tools by what facts hide now
        for stage in _stages_of(request, _INPUT_FILTER):
            replay = None
            if stage.kind is StageKind.REVALIDATE:
                request.metadata["revalidated_by"] = request.scenario.identity.connection
            else:
                replay = self._replay(request, stage)
            tools, items = request.offer(stage.point, request.tools, items, replay)
            request.carry(tools)
        return ModelInputData(input=items, instructions=data.model_data.instructions)

    @staticmethod
    def _replay(request: Request, stage: Stage) -> Callable[[list[Any]], list[Any]]:
        return lambda views: replay_messages(stage, views, request.scenario, request.ports.publications)


class _Boundary(Model):
    """A model wrapper that does something with the request right before handing it on."""

    def __init__(self, wrapped: Model, request: Request) -> None:
        self.wrapped = wrapped
        self.request = request

    def _before(self, items: list[Any], tools: list[Any]) -> tuple[list[Any], list[Any]]:
        raise NotImplementedError

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
        items, tools = self._before(_as_items(input), tools)
        return await self.wrapped.get_response(
            system_instructions, items, model_settings, tools, output_schema, handoffs, tracing,
            previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
        )  # fmt: skip

    async def stream_response(
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
    ) -> AsyncIterator[Any]:
        items, tools = self._before(_as_items(input), tools)
        async for event in self.wrapped.stream_response(
            system_instructions, items, model_settings, tools, output_schema, handoffs, tracing,
            previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
        ):  # fmt: skip
            yield event


def _as_items(input: Any) -> list[Any]:
    return [{"role": "user", "content": input}] if isinstance(input, str) else input


class SealedModel(_Boundary):
    """Puts a carried tool list in place, seals the request, and offers post_seal: the last boundary."""

    def _before(self, items: list[Any], tools: list[Any]) -> tuple[list[Any], list[Any]]:
        request = self.request
        if request.tools_replaced:
            tools = list(request.tools)
        if not _stages_of(request, (StageKind.SEAL,)):  # this model call's preparation seals nothing
            return items, tools
        request.seal = capture([tool_view(tool) for tool in tools], LOGICAL)
        request.metadata["sealed"] = True
        tools, items = request.offer("post_seal", tools, items)
        return items, tools


class GatewayModel(Model):
    """The offline model: it reports what reached it to the harness's gateway and answers with the
    recorded model's function calls, under the gateway's ids, or in text once the recording ends."""

    def __init__(self, request: Request) -> None:
        self.request = request

    def _reach(self, items: list[Any], tools: list[Any]) -> list[dict[str, Any]]:
        request = self.request
        sent = Crossing([t for t in tools if isinstance(t, FunctionTool)], items, "dispatch", function_tool)
        reply = request.ports.gateway.dispatch(request.scenario.identity.request, sent.tools, sent.messages)
        request.sent()
        request.answering = bool(reply.get("tool_calls"))
        return list(reply.get("tool_calls", ()))

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
        if calls := self._reach(_as_items(input), tools):
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


# -- the agent and the target -----------------------------------------------------------------


def build_agent(scenario: Scenario) -> Agent[Request]:
    """The agent a host would build for this contract: every admitted tool from its descriptor."""
    return Agent[Request](name="toolsurface", instructions=INSTRUCTIONS, tools=list(project(scenario)))


def run_config(request: Request, guard: SurfaceGuard | None = None, hooks: Preparation | None = None) -> RunConfig:
    """Offline: our own model (no provider, no key) and no tracing, so nothing is exported. The
    guard's model wrapper sits inside the seal, right before the model."""
    model: Model = GatewayModel(request)
    if guard is not None:
        model = guard.model(model)
    model = SealedModel(model, request)
    return RunConfig(
        model=model, tracing_disabled=True, trace_include_sensitive_data=False,
        # A recorded reply may call a tool a change renamed away: the model is told, as other frameworks do.
        tool_not_found_behavior="return_error_to_model",
        call_model_input_filter=InputFilter(hooks or Preparation(guard)),
    )  # fmt: skip


def guard_for(scenario: Scenario, tools: list[Any]) -> SurfaceGuard:
    """The public guard a host installs on this contract's agent: its admitted tools, the tools its
    owner facts govern, its entry summary, and what a model call can hold where the recording says."""
    contract = scenario.contract
    return SurfaceGuard(
        tools, web_tools=contract.web_tools, summary=contract.summary, capacity=recorded_capacity(scenario)
    )


class OpenAIAgentsTarget(AgentTarget):
    """A toolsurface target (`toolsurface.Target`) around an OpenAI Agents SDK agent."""

    framework = "openai-agents"

    def build_agent(self, scenario: Scenario) -> tuple[Agent[Request], SurfaceGuard | None]:
        """The agent, and its guard built once with it, as a host installs one."""
        agent = build_agent(scenario)
        return agent, guard_for(scenario, agent.tools) if self.guarded else None

    async def run(self, scenario: Scenario, ports: Any) -> None:
        agent, guard = self.agent_for(scenario)
        await run_on(agent, guard, scenario, ports)


async def run_on(agent: Agent[Request], guard: SurfaceGuard | None, scenario: Scenario, ports: Any) -> None:
    """One request of the scenario on the host's agent, with its guard if it has one."""
    if guard is None:
        await run_request(agent, Request.open(scenario, ports))
        return
    owner = ports.owner()
    # The guard settles the request with the owner; the host's own request only reads its facts.
    with owning(owner):
        await run_request(agent, Request(scenario, ports, contract_guard(scenario).request(owner)), guard)


async def run_request(agent: Agent[Request], request: Request, guard: SurfaceGuard | None = None) -> None:
    """Run the agent on the recorded conversation, settled once whatever happens: by the guard's
    run, or, stock, by the harness."""
    hooks = Preparation(guard)
    # One turn per model call the recording makes: the SDK runs the tools and calls the model again.
    run: dict[str, Any] = dict(
        context=request,
        hooks=hooks,
        run_config=run_config(request, guard, hooks),
        max_turns=request.scenario.model_calls,
    )
    if guard is None:
        await settle_run(request, Runner.run(agent, request.input, **run))
        return
    await guard.run(agent, request.input, **run)
    if not request.dispatched:
        raise RuntimeError("the agent run ended without calling the model")


def stock() -> OpenAIAgentsTarget:
    """The OpenAI Agents SDK as people use it: no check of its own beyond the SDK's."""
    return OpenAIAgentsTarget(guarded=False)


def guarded() -> OpenAIAgentsTarget:
    """The same agent with the public guard, `toolsurface.guard.openai_agents`, installed."""
    return OpenAIAgentsTarget(guarded=True)
