"""`langchain:PKG.MOD:FACTORY` — your own LangChain agent as a target.

`FACTORY(tools, model)` returns your agent, built the way you build it in production with the
tools and model it is handed:

    def build(tools, model):
        return create_agent(model, tools, middleware=[SurfaceGuardMiddleware(tools), ToolSelector(), Trimmer()])

The harness hands it the contract's tools as `StructuredTool`s (each returns what the recorded
tool returned) and an offline chat model that reports what reached it to the gateway and answers
with the recorded model's tool calls; your middleware stay as you wrote them.

Boundaries: LangChain composes every `wrap_model_call` middleware around the model call, first in
the list outermost. The harness offers an injection boundary as the request enters the first of
them (`before:NAME`) and as each hands it on (`after:NAME`; after the last, the model is next),
named by each middleware's `name`. It places them while your factory runs, by wrapping each
middleware's hook where `create_agent` composes them, so the agent itself is yours, unchanged.
An agent without `wrap_model_call` middleware of yours has one boundary, `before:model`, where the
model binds its tools. toolsurface's guard (`SurfaceGuardMiddleware`, `guard.last`) is not one of
your stages and gets no boundary: the same agent with the guard and without it has the same cases.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the langchain targets need LangChain 1.x: pip install 'toolsurface[langchain]'"
with requires(_INSTALL):
    import langchain
    import langchain.agents.factory as agent_factory
    from langchain.agents.middleware import AgentMiddleware, ModelRequest
    from langchain.tools import ToolRuntime
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import StructuredTool
    from langgraph.prebuilt.tool_node import _get_all_injected_args
    from langsmith import tracing_context
require_version(_INSTALL, langchain, "langchain", "1.")

import contextlib
import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._formats import LOGICAL, ToolDescriptor
from toolsurface.contract._refusals import RequestRefused
from toolsurface.scenarios import Boundary, Scenario

from ._agent import (
    AgentRun,
    UserAgentTarget,
    boundary_name,
    builds_own_tools,
    current_run,
    noting_refusal,
    offer,
    recorded_tools,
    sealed_messages,
)
from ._common import same
from ._langchain_form import REMEDY, as_sent
from ._langchain_views import Crossing, history, message_views, tool_view
from .langchain import GatewayModel, _framework_refusal

#: Where the model binds its tools: the one boundary of an agent without `wrap_model_call` middleware.
MODEL = "before:model"
#: The name every middleware of toolsurface's guard (`toolsurface.guard.langchain`) starts with.
GUARD = "toolsurface.guard"
#: The guard's `guard.admitted`, which declares where admission ends; its boundary is `after:admission`.
ADMITTED = "toolsurface.guard.admitted"
ADMISSION = "admission"
#: The metadata key LangChain marks a middleware's internal model call with (`internal_call_metadata()`).
INTERNAL_CALL = "lc_internal_call"
#: The graph nodes `create_agent` calls the model and runs the tools in.
MODEL_NODE, TOOLS_NODE = "model", "tools"


def _recorded(runtime: ToolRuntime[Any, Any], **arguments: Any) -> str:
    """Every tool: what the recorded tool returned for the call LangChain's `ToolNode` runs."""
    run = current_run()
    if run is None:
        raise RuntimeError("this tool only answers inside a toolsurface run")
    return str(run.ports.tool_result(runtime.tool_call_id or ""))


def tool_of(descriptor: ToolDescriptor) -> StructuredTool:
    """An admitted tool as LangChain tools are made from a JSON schema."""
    return StructuredTool(
        name=descriptor.name,
        description=descriptor.description,
        args_schema=dict(descriptor.input_schema),
        func=_recorded,
    )


def _offered(point: str, request: ModelRequest[Any]) -> ModelRequest[Any]:
    """The request after the boundary at `point`: as it was, or carrying what the harness changed."""
    if current_run() is None:
        return request
    crossing = Crossing(list(request.tools), list(request.messages), point)
    tool_views, message_views_ = offer(point, crossing.tools, crossing.messages)
    tools, messages = crossing.tools_back(list(tool_views)), crossing.messages_back(list(message_views_))
    if (run := current_run()) is not None and run.ports.past_admission:  # what must fit is counted on these
        run.ports.refit(_model_messages(request.system_message, messages))
    if same(tools, request.tools) and same(messages, request.messages):
        return request
    return request.override(tools=tools, messages=messages)


def _refusal(error: Exception) -> RequestRefused | None:
    """`error` as a typed refusal: the guard's, or LangChain's own refusal of a tool list."""
    return error if isinstance(error, RequestRefused) else _framework_refusal(error)


def _model_messages(system: Any, messages: Sequence[Any]) -> list[Any]:
    """The messages as the model gets them, the system message first, as views."""
    return message_views([*([system] if system is not None else []), *messages])


def _admitted(request: ModelRequest[Any], registered: Snapshot) -> None:
    """Where admission ends: the harness's record of what this model call admitted."""
    if (run := current_run()) is not None:
        tools = [tool_view(tool) for tool in request.tools]
        run.ports.admit(tools, _model_messages(request.system_message, request.messages), registered)


def registered_tools(agent: Any) -> Snapshot:
    """Every tool the agent registered, yours and your middleware's, as its `ToolNode` holds them."""
    node = getattr(agent, "nodes", {}).get("tools")
    tools = getattr(getattr(node, "bound", None), "tools_by_name", {})
    return capture([tool_view(tool) for tool in tools.values()], LOGICAL)


class Boundaries:
    """The boundaries around one agent's `wrap_model_call` middleware, as `create_agent` composes them."""

    def __init__(self) -> None:
        #: The names of your middleware seen, per mode (sync, async), in composition order.
        self.names: dict[bool, list[str]] = {False: [], True: []}
        #: Middleware whose hook is sync only: LangChain runs them only when the agent is invoked sync.
        self.sync_only: list[str] = []
        #: Every tool the agent registered, once it is built: what admission selects from.
        self.registered = capture([], LOGICAL)
        #: Whether any `wrap_model_call` hook is composed, per mode: the guard's own included.
        self.composed: dict[bool, bool] = {False: False, True: False}

    def around(self, name: str, hook: Callable[..., Any], is_async: bool) -> Callable[..., Any]:
        """`hook` with the boundaries before it (for the outermost of yours) and after it. The
        guard's own middleware are not your stages: they get none, so a run with the guard and one
        without it have the same cases; but where `guard.admitted` declares that admission ends,
        the harness records what was admitted, and offers `after:admission`."""
        if name == ADMITTED:
            name, inner = ADMISSION, hook

            def admitting(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
                _admitted(request, self.registered)
                return inner(request, handler)

            hook = functools.wraps(inner)(admitting)
            if is_async:

                async def admitting_async(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
                    _admitted(request, self.registered)
                    return await inner(request, handler)

                hook = functools.wraps(inner)(admitting_async)
        elif name.startswith(GUARD):
            return self._entered(hook, is_async) if not self.composed[is_async] else hook
        self.composed[is_async] = True
        first = not self.names[is_async]
        self.names[is_async].append(name)
        if is_async and getattr(hook, "__func__", None) is AgentMiddleware.awrap_model_call:
            self.sync_only.append(name)
        before, after = boundary_name("before", name), boundary_name("after", name)
        if is_async:

            @functools.wraps(hook)
            async def bordered_async(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
                if first:
                    request = _offered(before, request)

                async def handed_on(request: ModelRequest[Any]) -> Any:
                    try:
                        return await handler(_offered(after, request))
                    except Exception as error:
                        noting_refusal(_refusal(error))
                        raise

                return await hook(request, handed_on)

            return bordered_async

        @functools.wraps(hook)
        def bordered(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
            if first:
                request = _offered(before, request)

            def handed_on(request: ModelRequest[Any]) -> Any:
                try:
                    return handler(_offered(after, request))
                except Exception as error:
                    noting_refusal(_refusal(error))
                    raise

            return hook(request, handed_on)

        return bordered

    def _entered(self, hook: Callable[..., Any], is_async: bool) -> Callable[..., Any]:
        """The guard's outermost hook, on an agent with no `wrap_model_call` middleware of yours: the
        model's boundary is where it hands the request on, as your first middleware's would be."""
        self.composed[is_async] = True
        names = self.names[is_async]
        if is_async:

            @functools.wraps(hook)
            async def entered_async(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
                async def handed_on(request: ModelRequest[Any]) -> Any:
                    return await handler(request if names else _offered(MODEL, request))

                return await hook(request, handed_on)

            return entered_async

        @functools.wraps(hook)
        def entered(request: ModelRequest[Any], handler: Callable[..., Any]) -> Any:
            return hook(request, lambda request: handler(request if names else _offered(MODEL, request)))

        return entered

    @property
    def points(self) -> tuple[str, ...]:
        """The boundaries, in the order a request crosses them."""
        names = self.names[True]
        if not names:
            return (MODEL,)
        return (boundary_name("before", names[0]), *(boundary_name("after", name) for name in names))

    @contextlib.contextmanager
    def placed(self) -> Iterator[None]:
        """While a factory builds its agent: each `wrap_model_call` hook `create_agent` composes is
        wrapped with its boundaries. `create_agent` names each hook's trace span
        `NAME.wrap_model_call` / `NAME.awrap_model_call`, which is where the wrapping happens."""
        traceable = agent_factory.traceable

        def bordering(*args: Any, name: str | None = None, **kwargs: Any) -> Any:
            trace = traceable(*args, name=name, **kwargs)
            owner, _, hook_name = (name or "").rpartition(".")
            if hook_name not in ("wrap_model_call", "awrap_model_call"):
                return trace
            return lambda hook: trace(self.around(owner, hook, hook_name == "awrap_model_call"))

        agent_factory.traceable = bordering
        try:
            yield
        finally:
            agent_factory.traceable = traceable


class OfflineModel(GatewayModel):
    """The harness's offline model (`GatewayModel`), serving the run in progress; where no
    middleware of yours borders the model, its own boundary is where it binds the tools."""

    bordered: bool = False

    def served(self) -> AgentRun:
        run = current_run()
        if run is None:
            raise RuntimeError("the offline model only answers inside a toolsurface run")
        return run

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        tools = list(tools)
        if not self.bordered and (run := current_run()) is not None:
            crossing = Crossing(tools, [], MODEL)
            views, _ = run.ports.inject(MODEL, crossing.tools, [])
            run.offered_at_model = run.ports.call
            tools = crossing.tools_back(list(views))
        return super().bind_tools(tools, tool_choice=tool_choice, **kwargs)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        run = self.served()
        if _auxiliary(run_manager):  # answered here, and no model call of the request's
            answered = AIMessage(_auxiliary_answer(run, messages, run_manager))
            return ChatResult(generations=[ChatGeneration(message=answered)])
        tools, views = [tool_view(tool) for tool in kwargs.get("tools", ())], message_views(messages)
        if not self.bordered and run.offered_at_model != run.ports.call:
            # No tools to bind (LangChain binds none then): the model's boundary is here.
            tools, views = run.ports.inject(MODEL, tools, views)
        return self.answer(run, tools, views)


def _auxiliary(run_manager: Any) -> bool:
    """Whether a model call is a framework's auxiliary call (a summary, an emulated tool's result),
    not the request's: one LangChain marks internal to a middleware, or one made outside the
    agent's model node."""
    metadata = getattr(run_manager, "metadata", None) or {}
    return INTERNAL_CALL in metadata or metadata.get("langgraph_node", MODEL_NODE) != MODEL_NODE


def _auxiliary_answer(run: AgentRun, messages: Sequence[BaseMessage], run_manager: Any) -> str:
    """An auxiliary call's answer, from the recording, the same every run. Made while a tool runs
    (an emulator standing in for it): what the recorded tool returned for the call of the last
    reply its prompt names first. Otherwise (a summary, say): the recorded question."""
    if run_manager.metadata.get("langgraph_node") == TOOLS_NODE:
        prompt = "\n".join(str(message.content) for message in messages)
        named = sorted((prompt.find(name), call_id) for call_id, name in run.ports.gateway.replied() if name in prompt)
        if named:
            return run.ports.tool_result(named[0][1])
    users = [message.content for message in run.scenario.request_messages if message.role == "user"]
    return str(users[-1]) if users else ""


class LangChainAgentTarget(UserAgentTarget):
    """Your LangChain agent (`create_agent`), built by your factory, as a target."""

    framework = "langchain"
    #: How LangChain hands the tools to the model after the last boundary, and what to do about it.
    framework_form = staticmethod(as_sent)
    framework_remedy = REMEDY

    def build_agent(self, scenario: Scenario | None) -> Any:
        boundaries, model = Boundaries(), OfflineModel()
        with boundaries.placed():
            agent = self.factory(model) if self.own_tools else self.factory(recorded_tools(scenario, tool_of), model)
        if not hasattr(agent, "ainvoke"):
            raise TypeError(
                f"the factory returned {type(agent).__name__}, not an agent: expected what create_agent returns"
            )
        model.bordered = boundaries.composed[True]
        boundaries.registered = registered_tools(agent)
        if self.own_tools:
            answer_tool_calls(agent)
        # Invoked as LangChain can run it: async, unless a middleware has only a sync hook.
        return agent, not boundaries.sync_only, boundaries.points

    def registered(self) -> list[dict[str, Any]]:
        agent, _, _ = self.build_agent(None)
        return [
            {"name": name, "description": description, "input_schema": schema}
            for name, description, schema, *_ in registered_tools(agent).entries()
        ]

    def checkpoints(self, scenario: Scenario) -> tuple[Boundary, ...]:
        """Every boundary before every model call of the recording: known from the agent's
        middleware, so a request that ends before one (in a capacity result, say) still has its cases."""
        _, _, points = self.agent_for(scenario)
        return tuple(Boundary(point, call) for call in range(1, scenario.model_calls + 1) for point in points)

    def run(self, scenario: Scenario, ports: Any) -> Any:
        agent, run_async, _ = self.agent_for(scenario)
        if run_async:
            return self._arun(agent, scenario, ports)
        with self.request(scenario, ports, _framework_refusal) as run, tracing_context(enabled=False):
            agent.invoke({"messages": history(sealed_messages(scenario, run.ports))})
        return None

    async def _arun(self, agent: Any, scenario: Scenario, ports: Any) -> None:
        with self.request(scenario, ports, _framework_refusal) as run, tracing_context(enabled=False):
            await agent.ainvoke({"messages": history(sealed_messages(scenario, run.ports))})


def answer_tool_calls(agent: Any) -> None:
    """The agent's own tools, as its `ToolNode` runs them, answered by the harness: each call gets
    the recorded result, and the tool's own code is never run (it may reach the world)."""
    node = getattr(getattr(agent, "nodes", {}).get("tools"), "bound", None)
    if node is None:
        return
    for name, tool in list(node.tools_by_name.items()):
        view = tool_view(tool)
        answered = tool_of(ToolDescriptor.of(name, view["description"], view["input_schema"]))
        # What the node injects into a tool is worked out once, from the tool it was built with.
        node.tools_by_name[name], node._injected_args[name] = answered, _get_all_injected_args(answered)


def target(factory: Callable[..., Any], spec: str) -> LangChainAgentTarget:
    return LangChainAgentTarget(factory, spec, own_tools=builds_own_tools(factory))
