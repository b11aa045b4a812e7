"""pydantic-ai targets: a real `Agent` built from a scenario's contract, run offline.

`stock()` is the framework as people use it; `guarded()` is the same agent with a guard in
pydantic-ai's own idiom. Each kind of recorded stage runs where pydantic-ai runs that kind of
work, and each stage offers its injection point with the framework's live objects:

- projection: `FunctionToolset` of `Tool.from_schema` tools, `.filtered()` by trusted owner facts (guarded: the guard's
  own copies); offered: nothing
- recover, hook, revalidate: a `prepare_tools` capability hook, in stage order; offered: the step's `ToolDefinition`s,
  `ctx.messages`
- context_fit, evidence, publication, async_prep: `before_model_request` (history processing); offered:
  `model_request_parameters.function_tools`, `request_context.messages`
- seal: `get_wrapper_model`: a `WrapperModel` around the model; offered: the request the model is about to get
- dispatch: `FunctionModel`: reports what reached it to `ports.gateway`, answers with its reply's tool calls;
  offered: nothing

A recording of several model calls runs on pydantic-ai's own agent loop: the offline model answers
with the gateway's tool calls as `ToolCallPart`s (under the gateway's ids), pydantic-ai runs the
tools, which return the recorded results (`ports.tool_result`), and calls the model again. The
capabilities run before every model call, so each runs the stages the recording ran before that
call (`Scenario.stages_of`); the request is settled once, when the run ends.

`guarded()` adds the public guard, `toolsurface.guard.pydantic_ai`, as a user installs it: the
`SurfaceGuardCapability` holds the contract's tools (its baseline and each run's toolset) in the
innermost capability tier, its `checkpoint()` stands between the hooks and re-validation (`early`),
its own `prepare_tools` check follows re-validation (`toolset`), the context_fit stage asks it to fit
the context without cutting tools (`fit`, `CapacityExceeded`), and its model wrapper checks right
before the model is called (`final`), at every model call, against the surface in force at it. The
run goes under `owning(owner)` with the harness's ports as the request's owner, and the guard
settles it.

The target keeps one agent per scenario and runs every request on it, as a host keeps its agent. A
`Tool` hands the schema dict it holds to every run's `ToolDefinition`, so stock, an in-place edit
in one request is in the next; the guard hands each run copies of the tools whose schemas
come from its baseline, so what a request edits goes with it.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the pydantic-ai targets need pydantic-ai 2.x: pip install 'toolsurface[pydantic-ai]'"
with requires(_INSTALL):
    import pydantic_ai
    from pydantic_ai import Agent, Tool
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.wrapper import WrapperModel
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, FunctionToolset

    from toolsurface.guard._pydantic_ai_views import tool_view
    from toolsurface.guard.pydantic_ai import SurfaceGuardCapability
require_version(_INSTALL, pydantic_ai, "pydantic-ai", "2.")

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from typing import Any

from toolsurface.contract._canonical import capture
from toolsurface.contract._formats import LOGICAL
from toolsurface.contract._owner import owning
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import capacity_of
from .._reference._stages import replay_messages
from ._common import AgentTarget, FrameworkRefused, PreparedRequest, same, settle_run
from ._pydantic_ai_views import Crossing, history

#: What pydantic-ai's `PreparedToolset` says when a `prepare_tools` hook added or renamed a tool.
_PREPARE_REFUSAL = "Prepare function cannot add or rename tools"
#: An agent with instructions asks the model for the next step of a transcript that ends on its own turn.
INSTRUCTIONS = "Carry on from the conversation, using only the tools offered."
ANSWER = "Nothing to add: this offline model only records what reached it."


@dataclass(slots=True)
class Request(PreparedRequest):
    """One request being prepared: the run's deps, which every stage reads through `ctx.deps`."""

    def offer(
        self,
        point: str,
        tools: list[ToolDefinition],
        messages: list[ModelMessage],
        replay: Callable[[Crossing], list[Any]] | None = None,
    ) -> tuple[list[ToolDefinition], list[ModelMessage]]:
        """Offer a boundary's live objects to the harness (after the stage's own effect, `replay`,
        which gets the crossing and gives the message views to go on with)."""
        crossing = Crossing(tools, messages, point)
        views = crossing.messages if replay is None else replay(crossing)
        tool_views, message_views = self.ports.inject(point, crossing.tools, views)
        return crossing.tool_definitions(list(tool_views)), crossing.model_messages(list(message_views))


def _replace_all(live: list[Any], new: list[Any]) -> None:
    """Put `new` into the framework's live list, leaving it alone when nothing changed."""
    if not same(live, new):
        live[:] = new


# -- the stages -------------------------------------------------------------------------------


@dataclass
class ToolStages(AbstractCapability[Request]):
    """Stages of these kinds of the model call being prepared (recover and hook, or revalidate): a
    `prepare_tools` hook over the step's tool definitions. The guarded agent's early checkpoint
    stands between the two, after the hooks, as the recordings run them.

    pydantic-ai runs it before every model call of the run, so it runs the stages the recording ran
    before that call (`Scenario.stages_of`), not the first call's again.
    """

    kinds: tuple[StageKind, ...]

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # replays a recording, not spec-serializable

    async def prepare_tools(self, ctx: Any, tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        for stage in _stages_of(ctx.deps, self.kinds):
            self._run(ctx.deps, stage, ctx, tool_defs)
        return tool_defs

    @staticmethod
    def _run(request: Request, stage: Stage, ctx: Any, tool_defs: list[ToolDefinition]) -> None:
        tools = list(tool_defs)
        if stage.kind is StageKind.RECOVER:
            # A resumed run's tools are the toolset's fresh projection; the transcript is history, never availability.
            request.metadata["recovered_from"] = stage.receipt
        elif stage.kind is StageKind.HOOK:
            request.metadata.setdefault("hooks", []).append("trace_annotations")
        elif stage.kind is StageKind.REVALIDATE:
            tools = _revalidate(request, stage, tools)
        tools, messages = request.offer(stage.point, tools, ctx.messages)
        _replace_all(ctx.messages, messages)
        _replace_all(tool_defs, tools)


_HOOK_STAGES = (StageKind.RECOVER, StageKind.HOOK)
_MESSAGE_STAGES = (StageKind.CONTEXT_FIT, StageKind.EVIDENCE, StageKind.PUBLICATION, StageKind.ASYNC_PREP)


def _stages_of(request: Request, kinds: tuple[StageKind, ...]) -> list[Stage]:
    """The stages of these kinds the host runs before the model call being prepared, in stage order."""
    return [stage for stage in request.scenario.stages_of(request.ports.call) if stage.kind in kinds]


def _revalidate(request: Request, stage: Stage, tools: list[ToolDefinition]) -> list[ToolDefinition]:
    """The owners narrow by trusted facts and never add; with `rebuild`, from their own descriptors."""
    hidden = request.hidden()
    if stage.rebuild:
        return [
            ToolDefinition(name=d.name, description=d.description, parameters_json_schema=d.input_schema)
            for d in request.scenario.contract.surface
            if d.name not in hidden
        ]
    return [tool for tool in tools if tool.name not in hidden]


@dataclass
class MessageStages(AbstractCapability[Request]):
    """context_fit, evidence, publication and async_prep of the model call being prepared: history
    processing before the model request."""

    guard: SurfaceGuardCapability | None = None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a guard, not spec-serializable

    async def before_model_request(self, ctx: Any, request_context: Any) -> Any:
        for stage in _stages_of(ctx.deps, _MESSAGE_STAGES):
            await self._run(ctx, request_context, stage)
        return request_context

    async def _run(self, ctx: Any, request_context: Any, stage: Stage) -> None:
        request: Request = ctx.deps
        parameters = request_context.model_request_parameters
        if stage.kind is StageKind.ASYNC_PREP:
            await asyncio.sleep(0)  # the preparation is asynchronous: other work may run in between
            request.metadata.update(stage.metadata)
            if isinstance(ctx.metadata, dict):
                ctx.metadata.update(stage.metadata)

        def replay(crossing: Crossing) -> list[Any]:
            views = replay_messages(stage, crossing.messages, request.scenario, request.ports.publications)
            if stage.kind is StageKind.CONTEXT_FIT and self.guard is not None:
                # The fitted context, before the boundary's change: the recorded capacity is this stage's.
                self.guard.fit(ctx, parameters.function_tools, crossing.model_messages(views), capacity_of(stage))
            return views

        tools, messages = request.offer(stage.point, list(parameters.function_tools), request_context.messages, replay)
        _replace_all(parameters.function_tools, tools)
        if not same(messages, request_context.messages):
            # As pydantic-ai's own `ProcessHistory` does: this request, and the run's history.
            request_context.messages = list(messages)
            ctx.messages[:] = messages


class _Boundary(WrapperModel):
    """A model wrapper that does something with the request right before handing it on."""

    def __init__(self, wrapped: Any, prepared: Request) -> None:
        super().__init__(wrapped)
        self.prepared = prepared

    def _before(self, messages: list[ModelMessage], parameters: Any) -> tuple[list[ModelMessage], Any]:
        raise NotImplementedError

    async def request(
        self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: Any
    ) -> ModelResponse:
        messages, parameters = self._before(messages, model_request_parameters)
        return await self.wrapped.request(messages, model_settings, parameters)

    @contextlib.asynccontextmanager
    async def request_stream(
        self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: Any, run_context: Any = None
    ) -> AsyncIterator[Any]:
        messages, parameters = self._before(messages, model_request_parameters)
        async with self.wrapped.request_stream(messages, model_settings, parameters, run_context) as stream:
            yield stream


class _SealedModel(_Boundary):
    def _before(self, messages: list[ModelMessage], parameters: Any) -> tuple[list[ModelMessage], Any]:
        request = self.prepared
        if not _stages_of(request, (StageKind.SEAL,)):
            return messages, parameters  # this model call's preparation seals nothing
        request.seal = capture([tool_view(tool) for tool in parameters.function_tools], LOGICAL)
        request.metadata["sealed"] = True
        tools, messages = request.offer("post_seal", list(parameters.function_tools), messages)
        return messages, replace(parameters, function_tools=tools)


@dataclass
class Seal(AbstractCapability[Request]):
    """seal: records the request in a wrapper around the model; post_seal is the last boundary."""

    request: Request | None = None

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None

    async def for_run(self, ctx: Any) -> Seal:
        return replace(self, request=ctx.deps)

    def get_wrapper_model(self, model: Any) -> Any:
        return None if self.request is None else _SealedModel(model, self.request)


# -- the agent and the target -----------------------------------------------------------------


def _recorded(ctx: Any, **arguments: Any) -> str:
    """Every tool: what the recorded tool returned for the call the framework executes."""
    request: Request = ctx.deps
    return request.ports.tool_result(ctx.tool_call_id)


def capabilities(scenario: Scenario, guard: SurfaceGuardCapability | None) -> list[AbstractCapability[Request]]:
    """The stage capabilities, with the guard's early checkpoint after the hooks and the guard
    itself (innermost, whatever its place in the list). Each runs, before every model call, the
    stages the recording ran before that call.

    The first capability wraps the model outermost, so the seal goes first.
    """
    chain: list[AbstractCapability[Request]] = []
    if any(
        stage.kind is StageKind.SEAL
        for call in range(1, scenario.model_calls + 1)
        for stage in scenario.stages_of(call)
    ):
        chain.append(Seal())
    chain.append(ToolStages(_HOOK_STAGES))
    if guard is not None:
        chain.append(guard.checkpoint("early"))
    chain += [ToolStages((StageKind.REVALIDATE,)), MessageStages(guard)]
    if guard is not None:
        chain.append(guard)
    return chain


def contract_tools(scenario: Scenario) -> list[Tool[Request]]:
    """Every admitted tool from its descriptor, returning what the recorded tool returned."""
    return [
        Tool.from_schema(_recorded, name=d.name, description=d.description, json_schema=d.input_schema, takes_ctx=True)
        for d in scenario.contract.surface
    ]


def projection(scenario: Scenario) -> AbstractToolset[Request]:
    """The stock toolset: what trusted owner facts hide never reaches the step's tool list."""
    functions: FunctionToolset[Request] = FunctionToolset(contract_tools(scenario))
    return functions.filtered(lambda ctx, tool: tool.name not in ctx.deps.hidden())


def build_agent(scenario: Scenario, guarded: bool) -> Agent[Request, str]:
    """The agent a host would build for this contract, once, and run for every request.

    Stock, its toolset is built with the agent, and every run hands out the same `Tool`s — each
    holding the schema dict it was given — so an in-place edit in one request is in the next.
    Guarded, the tools go to the public guard, which hands each run copies of its own and narrows
    them by trusted owner facts.
    """
    contract = scenario.contract
    guard = (
        SurfaceGuardCapability(contract_tools(scenario), web_tools=contract.web_tools, summary=contract.summary)
        if guarded
        else None
    )
    return Agent(
        None,
        output_type=str,
        deps_type=Request,
        instructions=INSTRUCTIONS,
        toolsets=[] if guarded else [projection(scenario)],
        capabilities=capabilities(scenario, guard),
    )


def gateway_model(request: Request) -> FunctionModel:
    """The offline model: it reports what reached it to the harness's gateway and answers with the
    recorded model's tool calls, under the gateway's ids, or in text once the recording ends."""

    async def reach(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent = Crossing(info.function_tools, messages, "dispatch")
        reply = request.ports.gateway.dispatch(request.scenario.identity.request, sent.tools, sent.messages)
        request.sent()
        if calls := reply.get("tool_calls"):
            return ModelResponse(
                parts=[ToolCallPart(call["name"], call["arguments"], tool_call_id=call["id"]) for call in calls]
            )
        return ModelResponse(parts=[TextPart(ANSWER)])

    return FunctionModel(reach, model_name="toolsurface-gateway")


class PydanticAITarget(AgentTarget):
    """A toolsurface target (`toolsurface.Target`) around a pydantic-ai agent."""

    framework = "pydantic-ai"

    def build_agent(self, scenario: Scenario) -> Agent[Request, str]:
        return build_agent(scenario, self.guarded)

    async def run(self, scenario: Scenario, ports: Any) -> None:
        await run_request(self.agent_for(scenario), Request.open(scenario, ports), guarded=self.guarded)


async def run_request(agent: Agent[Request, str], request: Request, *, guarded: bool) -> None:
    """Run the agent on the recorded conversation; the reservation is settled once, whatever happens:
    by the guard on a guarded agent (run under the request's owner), by the harness on a stock one."""
    run = agent.run(
        None,
        message_history=history(request.scenario.request_messages),
        deps=request,
        model=gateway_model(request),
        metadata={},
    )
    if not guarded:
        await settle_run(request, run, _framework_refusal)
        return
    with owning(request.guarded.owner):
        await run
    if not request.dispatched:
        raise RuntimeError("the agent run ended without calling the model")


def _framework_refusal(error: Exception) -> FrameworkRefused | None:
    """pydantic-ai's own `PreparedToolset` check, which refuses adds and renames in `prepare_tools`."""
    if isinstance(error, UserError) and str(error).startswith(_PREPARE_REFUSAL):
        return FrameworkRefused("pydantic-ai", "prepare_tools", str(error))
    return None


def stock() -> PydanticAITarget:
    """pydantic-ai as people use it: no check of its own beyond the framework's."""
    return PydanticAITarget(guarded=False)


def guarded() -> PydanticAITarget:
    """The same agent with the surface guard: early, toolset, capacity and final checks."""
    return PydanticAITarget(guarded=True)
