"""The surface guard as LangChain middleware: the tools each model call sends are the tools you admitted.

Install (LangChain 1.x, `create_agent`)::

    from toolsurface.guard import owning
    from toolsurface.guard.langchain import SurfaceGuardMiddleware

    guard = SurfaceGuardMiddleware(tools)          # the tools you admit, as you pass them to the agent
    agent = create_agent(model, tools=tools, middleware=[guard, *yours, guard.last])
    with owning(MyOwner(request_id)):              # who this request is; see "What you implement"
        agent.invoke({"messages": [...]})

`guard` goes first (outermost) and `guard.last` last (innermost, right before the model).
Middleware that selects each model call's tools (`LLMToolSelectorMiddleware`) or registers its own
(`TodoListMiddleware`) is part of admission: put `guard.admitted` right after the last of them.
Where middleware of yours rebuilds the tools after others changed them (a re-validation), put
`guard.early` between them, so a change is refused before the rebuild hides it.

What it checks
--------------
- **Baseline.** The admitted tools are captured as JSON bytes when the guard is made: no later
  edit of a tool object, in place or not, reaches it.
- **Admission.** On each model call, what reaches `guard.admitted` (else `guard`) is that call's
  surface: registered tools, each unchanged and once, in any order; a tool added, renamed or edited
  there is refused at the `admission` checkpoint. Everything after it is checked against it.
- **Own tools per request.** On each model call `guard` checks the agent's registered tools
  (`early`: after every `before_agent`/`before_model` hook, and the messages' capability summary
  when you pass `summary=`) and hands the request tool objects of its own, rebuilt from the
  baseline. A middleware that edits a tool's schema in place edits only its own request's copy, so
  nothing reaches the next run of the same agent.
- **Final check.** `guard.last` checks the request after all your middleware, on every model call
  of the run: count, order, names, descriptions and schemas must be the baseline less what trusted
  owner facts hide, byte for byte (object key order aside), and the summary word for word. It then
  hands the model the checked tools as OpenAI-format dicts: LangChain's own conversion of a
  `BaseTool` rewrites a JSON schema (`$ref`s inlined, `$defs` dropped) but passes such a dict
  unchanged, so what was checked is what is sent.
- **Narrowing.** Only an owner fact bound to this very request (`Owner.binding`), from its own
  producer, hides a tool (`web_tools=` names the tools facts govern); a fact of a sibling request
  does not. The guard never adds a tool.
- **Capacity.** With `capacity=Capacity(budget_tokens, max_tools)` (or where the request's owner
  says what it can hold), a request whose admitted tools and messages do not fit is refused with
  `CapacityExceeded` at the final check; tools are never cut.
  A context-fitting middleware of yours can call `guard.fit(tools, messages)` where it fits.
- **Settlement.** A refusal (`SurfaceRefused`, `SummaryRefused`, `CapacityExceeded`, or LangChain's
  own refusal of tools its `ToolNode` does not know) is settled `pre_dispatch_rejected` with the
  request's owner before it is raised; otherwise the run is settled `dispatched` (or `failed` when
  no model call went out) when it ends. Each run is settled once, its model calls sharing one
  `GuardedRequest`.

What you implement
------------------
An `Owner` (`toolsurface.guard.Owner`): `binding` (the request's identity), `facts()` (its
owners' facts now) and `settle(settlement, note)` (your ledger or reservation). The guard finds it
with `current_owner()`, so run each request under `owning(owner)`, or pass `owner=` a callable of
your own. `with guard.running(owner): ...` does both and also settles a run that raises outside a
model call (a tool that raises, say), which LangChain's `after_agent` hook never sees.

Why `guard.last` and not a model wrapper
----------------------------------------
`guard`, being outermost, could swap the request's model for a checking wrapper, so the check ran
where `_get_bound_model` calls `bind_tools`. LangChain reads the request's model there and in your
middleware: `_is_openai_compatible_model` and `_supports_provider_strategy` look at its class and
profile, provider middleware (Anthropic prompt caching) at its type, and a middleware that picks the
model per request (`request.override(model=…)`, `ModelFallbackMiddleware`) would drop the wrapper
and the check with it. An innermost middleware sees the very request the model node binds, leaves
the model alone, and survives a model swap. Only the structured-output tools of a `ToolStrategy`,
which LangChain adds itself after every middleware, are not seen (nor checked).

Limits
------
- Tools are `BaseTool`s or OpenAI-format function dicts. Admit every tool the agent registers,
  those your middleware registers (`AgentMiddleware.tools`) included: admission takes only tools
  it was given.
- A middleware placed after `guard.last` is outside the final check: keep `guard.last` last.
- The guard checks as the request enters and right before the model, not between your
  middleware: one of yours that puts a change back (collapses doubled spaces, restores a tool)
  hides it from the final check, and the request goes out repaired instead of refused. Put
  `guard.early` right before such a middleware, or fix the change where it is made.
- A run interrupted for human input is settled when it ends, under the owner it resumes with.
"""

from __future__ import annotations

from toolsurface.guard._requires import require_version, requires

_INSTALL = "toolsurface.guard.langchain needs LangChain 1.x: pip install 'toolsurface[langchain]'"
with requires(_INSTALL):
    import langchain
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest
    from langchain_core.messages import BaseMessage
    from langchain_core.tools import BaseTool
    from langgraph.errors import GraphBubbleUp
require_version(_INSTALL, langchain, "langchain", "1.")

import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import Any

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._facts import WebTools
from toolsurface.contract._formats import LOGICAL
from toolsurface.contract._guard import Capacity, GuardedRequest, SurfaceGuard
from toolsurface.contract._owner import Owner, Settlement, current_owner, owning

from ._langchain_views import message_views, tool_name, tool_view, wire_tool

__all__ = ["SurfaceGuardMiddleware", "refused_by_langchain"]

#: The views carry a tool's name, description and schema, and no wire field beyond them.
_VIEWS = LOGICAL.only(())
#: How LangChain's `create_agent` refuses a request whose tools its `ToolNode` does not know.
_UNKNOWN_TOOLS = "Middleware added tools that the agent doesn't know how to execute."

Tool = BaseTool | dict[str, Any]


def refused_by_langchain(error: BaseException) -> str | None:
    """What LangChain said refusing tools its `ToolNode` does not know, or None for any other error."""
    lines = str(error).strip().splitlines()
    if isinstance(error, ValueError) and lines and lines[0] == _UNKNOWN_TOOLS:
        return next((line for line in lines if line.startswith("Unknown tools")), lines[0])
    return None


class SurfaceGuardMiddleware(AgentMiddleware[AgentState[Any], Any]):
    """The surface guard for a LangChain agent: put it first, and `guard.last` last (see the module)."""

    def __init__(
        self, tools: Sequence[Tool], *, web_tools: WebTools | None = None, summary: str | None = None,
        capacity: Capacity | None = None, owner: Callable[[], Owner] = current_owner,
    ) -> None:  # fmt: skip
        super().__init__()
        self.core = SurfaceGuard(
            [tool_view(tool) for tool in tools], _VIEWS, web_tools=web_tools, summary=summary, capacity=capacity
        )
        self.owner = owner
        #: Each admitted tool as the user made it, by name: a request's own tools are copies of it.
        self._templates = {tool_name(tool): tool for tool in tools}
        #: Where admission ends, when middleware of yours select the tools: see the module.
        self.admitted = Admission(self)
        #: Whether the agent runs `admitted`: then what the model takes is counted on its selection.
        self.selects = False
        #: An early check you may place after middleware of yours that acts as hooks: see the module.
        self.early = Checkpoint(self, "early")
        #: The final check: the last middleware of the agent.
        self.last = FinalCheck(self)
        #: The open run of each owner (by identity): a run's model calls share one request.
        self._runs: dict[int, GuardedRequest] = {}
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "toolsurface.guard"

    # -- the run ---------------------------------------------------------------------------------

    def run_of(self, owner: Owner) -> GuardedRequest:
        """The guarded request of `owner`'s run: the open one (a refused one stays, so a retry of its
        model call is refused again), or a new one."""
        with self._lock:
            run = self._runs.get(id(owner))
            if run is None or run.owner is not owner or (run.settled and run.refusal is None):
                run = self._runs[id(owner)] = self.core.request(owner)
            return run

    def _close(self, run: GuardedRequest) -> None:
        with self._lock:
            if self._runs.get(id(run.owner)) is run:
                del self._runs[id(run.owner)]

    def _end(self, run: GuardedRequest, error: BaseException | None) -> None:
        """Settle the run once, as it ended, and forget it."""
        if error is not None and (said := refused_by_langchain(error)) is not None:
            run.settle(Settlement.PRE_DISPATCH_REJECTED, f"LangChain refused the tool list: {said}")
        elif error is not None:
            run.settle(
                Settlement.DISPATCHED if run.dispatched else Settlement.FAILED, f"run failed: {type(error).__name__}"
            )
        else:
            run.settle(
                Settlement.DISPATCHED if run.dispatched else Settlement.FAILED,
                "" if run.dispatched else "no model call",
            )
        self._close(run)

    @contextlib.contextmanager
    def running(self, owner: Owner | None = None) -> Iterator[GuardedRequest]:
        """Run one request of the agent under `owner` (default: the current one), settled once
        however it ends, an error outside a model call included."""
        owner = self.owner() if owner is None else owner
        with owning(owner):
            run = self.run_of(owner)
            try:
                yield run
            except BaseException as error:
                self._end(run, error)
                raise
            self._end(run, None)

    # A run's request opens at its first model call (`run_of`); no `before_agent` node is needed.

    def after_agent(self, state: AgentState[Any], runtime: Any) -> None:
        self._end(self.run_of(self.owner()), None)

    async def aafter_agent(self, state: AgentState[Any], runtime: Any) -> None:
        self.after_agent(state, runtime)

    # -- each model call -------------------------------------------------------------------------

    def wrap_model_call(self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]) -> Any:
        run = self.run_of(self.owner())
        try:
            return handler(self._own(run, request))
        except GraphBubbleUp:  # an interrupt: the run goes on when it is resumed
            raise
        except BaseException as error:
            self._end(run, error)
            raise

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        run = self.run_of(self.owner())
        try:
            return await handler(self._own(run, request))
        except GraphBubbleUp:  # an interrupt: the run goes on when it is resumed
            raise
        except BaseException as error:
            self._end(run, error)
            raise

    def _own(self, run: GuardedRequest, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """Admit what the agent registered (in LangChain's order: middleware tools first), check the
        request's summary, and hand it tools of its own."""
        own = self.admit(run, request, "early")
        if not self.selects:  # more tools than the model takes: no middleware of yours may cut them
            run.fit_count(own.tools)
        return own

    def admit(self, run: GuardedRequest, request: ModelRequest[Any], checkpoint: str) -> ModelRequest[Any]:
        """End admission for this model call: the request's tools must be registered ones, each
        unchanged, and are what it is held to from here on, as new objects of its own."""
        run.admit([tool_view(tool) for tool in request.tools], checkpoint)
        run.check_summary(checkpoint, _messages(request))
        return request.override(tools=run.narrowed(self._fresh_tools(run.admitted()), tool_name))

    def _fresh_tools(self, admitted: Snapshot) -> list[Tool]:
        """The admitted tools as new objects, rebuilt from the snapshot's bytes: nothing a request
        does to them reaches another."""
        fresh: list[Tool] = []
        for name, description, schema, *_ in admitted.entries():
            template = self._templates[name]
            if isinstance(template, dict):
                fresh.append(
                    {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}
                )
            elif isinstance(template.args_schema, dict):
                fresh.append(template.model_copy(update={"description": description, "args_schema": schema}))
            else:  # a pydantic model schema: no dict to edit in place. The early check found the
                # template as admitted; a copy without an update keeps LangChain's memo of its schema.
                fresh.append(template.model_copy())
        return fresh

    def fit(
        self, tools: Sequence[Tool], messages: Sequence[BaseMessage | dict[str, Any]], capacity: Capacity | None = None
    ) -> None:
        """Refuse with `CapacityExceeded` (settled) unless these tools and messages fit `capacity`
        (default: the guard's): for a middleware of yours that fits the context, where it does."""
        self.run_of(self.owner()).fit([tool_view(tool) for tool in tools], message_views(messages), capacity)


class Checkpoint(AgentMiddleware[AgentState[Any], Any]):
    """`guard.early`: a check of the request where it stands in the middleware list."""

    def __init__(self, guard: SurfaceGuardMiddleware, checkpoint: str) -> None:
        super().__init__()
        self.guard = guard
        self.checkpoint = checkpoint

    @property
    def name(self) -> str:
        return f"toolsurface.guard.{self.checkpoint}"

    def check(self, request: ModelRequest[Any]) -> None:
        """Refuse (settled, then raised) unless the request's tools are the expected surface and its
        messages carry the summary."""
        run = self.guard.run_of(self.guard.owner())
        run.check(self.checkpoint, [tool_view(tool) for tool in request.tools], _messages(request))

    def wrap_model_call(self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]) -> Any:
        self.check(request)
        return handler(request)

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        self.check(request)
        return await handler(request)


class Admission(AgentMiddleware[AgentState[Any], Any]):
    """`guard.admitted`: where admission ends. What the middleware before it selected is this model
    call's surface, checked to be registered tools unchanged, and held to from here on."""

    def __init__(self, guard: SurfaceGuardMiddleware) -> None:
        super().__init__()
        self.guard = guard

    @property
    def name(self) -> str:
        return "toolsurface.guard.admitted"

    def before_model(self, state: AgentState[Any], runtime: Any) -> None:
        # Before every model call, ahead of `guard`: the tool count waits for the selection.
        self.guard.selects = True

    async def abefore_model(self, state: AgentState[Any], runtime: Any) -> None:
        self.before_model(state, runtime)

    def wrap_model_call(self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]) -> Any:
        guard = self.guard
        return handler(guard.admit(guard.run_of(guard.owner()), request, "admission"))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        guard = self.guard
        return await handler(guard.admit(guard.run_of(guard.owner()), request, "admission"))


class FinalCheck(Checkpoint):
    """`guard.last`: the final check, innermost, on every model call of the run (see the module)."""

    def __init__(self, guard: SurfaceGuardMiddleware) -> None:
        super().__init__(guard, "final")

    @property
    def name(self) -> str:
        return "toolsurface.guard.last"

    def wrap_model_call(self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]) -> Any:
        return handler(self._checked(request))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[Any]]
    ) -> Any:
        return await handler(self._checked(request))

    def _checked(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """Check what goes to the model, in the form it goes, and hand on exactly that."""
        guard = self.guard
        run = guard.run_of(guard.owner())
        # More tools than the model takes is a capacity result, whatever your middleware did to them.
        run.fit_count(run.expected().names())
        wire: list[Tool] = [wire_tool(tool) for tool in request.tools]
        views, messages = [tool_view(tool) for tool in wire], _messages(request)
        run.check("final", views, messages)
        wire = run.narrowed(wire, tool_name)
        # On what the request must carry: less what trusted facts hide now (the guard's capacity, else the owner's).
        run.fit([tool_view(tool) for tool in wire], messages)
        run.sent()
        return request.override(tools=wire)


def _messages(request: ModelRequest[Any]) -> list[dict[str, Any]]:
    """The request's messages as the model gets them: the system message first."""
    system = [request.system_message] if request.system_message is not None else []
    return message_views([*system, *request.messages])
