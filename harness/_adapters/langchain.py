"""LangChain targets: a real `create_agent` agent built from a scenario's contract, run offline.

`stock()` is the framework as people use it; `guarded()` is the same agent with a guard in
LangChain's own idiom, an `AgentMiddleware`. Each recorded stage is one `wrap_model_call` step, and
each offers its injection point with the framework's live objects:

| stages | LangChain mechanism | live objects offered |
| --- | --- | --- |
| projection | `StructuredTool`s with a JSON-schema `args_schema`, narrowed by trusted owner facts in the outermost `wrap_model_call` | — |
| recover, hook, revalidate | `awrap_model_call` middleware, in stage order, going on with `request.override(tools=…, messages=…)` | `request.tools`, `request.messages` |
| context_fit, evidence, publication, async_prep | `awrap_model_call` middleware after them, as LangChain's own `ContextEditingMiddleware` edits a request's context | the same |
| seal | the innermost stage middleware: records the request it hands on | the same |
| dispatch | `GatewayModel`, a `BaseChatModel` whose `bind_tools` converts with `convert_to_openai_tool`, as provider integrations do | — |

A recording of several model calls runs on the agent's own loop: the offline model answers with the
gateway's tool calls as an `AIMessage(tool_calls=…)` under the gateway's ids, the agent's `ToolNode`
runs the tools, which return the recorded results (`ports.tool_result`, by the call id LangChain
injects), and the model is called again through the same middleware, which then runs the stages the
recording ran before that call (`Stages`); the request is settled once, when the run ends.

Every stage is a `wrap_model_call`, none a `before_model`: LangChain runs every `before_model` node
before the model node, and only a `ModelRequest` carries the tools, so a `before_model` context
fitter would run before recovery, the hooks and re-validation, out of the recorded order. What the
model sees is reported after LangChain's conversion — which rewrites a JSON-schema tool on its way:
`$ref`s inlined, `$defs` and `title`s dropped (see `GatewayModel`).

The guard adds a checkpoint after recovery and the hooks (`early`), fits the context without
cutting tools (`CapacityExceeded`), and checks once more in the innermost `wrap_model_call`, right
before LangChain binds the tools to the model (`final`); it then hands the model the checked tools as
OpenAI-format dicts, which LangChain's conversion passes on unchanged, so what was checked is what
is sent. Its baseline is the contract's recorded descriptors as bytes, taken before any tool
object exists.

The target keeps one agent per scenario and runs every request on it, as a host keeps its agent.
Its `StructuredTool`s keep the schema dicts they were given and every run's `ModelRequest` starts
with them, so stock, an in-place edit (or a rename written back) in one request is in the next;
the guard's outermost middleware hands each request tools of its own, built from the contract's
descriptors (`OwnTools`), so what a request edits goes with it.
"""

from __future__ import annotations

_INSTALL = "the langchain targets need LangChain 1.x: pip install 'toolsurface[langchain]'"
try:
    import langchain
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.runtime import get_runtime
    from langsmith import tracing_context
except ImportError as error:  # not installed, or a major without these APIs
    raise ImportError(f"{_INSTALL} ({error})") from error
if not langchain.__version__.startswith("1."):
    raise ImportError(f"{_INSTALL} (found langchain {langchain.__version__})")

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolsurface.scenarios import Scenario, Stage, StageKind

from .._canonical import capture
from .._formats import LOGICAL
from .._reference._stages import replay_messages
from ._common import AgentTarget, FrameworkRefused, PreparedRequest, SurfaceGuard, same, settle_run
from ._langchain_views import Crossing, history, message_views, tool_of, tool_view, wire_tool

#: How LangChain's `create_agent` refuses a request whose tools its `ToolNode` does not know.
_UNKNOWN_TOOLS = "Middleware added tools that the agent doesn't know how to execute."
ANSWER = "Nothing to add: this offline model only records what reached it."


@dataclass(slots=True)
class Request(PreparedRequest):
    """One request being prepared: the run's context, which every middleware reads as `request.runtime.context`."""

    def offer(
        self, point: str, request: ModelRequest[Request], tools: list[Any], messages: list[AnyMessage],
        replay: Callable[[list[Any]], list[Any]] | None = None,
    ) -> ModelRequest[Request]:  # fmt: skip
        """Offer a boundary's live objects to the harness (after the stage's own effect, `replay`)
        and go on with a request carrying what comes back."""
        crossing = Crossing(tools, messages, point)
        views = crossing.messages if replay is None else replay(crossing.messages)
        tool_views, views = self.ports.inject(point, crossing.tools, views)
        tools, messages = crossing.tools_back(list(tool_views)), crossing.messages_back(list(views))
        if same(tools, request.tools) and same(messages, request.messages):
            return request
        return request.override(tools=tools, messages=messages)


#: What a middleware hands its request on to; the run's context is a `Request`.
Handler = Callable[[ModelRequest[Request]], Awaitable[Any]]


# -- the stages -------------------------------------------------------------------------------


class _Middleware(AgentMiddleware[AgentState[Any], Request]):
    """A middleware with a name of its own: `create_agent` refuses two of the same name."""

    def __init__(self, label: str) -> None:
        self._label = label

    @property
    def name(self) -> str:
        return f"toolsurface.{self._label}"

    async def awrap_model_call(self, request: ModelRequest[Request], handler: Handler) -> Any:
        return await handler(await self.step(request.runtime.context, request))

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        raise NotImplementedError


class Projection(_Middleware):
    """The owners' projection: what trusted owner facts hide never reaches the model request."""

    def __init__(self) -> None:
        super().__init__("projection")

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        hidden = prepared.hidden()
        if not any(tool_view(tool)["name"] in hidden for tool in request.tools):
            return request
        return request.override(tools=[tool for tool in request.tools if tool_view(tool)["name"] not in hidden])


class ToolStage(_Middleware):
    """recover, hook or revalidate: a `wrap_model_call` over the request's tools."""

    def __init__(self, stage: Stage) -> None:
        super().__init__(stage.kind.value)
        self.stage = stage

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        stage, tools = self.stage, list(request.tools)
        if stage.kind is StageKind.RECOVER:
            # A resumed run's tools are the agent's fresh projection; the transcript is history, never availability.
            prepared.metadata["recovered_from"] = stage.receipt
        elif stage.kind is StageKind.HOOK:
            prepared.metadata.setdefault("hooks", []).append("trace_annotations")
        elif stage.kind is StageKind.REVALIDATE:
            prepared.metadata["revalidated_by"] = prepared.scenario.identity.connection
            tools = _revalidate(prepared, stage, tools)
        return prepared.offer(stage.point, request, tools, list(request.messages))


def _revalidate(prepared: Request, stage: Stage, tools: list[Any]) -> list[Any]:
    """The owners narrow by trusted facts and never add; with `rebuild`, from their own descriptors."""
    hidden = prepared.hidden()
    if stage.rebuild:
        return [tool_of(d) for d in prepared.scenario.contract.surface if d.name not in hidden]
    return [tool for tool in tools if tool_view(tool)["name"] not in hidden]


class MessageStage(_Middleware):
    """context_fit, evidence, publication or async_prep: the request's context, edited before the model call."""

    def __init__(self, stage: Stage, guard: Guard | None = None) -> None:
        super().__init__(stage.kind.value)
        self.stage = stage
        self.guard = guard

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        stage = self.stage
        if stage.kind is StageKind.ASYNC_PREP:
            await asyncio.sleep(0)  # the preparation is asynchronous: other work may run in between
            prepared.metadata.update(stage.metadata)

        def replay(views: list[Any]) -> list[Any]:

            if stage.kind is StageKind.CONTEXT_FIT and self.guard is not None:

                self.guard.fit(prepared, stage, request.tools, views)

            return replay_messages(stage, views, prepared.scenario, prepared.ports.publications)

        return prepared.offer(stage.point, request, list(request.tools), list(request.messages), replay)


class Seal(_Middleware):
    """seal: records the request it hands on; post_seal is the last boundary."""

    def __init__(self, stage: Stage) -> None:
        super().__init__(stage.kind.value)
        self.stage = stage

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        prepared.seal = capture([tool_view(tool) for tool in request.tools], LOGICAL)
        prepared.metadata["sealed"] = True
        return prepared.offer(self.stage.point, request, list(request.tools), list(request.messages))


# -- the guard --------------------------------------------------------------------------------


class Guard(SurfaceGuard):
    """The surface guard, reading a `ModelRequest`'s tools and messages through their views."""

    def check_request(self, checkpoint: str, prepared: PreparedRequest, request: ModelRequest[Request]) -> None:
        self.check(checkpoint, prepared, [tool_view(tool) for tool in request.tools], message_views(request.messages))

    def fit(self, request: PreparedRequest, stage: Stage, tools: Sequence[Any], messages: list[Any]) -> None:
        super().fit(request, stage, [tool_view(tool) for tool in tools], messages)


class Checkpoint(_Middleware):
    """A guard check of the request at its place in the middleware chain."""

    def __init__(self, guard: Guard, checkpoint: str) -> None:
        super().__init__(f"guard.{checkpoint}")
        self.guard = guard
        self.checkpoint = checkpoint

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        self.guard.check_request(self.checkpoint, prepared, request)
        return request


class OwnTools(_Middleware):
    """The guard's outermost middleware: each request gets tool objects of its own, built from the
    contract's descriptors, in place of the agent's.

    The agent's `StructuredTool`s live as long as the agent and keep the schema dicts they were
    given; a request that edited one in place would hand the edit to every later run. LangChain
    validates a request's tools by name, so the fresh ones run as the registered ones would.
    """

    def __init__(self) -> None:
        super().__init__("guard.own_tools")

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        return request.override(tools=[tool_of(d) for d in prepared.scenario.contract.surface])


class FinalCheck(Checkpoint):
    """The last check, innermost: what LangChain is about to bind to the model, on every path.

    The checked tools go on as OpenAI-format dicts built from the very fields checked, because
    LangChain's conversion of a `BaseTool` rewrites its JSON schema and passes such a dict unchanged.
    """

    def __init__(self, guard: Guard) -> None:
        super().__init__(guard, "final")

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        self.guard.check_request(self.checkpoint, prepared, request)
        tools = self.guard.narrowed(prepared, request.tools, lambda tool: tool_view(tool)["name"])
        return request.override(tools=[tool if isinstance(tool, dict) else wire_tool(tool) for tool in tools])


# -- the agent and the target -----------------------------------------------------------------


def chain(stages: Sequence[Stage], guard: Guard | None) -> list[_Middleware]:
    """One step per stage of a model call's preparation, in stage order, with the guard's checks
    where they belong."""
    steps: list[_Middleware] = []
    early = guard  # the guard while its early check is still owed
    for stage in stages:
        if early is not None and stage.kind not in (StageKind.RECOVER, StageKind.HOOK):
            steps.append(Checkpoint(early, "early"))
            early = None
        if stage.kind in (StageKind.RECOVER, StageKind.HOOK, StageKind.REVALIDATE):
            steps.append(ToolStage(stage))
        elif stage.kind is StageKind.SEAL:
            steps.append(Seal(stage))
        else:
            steps.append(MessageStage(stage, guard))
    if early is not None:  # recovery and hooks only: the early check is still owed
        steps.append(Checkpoint(early, "early"))
    if guard is not None:
        steps.append(FinalCheck(guard))
    return steps


class Stages(_Middleware):
    """The stages of the model call being prepared, each a `wrap_model_call` step in stage order.

    LangChain wraps every model call of the agent loop in the same middleware, so this one runs,
    before each call, the stages the recording ran before that call (`Scenario.stages_of`), not
    the first call's again. Each step only goes on with its request, so running them in turn is
    what nesting them as separate middleware would do.
    """

    def __init__(self, scenario: Scenario, guard: Guard | None) -> None:
        super().__init__("stages")
        self.calls = [chain(scenario.stages_of(call), guard) for call in range(1, scenario.model_calls + 1)]

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        call = prepared.ports.call
        for step in self.calls[min(call, len(self.calls)) - 1]:
            request = await step.step(prepared, request)
        return request


def middleware(scenario: Scenario, guard: Guard | None) -> list[_Middleware]:
    """The projection (the guard's own tools first), then the stages of each model call."""
    outer: list[_Middleware] = [Projection()] if guard is None else [OwnTools(), Projection()]
    return [*outer, Stages(scenario, guard)]


class GatewayModel(BaseChatModel):
    """The offline model: it reports what reached it to the harness's gateway and answers with the
    recorded model's tool calls, under the gateway's ids, or in text once the recording ends.

    Its `bind_tools` converts with LangChain's `convert_to_openai_tool`, as the provider
    integrations do, so the gateway sees the tools as a provider would get them.
    It reads the request it serves from the run's context, so one agent can serve many runs.
    """

    @property
    def _llm_type(self) -> str:
        return "toolsurface-gateway"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **({"tool_choice": tool_choice} if tool_choice else {}), **kwargs)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        prepared: Request = get_runtime(Request).context
        tools = [tool_view(tool) for tool in kwargs.get("tools", ())]
        reply = prepared.ports.gateway.dispatch(prepared.scenario.identity.request, tools, message_views(messages))
        prepared.sent()
        if calls := reply.get("tool_calls"):
            asked = [{"name": c["name"], "args": c["arguments"], "id": c["id"], "type": "tool_call"} for c in calls]
            return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=asked))])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(ANSWER))])

    async def _agenerate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return self._generate(messages, stop, run_manager, **kwargs)


def build_agent(scenario: Scenario, guarded: bool) -> Any:
    """The agent a host would build for this contract, once, and run for every request: every
    admitted tool from its descriptor (the guard hands each request its own, see `OwnTools`)."""
    guard = Guard() if guarded else None
    return create_agent(
        GatewayModel(),
        tools=[tool_of(d) for d in scenario.contract.surface],
        middleware=middleware(scenario, guard),
        context_schema=Request,
    )


class LangChainTarget(AgentTarget):
    """A toolsurface target (`toolsurface.Target`) around a LangChain `create_agent` agent."""

    framework = "langchain"

    def build_agent(self, scenario: Scenario) -> Any:
        return build_agent(scenario, self.guarded)

    async def run(self, scenario: Scenario, ports: Any) -> None:
        await run_request(self.agent_for(scenario), Request.open(scenario, ports))


async def run_request(agent: Any, prepared: Request) -> None:
    """Run the agent on the recorded conversation and settle the reservation, whatever happens."""

    async def invoke() -> None:
        # Offline whatever the environment says: LangSmith tracing would post every run.
        with tracing_context(enabled=False):
            await agent.ainvoke({"messages": history(prepared.scenario.request_messages)}, context=prepared)

    await settle_run(prepared, invoke(), _framework_refusal)


def _framework_refusal(error: Exception) -> FrameworkRefused | None:
    """LangChain's own check, which refuses tools the agent's `ToolNode` does not know."""
    lines = str(error).strip().splitlines()
    if isinstance(error, ValueError) and lines and lines[0] == _UNKNOWN_TOOLS:
        return FrameworkRefused("LangChain", "bind_tools", next((line for line in lines if line.startswith("Unknown tools")), lines[0]))
    return None


def stock() -> LangChainTarget:
    """LangChain as people use it: no check of its own beyond the framework's."""
    return LangChainTarget(guarded=False)


def guarded() -> LangChainTarget:
    """The same agent with the surface guard: early, capacity and final checks."""
    return LangChainTarget(guarded=True)
