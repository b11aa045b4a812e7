"""The surface guard as a pydantic-ai capability: each model call sends exactly the admitted tools.

Install it (pydantic-ai 2.x: `pip install 'toolsurface[pydantic-ai]'`) by handing it your tools
and adding it to the agent's capabilities; run each request under its owner:

    guard = SurfaceGuardCapability([Tool(search_instruments), Tool(read_page)])
    agent = Agent("openai:gpt-5", capabilities=[YourHooks(), guard.checkpoint(), guard])
    with owning(YourOwner(request_id)):
        result = await agent.run("Compare VWRL and SSAC")

(`Tool` from `pydantic_ai`, `owning` from `toolsurface.guard`.) The guard is the agent's toolset
for those tools: give them to it, not to `Agent(tools=...)`.

A capability that selects each model call's tools in its `prepare_tools` (a router, a relevance
filter, `PrepareTools(select)`) is part of admission: put `guard.admitted()` right after it.

    agent = Agent("openai:gpt-5", capabilities=[PrepareTools(select), guard.admitted(), YourHooks(), guard])

What it does, on every run of the agent:

- **Baseline.** The tools' names, descriptions and parameter schemas are captured as bytes when
  the guard is made: no later edit, in place or not, reaches them.
- **Tools of the run's own.** Each run gets copies of your `Tool`s whose schema dicts are decoded
  from the baseline, so a hook that edits a schema in place edits its own run's copy, and the next
  run of the same agent starts from the admitted surface (a run that leaves its copies byte for
  byte as admitted hands them on, so an unchanged surface is not decoded again). Tools that
  trusted owner facts bound to the run hide are left out.
- **Admission.** Where `guard.admitted()` stands, the step's tool definitions are that model call's
  selection: they must be admitted tools, each unchanged and once, in any order (a selector that
  edits what it keeps is refused there), and the model call is held to them from there on. Without
  it every model call is held to every admitted tool.
- **Checks.** The guard sits in pydantic-ai's innermost capability tier: its `prepare_tools` runs
  after every other capability's, and the step's tool definitions must be the expected surface
  (`toolset`) before pydantic-ai's own check could turn an added tool into an untyped `UserError`.
  `guard.checkpoint()` is one more check, to put right after your own tool hooks (`early`): a
  later stage that rebuilds the list would otherwise hide their edit. Right before every model
  call of the run, its wrapper around the model checks the `ModelRequestParameters` the model
  is handed (`final`): what the request sends, before the model's own conversion to its provider's
  wire form (strict-mode schema rewriting and the like), which is the model's, not a stage's.
- **Narrowing.** Only by trusted owner facts: a fact bound to this very request, from its own
  producer, hides the tools it governs; later model calls of the run are held to what it leaves.
- **Capacity.** With `capacity=Capacity(budget_tokens, max_tools)` (or where the run's owner has
  a `capacity`), every model call that cannot hold its tools and messages is refused with
  `CapacityExceeded`, and a run with more tools than `max_tools` is refused as it starts (with
  `guard.admitted()`, as its selection is made), before any hook of yours could cut them; where
  your own context fitting decides the budget, call `guard.fit(ctx, tools, messages, capacity)`
  there. Tools are never cut.
- **Settlement.** A refusal (`SurfaceRefused`, `SummaryRefused`, `CapacityExceeded`, all
  `RequestRefused`) is raised out of `agent.run` after the run's owner is settled
  `pre_dispatch_rejected`; otherwise the run is settled `dispatched` (a model call went out) or
  `failed`. Once per run, however it ends.

What you implement is the `toolsurface.guard.Owner` of each request: its `binding` (run, scope,
invocation, connection), `facts()` (your owners' availability facts as recorded now; the guard
decides which it trusts) and `settle(settlement, note)` (close the request's reservation in your
ledger). Start each run under `owning(owner)`, or pass `owner=` a callable that returns the run's.

Limits: only the function tools the guard holds are admitted, under the names it holds them by, so
tools another toolset brings (an MCP server, `Agent(tools=...)`) are refused, and so is every tool
where a capability that renames what it wraps (`PrefixTools`) wraps the guard: name the tools the
guard holds as the model should see them (`Tool(search, name="desk_search")`) instead. Output tools
and provider-side native tools are not checked; a `Tool(prepare=...)` that changes or omits its
definition is a change like any other.
A model wrapper outside the guard that sends requests without calling its wrapped model (a batch
API) skips the final check. The guard checks where `guard.checkpoint()` stands, after every
`prepare_tools` hook and right before the model, not between your other hooks (and after
`guard.admitted()`, whose selection it holds the step to): one of yours that
puts a change back (collapses doubled spaces, restores a tool) hides an earlier hook's change from
the later checks, and the request goes out repaired instead of refused. Put `guard.checkpoint()`
right after the `prepare_tools` hook that makes the change; it checks in that tier only, so between
`before_model_request` hooks, fix the change where it is made. The guard keeps each run's state in
its process, so it does not follow a run into durable execution's workers.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "toolsurface.guard.pydantic_ai needs pydantic-ai 2.x: pip install 'toolsurface[pydantic-ai]'"
with requires(_INSTALL):
    import pydantic_ai
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.capabilities import AbstractCapability, CapabilityOrdering
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models import Model, ModelRequestParameters
    from pydantic_ai.models.wrapper import WrapperModel
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset, FunctionToolset
require_version(_INSTALL, pydantic_ai, "pydantic-ai", "2.")

import contextlib
import copy
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from toolsurface.contract._canonical import capture
from toolsurface.contract._facts import WebTools
from toolsurface.contract._guard import Capacity, GuardedRequest, SurfaceGuard
from toolsurface.contract._owner import Owner, Settlement, current_owner

from ._pydantic_ai_views import VIEWS, message_views, tool_view

__all__ = ["SurfaceAdmission", "SurfaceCheckpoint", "SurfaceGuardCapability"]

#: How many unedited sets of tool copies a guard keeps for later runs (one per concurrent run).
_SPARE_SETS = 4


class SurfaceGuardCapability(AbstractCapability[Any]):
    """An agent's surface guard and the toolset of the tools it admits (see the module docstring).

    `tools` are the agent's function tools as you hold them (`pydantic_ai.Tool`s or plain
    functions); `web_tools` names the tools owner facts govern; `summary` is an entry request's
    capability summary, word for word, or None; `capacity` is checked on every model call; `owner`
    returns the owner of the run being started (by default the one `owning` set).
    """

    def __init__(
        self, tools: Sequence[Tool[Any] | Callable[..., Any]], *, web_tools: WebTools | None = None,
        summary: str | None = None, capacity: Capacity | None = None, owner: Callable[[], Owner] = current_owner,
    ) -> None:  # fmt: skip
        self.tools = [tool if isinstance(tool, Tool) else Tool(tool) for tool in tools]
        self.guard = SurfaceGuard(
            [_held_view(tool) for tool in self.tools], VIEWS, web_tools=web_tools, summary=summary, capacity=capacity
        )
        self.capacity = capacity
        self.owner = owner
        #: Whether the agent selects its tools (`admitted()`): then the tool count waits for the selection.
        self.selects = False
        #: The request of each run in progress, by run id: where `checkpoint()` and `fit` find it.
        self._runs: dict[str, GuardedRequest] = {}
        #: Tool copies runs left exactly as admitted, for the next runs to take.
        self._spare: list[list[Tool[Any]]] = []
        #: This run's request and tools, on the copy `for_run` makes for each run.
        self._request: GuardedRequest | None = None
        self._tools: list[Tool[Any]] = []
        self._toolset: AbstractToolset[Any] | None = None

    # One guard is one guard: not equal to another holding the same tools, nor to its run copies.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds tools and an owner source: not spec-serializable

    def get_ordering(self) -> CapabilityOrdering:
        # Innermost: its `prepare_tools` runs after every other capability's, and its model
        # wrapper is the one closest to the model.
        return CapabilityOrdering(position="innermost")

    def checkpoint(self, name: str = "early") -> SurfaceCheckpoint:
        """One more check of the step's tool definitions, where you put it in the capability list:
        right after your own tool hooks, so what runs after them cannot hide their edit."""
        return SurfaceCheckpoint(self, name)

    def admitted(self) -> SurfaceAdmission:
        """Where admission ends, where you put it in the capability list: right after the
        capabilities that select each model call's tools (see the module docstring)."""
        self.selects = True
        return SurfaceAdmission(self)

    def fit(
        self,
        ctx: RunContext[Any],
        tools: Sequence[ToolDefinition],
        messages: Sequence[ModelMessage],
        capacity: Capacity | None = None,
    ) -> None:
        """Refuse the run's request with `CapacityExceeded` unless `tools` and `messages` fit
        `capacity` (the guard's by default): call it where your context fitting has fitted them."""
        if (capacity := capacity or self.capacity) is None:
            raise ValueError("no capacity to fit: pass one, or give the guard capacity=")
        self.request_of(ctx).fit([tool_view(tool) for tool in tools], list(message_views(messages)), capacity)

    def request_of(self, ctx: RunContext[Any]) -> GuardedRequest:
        """The guarded request of the run `ctx` belongs to."""
        request = self._request or (self._runs.get(ctx.run_id) if ctx.run_id is not None else None)
        if request is None:
            raise LookupError("this run is not guarded: add the SurfaceGuardCapability to the agent's capabilities")
        return request

    # -- the run ------------------------------------------------------------------------------

    async def for_run(self, ctx: RunContext[Any]) -> SurfaceGuardCapability:
        request = self.guard.request(self.owner())
        run = copy.copy(self)
        run._request, run._tools = request, self._own_tools()
        run._toolset = self._toolset_of(run._tools, request)
        # More tools than the model call takes (the guard's capacity, else the owner's): refused
        # before any hook of yours could cut them (with a selector, once it has selected).
        if not self.selects:
            request.fit_count([tool for tool in run._tools if tool.name not in request.hidden()])
        if ctx.run_id is not None:
            self._runs[ctx.run_id] = request
        return run

    def _own_tools(self) -> list[Tool[Any]]:
        """Copies of the tools no other run holds: a spare set, or new ones."""
        return self._spare.pop() if self._spare else self._new_tools()

    def _new_tools(self) -> list[Tool[Any]]:
        """Copies of the tools with their schemas decoded from the baseline."""
        return [
            _with_schema(tool, entry[2]) for tool, entry in zip(self.tools, self.guard.baseline.entries(), strict=True)
        ]

    def _hand_on(self, tools: list[Tool[Any]]) -> None:
        """Keep a run's copies for a later run, if they are byte for byte as admitted."""
        if len(self._spare) >= _SPARE_SETS:
            return
        try:
            unchanged = capture([_held_view(tool) for tool in tools], VIEWS).raw == self.guard.baseline.raw
        except (TypeError, ValueError):  # a run left something in a schema that is not JSON
            return
        if unchanged:
            self._spare.append(tools)

    def _toolset_of(self, tools: list[Tool[Any]], request: GuardedRequest | None) -> AbstractToolset[Any]:
        """A toolset of the run's own tool copies, less what trusted owner facts bound to the
        request hide (read as each step lists its tools)."""
        toolset: FunctionToolset[Any] = FunctionToolset(tools)
        if request is None or request.web_tools is None:  # the guard's, else the owner's
            return toolset
        return toolset.filtered(lambda ctx, tool: tool.name not in request.hidden())

    def get_toolset(self) -> AbstractToolset[Any]:
        # The agent collects it once when it is built, and from each run's copy for that run.
        return self._toolset if self._toolset is not None else self._toolset_of(self._new_tools(), None)

    async def wrap_run(self, ctx: RunContext[Any], *, handler: Callable[[], Awaitable[Any]]) -> Any:
        request = self.request_of(ctx)
        try:
            with request.settling():
                return await handler()
        finally:
            if ctx.run_id is not None:
                self._runs.pop(ctx.run_id, None)
            if not request.settled:  # cancelled: not an `Exception`, still one settlement
                request.settle(Settlement.DISPATCHED if request.dispatched else Settlement.FAILED, "run cancelled")
            self._hand_on(self._tools)

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        _check(self.request_of(ctx), "toolset", tool_defs, ctx.messages)
        return tool_defs

    def get_wrapper_model(self, model: Model) -> Model | None:
        return None if self._request is None else CheckedModel(model, self._request, self.capacity)


class SurfaceCheckpoint(AbstractCapability[Any]):
    """A check of the step's tool definitions where it stands in the capability list (see
    `SurfaceGuardCapability.checkpoint`)."""

    def __init__(self, guard: SurfaceGuardCapability, name: str) -> None:
        self.guard = guard
        self.name = name

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        _check(self.guard.request_of(ctx), self.name, tool_defs, ctx.messages)
        return tool_defs


class SurfaceAdmission(AbstractCapability[Any]):
    """Where admission ends (see `SurfaceGuardCapability.admitted`): the step's tool definitions
    are the model call's selection, checked to be admitted tools unchanged, and held to from here on."""

    def __init__(self, guard: SurfaceGuardCapability) -> None:
        self.guard = guard

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None

    async def prepare_tools(self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]) -> list[ToolDefinition]:
        request = self.guard.request_of(ctx)
        request.admit([tool_view(tool) for tool in tool_defs])
        request.fit_count([tool for tool in tool_defs if tool.name not in request.hidden()])
        return tool_defs


class CheckedModel(WrapperModel):
    """The model, behind the final check: every request and stream it is handed is checked first."""

    def __init__(self, wrapped: Model, request: GuardedRequest, capacity: Capacity | None) -> None:
        super().__init__(wrapped)
        self.guarded = request
        self.capacity = capacity

    def _checked(self, messages: list[ModelMessage], parameters: ModelRequestParameters) -> ModelRequestParameters:
        request = self.guarded
        _check(request, "final", parameters.function_tools, messages)
        tools = request.narrowed(parameters.function_tools, lambda tool: tool.name)
        # The guard's capacity, else the owner's, if either says.
        request.fit([tool_view(tool) for tool in tools], list(message_views(messages)), self.capacity)
        request.sent()
        return parameters if len(tools) == len(parameters.function_tools) else replace(parameters, function_tools=tools)

    async def request(
        self, messages: list[ModelMessage], model_settings: Any, model_request_parameters: ModelRequestParameters
    ) -> ModelResponse:
        return await self.wrapped.request(messages, model_settings, self._checked(messages, model_request_parameters))

    @contextlib.asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: Any,
        model_request_parameters: ModelRequestParameters,
        run_context: Any = None,
    ) -> AsyncIterator[Any]:
        parameters = self._checked(messages, model_request_parameters)
        async with self.wrapped.request_stream(messages, model_settings, parameters, run_context) as stream:
            yield stream


def _check(
    request: GuardedRequest, checkpoint: str, tools: Sequence[ToolDefinition], messages: Sequence[ModelMessage]
) -> None:
    # The messages are read lazily: only an entry request's summary check reads them.
    request.check(checkpoint, [tool_view(tool) for tool in tools], message_views(messages))


def _held_view(tool: Tool[Any]) -> dict[str, Any]:
    """The view of the definition pydantic-ai makes from `tool` at each step (`Tool.tool_def`),
    read from the tool itself."""
    return {"name": tool.name, "description": tool.description or "", "input_schema": tool.function_schema.json_schema}


def _with_schema(tool: Tool[Any], schema: dict[str, Any]) -> Tool[Any]:
    """A copy of `tool` holding `schema`: the only mutable part of a tool a hook can reach through
    the definitions pydantic-ai makes from it at each step."""
    own = copy.copy(tool)
    own.function_schema = replace(tool.function_schema, json_schema=schema)
    return own
