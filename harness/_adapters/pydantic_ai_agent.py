"""`pydantic-ai:PKG.MOD:FACTORY` — your own pydantic-ai agent as a target.

`FACTORY(tools, model)` returns your `pydantic_ai.Agent`, built the way you build it in production
with the tools and model it is handed:

    def build(tools, model):
        guard = SurfaceGuardCapability(tools)
        return Agent(model, capabilities=[PrepareTools(provider_limit), guard.checkpoint(), ProcessHistory(trim),
        guard])

`tools` is a list of `pydantic_ai.Tool`s (made with `Tool.from_schema`, each returning what the
recorded tool returned); `model` is an offline `FunctionModel` that reports what reached it to the
harness's gateway and answers with the recorded model's tool calls. The harness runs the agent with
`agent.run(message_history=...)` on the conversation as the recording sealed it.

Boundaries: before every model call pydantic-ai runs each capability's `prepare_tools` hook over
the step's tool definitions (your `PrepareTools(func)` among them), in the agent's capability
order, then each `before_model_request` hook over the request (your `ProcessHistory(func)` history
processors among them), in the same order. The harness offers an injection boundary as the request
reaches the first of your hooks (`before:NAME`) and as each hands it on (`after:NAME`), named after
the function of a `PrepareTools`/`ProcessHistory`, else the capability's class (a capability with
both hooks: `NAME.prepare_tools`, `NAME.before_model_request`). It places them after your factory
returns, on the agent's own capability list (`agent.root_capability.capabilities`, in dispatch
order), by wrapping each of your capabilities' hook methods on that instance (and on the instance
its `for_run` returns for a run), so your capabilities' code and order are unchanged. The
toolsets' work (per-tool `prepare`, `FilteredToolset`...) is the projection before the first
boundary. An agent without hooks of yours has one boundary, `before:model`, as its first
capability lists the step's tools (or, with no capability at all, where the model is called).
toolsurface's guard (`toolsurface.guard.pydantic_ai`) and the capabilities pydantic-ai adds by
itself are not your stages and get no boundary: the same agent with the guard and without it has
the same cases; but where the guard's `guard.admitted()` declares that admission ends (after a
`prepare_tools` selector), the harness records what each model call admitted, from the tools the
step listed, and offers `after:admission`. Not bordered: capabilities inside a deferred-loading
group, capabilities made per run by a capability function, `wrap_model_request` hooks (they see
the request after the `before_model_request` ones, where only the guard's final check is left),
and instances with `__slots__` (a one-line error).
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "the pydantic-ai targets need pydantic-ai 2.x: pip install 'toolsurface[pydantic-ai]'"
with requires(_INSTALL):
    import pydantic_ai
    import pydantic_ai.agent as agent_module
    from pydantic_ai import Agent, Tool
    from pydantic_ai.capabilities import (
        AbstractCapability,
        PrepareTools,
        ProcessHistory,
    )
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import (
        AbstractToolset,
        CombinedToolset,
        FunctionToolset,
        PrefixedToolset,
        RenamedToolset,
        WrapperToolset,
    )
require_version(_INSTALL, pydantic_ai, "pydantic-ai", "2.")

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._formats import LOGICAL, ToolDescriptor
from toolsurface.guard._pydantic_ai_views import tool_view
from toolsurface.guard.pydantic_ai import SurfaceAdmission
from toolsurface.scenarios import Boundary, Scenario

from ._agent import (
    AgentRun,
    UserAgentTarget,
    boundary_name,
    builds_own_tools,
    current_run,
    offer,
    recorded_tools,
    sealed_messages,
)
from ._common import same
from ._pydantic_ai_views import Crossing, history
from .pydantic_ai import ANSWER, _framework_refusal

#: The boundary of an agent without hooks of yours.
MODEL = "before:model"
#: The module every piece of toolsurface's guard comes from.
GUARD = "toolsurface.guard"
#: The boundary after the guard's `guard.admitted()`, which declares where admission ends.
ADMISSION = "admission"
#: The hooks that see and can change a model call's tools, in the order pydantic-ai runs them.
HOOKS = ("prepare_tools", "before_model_request")
#: What pydantic-ai adds to every agent by itself (`ToolSearch`, the pending-message drain).
_AUTOMATIC: tuple[type, ...] = tuple(getattr(agent_module, "_AUTO_INJECT_CAPABILITY_TYPES", ()))


def _recorded(ctx: Any, **arguments: Any) -> str:
    """Every tool: what the recorded tool returned for the call pydantic-ai runs."""
    return str(_served().ports.tool_result(ctx.tool_call_id))


def tool_of(descriptor: ToolDescriptor) -> Tool[Any]:
    """An admitted tool as pydantic-ai makes one from a JSON schema."""
    return Tool.from_schema(_recorded, name=descriptor.name, description=descriptor.description,
                            json_schema=dict(descriptor.input_schema), takes_ctx=True)  # fmt: skip


def _served() -> AgentRun:
    run = current_run()
    if run is None:
        raise RuntimeError("the harness's tools and model only answer inside a toolsurface run")
    return run


def _offered_tools(point: str, ctx: Any, tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
    """The step's tool definitions (and the run's messages) after the boundary at `point`."""
    if current_run() is None:
        return tool_defs
    crossing = Crossing(tool_defs, ctx.messages, point)
    tool_views, message_views = offer(point, crossing.tools, crossing.messages)
    _refit(list(message_views))
    messages = crossing.model_messages(list(message_views))
    if not same(messages, ctx.messages):
        ctx.messages[:] = messages
    return crossing.tool_definitions(list(tool_views))


def _offered_request(point: str, ctx: Any, request_context: Any) -> None:
    """The model request being prepared, carrying what the harness changed at `point`."""
    if current_run() is None:
        return
    parameters = request_context.model_request_parameters
    crossing = Crossing(parameters.function_tools, request_context.messages, point)
    tool_views, message_views = offer(point, crossing.tools, crossing.messages)
    _refit(list(message_views))
    tools, messages = crossing.tool_definitions(list(tool_views)), crossing.model_messages(list(message_views))
    if not same(tools, parameters.function_tools):
        request_context.model_request_parameters = replace(parameters, function_tools=tools)
    if not same(messages, request_context.messages):
        # As pydantic-ai's own `ProcessHistory` does: this request, and the run's history.
        request_context.messages = list(messages)
        ctx.messages[:] = messages


def _refit(message_views: list[Any]) -> None:
    """Past admission, what must fit is counted on the messages as they stand here."""
    if (run := current_run()) is not None and run.ports.past_admission:
        run.ports.refit(message_views)


def _admitted(ctx: Any, tool_defs: list[ToolDefinition], registered: Snapshot) -> None:
    """Where admission ends: the harness's record of what this model call admitted."""
    if (run := current_run()) is not None:
        crossing = Crossing(tool_defs, ctx.messages, ADMISSION)
        run.ports.admit(list(crossing.tools), list(crossing.messages), registered)


def _bordered_hook(
    capability: Any, hook: str, before: str | None, after: str | None, listed: Boundaries
) -> Callable[..., Any]:
    """`capability`'s own `hook` with the boundaries before it (for the first of yours) and after it;
    the first also notes the tools the step lists, and admission records what it admitted."""
    method = getattr(type(capability), hook)
    if hook == "prepare_tools":

        async def prepare_tools(ctx: Any, tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
            if before is not None:
                listed.registered = capture([tool_view(tool) for tool in tool_defs], LOGICAL)
                tool_defs = _offered_tools(before, ctx, tool_defs)
            if isinstance(capability, SurfaceAdmission):
                _admitted(ctx, tool_defs, listed.registered)
            tool_defs = await method(capability, ctx, tool_defs)
            return tool_defs if after is None else _offered_tools(after, ctx, tool_defs)

        return prepare_tools

    async def before_model_request(ctx: Any, request_context: Any) -> Any:
        if before is not None:
            _offered_request(before, ctx, request_context)
        request_context = await method(capability, ctx, request_context)
        if after is not None:
            _offered_request(after, ctx, request_context)
        return request_context

    return before_model_request


def _border(capability: Any, borders: list[tuple[str, str | None, str | None]], listed: Boundaries) -> None:
    """Wrap `capability`'s hooks on the instance, and on each instance its `for_run` makes for a run."""
    for_run = type(capability).for_run

    async def bordered_for_run(ctx: Any) -> Any:
        run_capability = await for_run(capability, ctx)
        if run_capability is not capability:
            _border(run_capability, borders, listed)
        return run_capability

    try:
        for hook, before, after in borders:
            object.__setattr__(capability, hook, _bordered_hook(capability, hook, before, after, listed))
        object.__setattr__(capability, "for_run", bordered_for_run)
    except AttributeError:  # `__slots__`: the instance takes no attribute of its own
        raise TypeError(
            f"cannot place boundaries around {type(capability).__name__}: its instances have __slots__"
        ) from None


def _piece_name(capability: Any) -> str:
    """The name a user knows a capability by: its function's, for pydantic-ai's function capabilities."""
    if isinstance(capability, SurfaceAdmission):
        return ADMISSION
    function = getattr(capability, "prepare_func", None) if isinstance(capability, PrepareTools) else None
    if isinstance(capability, ProcessHistory):
        function = capability.processor
    return getattr(function, "__name__", None) or type(capability).__name__


def _bordered(capability: Any) -> bool:
    """Your capabilities get boundaries, and so does the guard's `guard.admitted()`: where admission ends."""
    if isinstance(capability, SurfaceAdmission):
        return True
    return not type(capability).__module__.startswith(GUARD) and not isinstance(capability, _AUTOMATIC)


class Boundaries:
    """The boundaries around one agent's own tool and request hooks."""

    def __init__(self) -> None:
        #: The boundaries, in the order a model call crosses them.
        self.points: tuple[str, ...] = (MODEL,)
        #: Whether a capability borders the model (else the offline model offers `before:model`).
        self.placed = False
        #: The tools the step in progress listed, as its first hook got them: what admission selects from.
        self.registered = capture([], LOGICAL)

    def place(self, agent: Agent[Any, Any]) -> None:
        capabilities = list(agent.root_capability.capabilities)
        hooked = [
            (c, [h for h in HOOKS if getattr(type(c), h) is not getattr(AbstractCapability, h)])
            for c in capabilities
            if _bordered(c)
        ]
        crossings = [(c, hook) for hook in HOOKS for c, hooks in hooked if hook in hooks]
        borders: dict[int, list[tuple[str, str | None, str | None]]] = {}
        if not crossings:
            if capabilities:  # the first capability lists the step's tools first
                _border(capabilities[0], [("prepare_tools", MODEL, None)], self)
                self.placed = True
            return
        points: list[str] = []
        for index, (capability, hook) in enumerate(crossings):
            name = _piece_name(capability)
            both = sum(c is capability for c, _ in crossings) > 1
            after = boundary_name("after", f"{name}.{hook}" if both else name)
            before = boundary_name("before", f"{name}.{hook}" if both else name) if index == 0 else None
            points += [p for p in (before, after) if p is not None]
            borders.setdefault(id(capability), []).append((hook, before, after))
        for capability, _ in hooked:
            if id(capability) in borders:
                _border(capability, borders[id(capability)], self)
        self.points, self.placed = tuple(points), True


class OfflineModel:
    """The harness's offline model: reports what reached it to the gateway and answers with the
    recorded model's tool calls, under the gateway's ids, or in text once the recording ends."""

    def __init__(self) -> None:
        self.bordered = False
        self.model = FunctionModel(self.reach, model_name="toolsurface-gateway")

    async def reach(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        run = _served()
        sent = Crossing(info.function_tools, messages, "dispatch")
        tools, views = sent.tools, sent.messages
        if not self.bordered:
            tools, views = run.ports.inject(MODEL, tools, views)
        reply = run.ports.gateway.dispatch(run.scenario.identity.request, tools, views)
        run.sent()
        if calls := reply.get("tool_calls"):
            return ModelResponse(
                parts=[ToolCallPart(call["name"], call["arguments"], tool_call_id=call["id"]) for call in calls]
            )
        return ModelResponse(parts=[TextPart(ANSWER)])


class PydanticAIAgentTarget(UserAgentTarget):
    """Your pydantic-ai `Agent`, built by your factory, as a target."""

    framework = "pydantic-ai"

    def build_agent(self, scenario: Scenario | None) -> tuple[Agent[Any, Any], tuple[str, ...]]:
        model = OfflineModel()
        if self.own_tools:
            agent = self.factory(model.model)
        else:
            agent = self.factory(recorded_tools(scenario, tool_of), model.model)
        if not isinstance(agent, Agent):
            raise TypeError(f"the factory returned {type(agent).__name__}, not a pydantic_ai.Agent")
        boundaries = Boundaries()
        boundaries.place(agent)
        model.bordered = boundaries.placed
        return agent, boundaries.points

    def registered(self) -> list[dict[str, Any]]:
        agent, _ = self.build_agent(None)
        tools: dict[str, Tool[Any]] = {}
        for toolset in (*agent.toolsets, agent.root_capability.get_toolset()):
            if isinstance(toolset, AbstractToolset):  # a toolset function is made per run: not read
                tools.update(listed(toolset))
        return [tool_view(replace(tool.tool_def, name=name)) for name, tool in tools.items()]

    def checkpoints(self, scenario: Scenario) -> tuple[Boundary, ...]:
        """Every boundary before every model call of the recording: known from the agent's hooks,
        so a request that ends before one (in a capacity result, say) still has its cases."""
        _, points = self.agent_for(scenario)
        return tuple(Boundary(point, call) for call in range(1, scenario.model_calls + 1) for point in points)

    async def run(self, scenario: Scenario, ports: Any) -> None:
        agent, _ = self.agent_for(scenario)
        with self.request(scenario, ports, _framework_refusal) as run:
            await agent.run(None, message_history=history(sealed_messages(scenario, run.ports)))


def listed(toolset: AbstractToolset[Any]) -> dict[str, Tool[Any]]:
    """The function tools a toolset holds, by the names the agent lists them under: through the
    toolsets that rename what they wrap (`PrefixTools` makes a `PrefixedToolset`)."""
    if isinstance(toolset, FunctionToolset):
        return dict(toolset.tools)
    if isinstance(toolset, CombinedToolset):
        return {name: tool for member in toolset.toolsets for name, tool in listed(member).items()}
    if not isinstance(toolset, WrapperToolset):
        return {}  # an MCP server, a toolset function: listed only in a run
    inner = listed(toolset.wrapped)
    if isinstance(toolset, PrefixedToolset):
        return {f"{toolset.prefix}_{name}": tool for name, tool in inner.items()}
    if isinstance(toolset, RenamedToolset):
        new = {original: name for name, original in toolset.name_map.items()}
        return {new.get(name, name): tool for name, tool in inner.items()}
    return inner


async def _answered(self: FunctionToolset[Any], name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
    """A function tool's call: inside a harness run, what the recorded tool returned, so an agent's
    own tools never run (they may reach the world); outside one, the tool's own."""
    if current_run() is None:
        return await _CALL_TOOL(self, name, tool_args, ctx, tool)
    return _recorded(ctx)


_CALL_TOOL = FunctionToolset.call_tool
FunctionToolset.call_tool = _answered  # type: ignore[method-assign]


def target(factory: Callable[..., Any], spec: str) -> PydanticAIAgentTarget:
    return PydanticAIAgentTarget(factory, spec, own_tools=builds_own_tools(factory))
