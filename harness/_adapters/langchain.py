"""LangChain targets: a real `create_agent` agent built from a scenario's contract, run offline.

`stock()` is the framework as people use it; `guarded()` is the same agent with a guard in
LangChain's own idiom, an `AgentMiddleware`. Each recorded stage is one `wrap_model_call` step, and
each offers its injection point with the framework's live objects:

- projection: `StructuredTool`s with a JSON-schema `args_schema`, narrowed by trusted owner facts in the first stage
  `wrap_model_call`; offered: nothing
- recover, hook, revalidate: `awrap_model_call` middleware, in stage order, going on with `request.override(tools=…,
  messages=…)`; offered: `request.tools`, `request.messages`
- context_fit, evidence, publication, async_prep: `awrap_model_call` middleware after them, as LangChain's own
  `ContextEditingMiddleware` edits a request's context; offered: the same
- seal: the innermost stage middleware: records the request it hands on; offered: the same
- dispatch: `GatewayModel`, a `BaseChatModel` whose `bind_tools` converts with `convert_to_openai_tool`, as provider
  integrations do; offered: nothing

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

The guarded target is the stock agent with the public guard, `toolsurface.guard.langchain`,
installed as a user installs it: `SurfaceGuardMiddleware` built on the agent's own tools, first in
the middleware list, and `guard.last` last; its `guard.early` check runs where the recorded host
checked, after recovery and the hooks (`EarlyCheck`), and the recorded context fitter asks it
whether the request fits (`guard.fit`). The guard hands each request tools of its own, checks what
LangChain binds to the model and settles the request with the harness's ports as its owner
(`ports.owner()`, under `guard.running`).

The target keeps one agent per scenario and runs every request on it, as a host keeps its agent.
Its `StructuredTool`s keep the schema dicts they were given and every run's `ModelRequest` starts
with them, so stock, an in-place edit (or a rename written back) in one request is in the next;
guarded, what a request edits is its own copy and goes with it.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the langchain targets need LangChain 1.x: pip install 'toolsurface[langchain]'"
with requires(_INSTALL):
    import langchain
    from langchain.agents import create_agent
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage, AnyMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.runnables import RunnableLambda
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langgraph.runtime import get_runtime
    from langsmith import tracing_context
require_version(_INSTALL, langchain, "langchain", "1.")

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from toolsurface.contract._canonical import capture
from toolsurface.contract._formats import LOGICAL
from toolsurface.guard.langchain import SurfaceGuardMiddleware, refused_by_langchain
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import capacity_of
from .._reference._stages import replay_messages
from ._common import (
    AgentTarget,
    FrameworkRefused,
    PreparedRequest,
    contract_guard,
    same,
    settle_run,
)
from ._langchain_form import REMEDY, as_sent
from ._langchain_views import Crossing, history, message_views, tool_of, tool_view
from ._structured import answer

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

    def __init__(self, stage: Stage, guard: SurfaceGuardMiddleware | None = None) -> None:
        super().__init__(stage.kind.value)
        self.stage = stage
        self.guard = guard

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        stage = self.stage
        if stage.kind is StageKind.ASYNC_PREP:
            await asyncio.sleep(0)  # the preparation is asynchronous: other work may run in between
            prepared.metadata.update(stage.metadata)

        def replay(views: list[Any]) -> list[Any]:
            fitted = replay_messages(stage, views, prepared.scenario, prepared.ports.publications)
            if stage.kind is StageKind.CONTEXT_FIT and self.guard is not None:
                # The recorded host's context fitter asks the guard, as a user's would: tools are never cut.
                self.guard.fit(request.tools, fitted, capacity_of(stage))
            return fitted

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


# -- the agent and the target -----------------------------------------------------------------


class EarlyCheck(_Middleware):
    """The public guard's `guard.early`, where the recorded host checked: after recovery and the hooks."""

    def __init__(self, guard: SurfaceGuardMiddleware) -> None:
        super().__init__("guard.early")
        self.early = guard.early

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        self.early.check(request)
        return request


def chain(stages: Sequence[Stage], guard: SurfaceGuardMiddleware | None) -> list[_Middleware]:
    """One step per stage of a model call's preparation, in stage order, with the guard's early
    check after recovery and the hooks (before a re-validation could rebuild what they changed)."""
    steps: list[_Middleware] = []
    early = guard  # the guard while its early check is still owed
    for stage in stages:
        if early is not None and stage.kind not in (StageKind.RECOVER, StageKind.HOOK):
            steps.append(EarlyCheck(early))
            early = None
        if stage.kind in (StageKind.RECOVER, StageKind.HOOK, StageKind.REVALIDATE):
            steps.append(ToolStage(stage))
        elif stage.kind is StageKind.SEAL:
            steps.append(Seal(stage))
        else:
            steps.append(MessageStage(stage, guard))
    if early is not None:  # recovery and hooks only: the early check is still owed
        steps.append(EarlyCheck(early))
    return steps


class Stages(_Middleware):
    """The stages of the model call being prepared, each a `wrap_model_call` step in stage order.

    LangChain wraps every model call of the agent loop in the same middleware, so this one runs,
    before each call, the stages the recording ran before that call (`Scenario.stages_of`), not
    the first call's again. Each step only goes on with its request, so running them in turn is
    what nesting them as separate middleware would do.
    """

    def __init__(self, scenario: Scenario, guard: SurfaceGuardMiddleware | None) -> None:
        super().__init__("stages")
        self.calls = [chain(scenario.stages_of(call), guard) for call in range(1, scenario.model_calls + 1)]

    async def step(self, prepared: Request, request: ModelRequest[Request]) -> ModelRequest[Request]:
        call = prepared.ports.call
        for step in self.calls[min(call, len(self.calls)) - 1]:
            request = await step.step(prepared, request)
        return request


def middleware(scenario: Scenario, guard: SurfaceGuardMiddleware | None) -> list[AgentMiddleware[Any, Any]]:
    """The projection, then the stages of each model call; guarded, between the public guard
    (first) and its final check (last), as a user installs it."""
    stages: list[AgentMiddleware[Any, Any]] = [Projection(), Stages(scenario, guard)]
    return stages if guard is None else [guard, *stages, guard.last]


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

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **kwargs: Any) -> Any:
        """A framework's auxiliary call (a tool selector's choice): answered from the recording
        (`_structured`), not sent: it is no model call of the request's."""
        as_json = schema if isinstance(schema, dict) else convert_to_openai_tool(schema)["function"]["parameters"]

        def answered(_: Any) -> Any:
            made = answer(as_json, self.served().ports.gateway.next_calls())
            value = schema.model_validate(made) if hasattr(schema, "model_validate") else made
            return (
                {"raw": AIMessage(json.dumps(made)), "parsed": value, "parsing_error": None} if include_raw else value
            )

        return RunnableLambda(answered)

    def served(self) -> Any:
        """The request this model call serves: anything with `ports`, `scenario` and `sent()`."""
        return get_runtime(Request).context

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        tools = [tool_view(tool) for tool in kwargs.get("tools", ())]
        return self.answer(self.served(), tools, message_views(messages))

    def answer(self, served: Any, tools: list[Any], messages: list[Any]) -> ChatResult:
        """Send the tool and message views to the gateway, and answer as the recorded model did."""
        reply = served.ports.gateway.dispatch(served.scenario.identity.request, tools, messages)
        served.sent()
        if calls := reply.get("tool_calls"):
            asked = [{"name": c["name"], "args": c["arguments"], "id": c["id"], "type": "tool_call"} for c in calls]
            return ChatResult(generations=[ChatGeneration(message=AIMessage("", tool_calls=asked))])
        return ChatResult(generations=[ChatGeneration(message=AIMessage(ANSWER))])

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        return self._generate(messages, stop, run_manager, **kwargs)


@dataclass(frozen=True, slots=True)
class Agent:
    """The agent a host keeps for a contract, and the public guard installed on it, if any."""

    graph: Any
    guard: SurfaceGuardMiddleware | None


def build_agent(scenario: Scenario, guarded: bool) -> Agent:
    """The agent a host would build for this contract, once, and run for every request: every
    admitted tool from its descriptor; guarded, with `toolsurface.guard.langchain` installed on
    those very tools, as a user installs it."""
    contract = scenario.contract
    tools = [tool_of(d) for d in contract.surface]
    guard = SurfaceGuardMiddleware(tools, web_tools=contract.web_tools, summary=contract.summary) if guarded else None
    graph = create_agent(GatewayModel(), tools=tools, middleware=middleware(scenario, guard), context_schema=Request)
    return Agent(graph, guard)


class LangChainTarget(AgentTarget):
    """A toolsurface target (`toolsurface.Target`) around a LangChain `create_agent` agent."""

    framework = "langchain"
    #: How LangChain hands the tools to the model after the last stage, and what to do about it.
    framework_form = staticmethod(as_sent)
    framework_remedy = REMEDY

    def build_agent(self, scenario: Scenario) -> Agent:
        return build_agent(scenario, self.guarded)

    async def run(self, scenario: Scenario, ports: Any) -> None:
        await run_request(self.agent_for(scenario), scenario, ports)


async def run_request(agent: Agent, scenario: Scenario, ports: Any) -> None:
    """Run the agent on the recorded conversation, the request settled once whatever happens:
    stock, by the harness; guarded, by the public guard, with the harness's ports as its owner."""
    owner = ports.owner()  # reserves the request in its lane's ledger
    prepared = Request(scenario, ports, contract_guard(scenario).request(owner))

    async def invoke() -> None:
        # Offline whatever the environment says: LangSmith tracing would post every run.
        with tracing_context(enabled=False):
            await agent.graph.ainvoke({"messages": history(scenario.request_messages)}, context=prepared)

    if agent.guard is None:
        await settle_run(prepared, invoke(), _framework_refusal)
        return
    with agent.guard.running(owner) as run:
        await invoke()
    if not run.dispatched:
        raise RuntimeError("the agent run ended without calling the model")


def _framework_refusal(error: Exception) -> FrameworkRefused | None:
    """LangChain's own check, which refuses tools the agent's `ToolNode` does not know."""
    said = refused_by_langchain(error)
    return None if said is None else FrameworkRefused("LangChain", "bind_tools", said)


def stock() -> LangChainTarget:
    """LangChain as people use it: no check of its own beyond the framework's."""
    return LangChainTarget(guarded=False)


def guarded() -> LangChainTarget:
    """The same agent with the surface guard: early, capacity and final checks."""
    return LangChainTarget(guarded=True)
