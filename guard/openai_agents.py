"""The surface guard for the OpenAI Agents SDK: run hooks, a model wrapper, and a run of its own per request.

Install it on the agent you already have, in a few lines::

    from toolsurface.guard import Capacity, owning
    from toolsurface.guard.openai_agents import SurfaceGuard

    guard = SurfaceGuard(tools, capacity=Capacity(100_000, max_tools=128))  # the tools you admit
    agent = Agent(name="Assistant", instructions="...", tools=tools, model=guard.model(OpenAIResponsesModel("gpt-4.1",
    client)))
    with owning(MyOwner(request)):                              # who this request is, and where it is settled
        result = await guard.run(agent, question, hooks=MyHooks())  # instead of Runner.run(agent, ...)

`guard.run` takes what `Runner.run` takes; your hooks, input filter, context and settings stay as you
wrote them.

**What it checks.** At construction the admitted `FunctionTool`s are captured as JSON bytes (name,
description, `params_json_schema`, `strict_json_schema`): the baseline. Each request then runs on a
clone of your agent holding tool objects of its own, copied from yours with the baseline's fields
decoded afresh, so nothing a run edits — an `Agent.tools` a hook replaces, a schema dict edited in
place — reaches the next run (the SDK's own advice for per-run changes; a `FunctionTool` keeps the
schema dict it was given and `on_agent_start` edits the agent itself; a set of tools a run left
exactly as made serves a later run, so an unchanged surface is not copied again). After your run
hooks' `on_agent_start` the agent must still hold the admitted tools, as admitted or less what
trusted owner facts hide (`early`; `check(agent, input)` runs the same check where your own hooks
want it). Right before every model call of the run the model
wrapper checks the tools and input the model is handed, which are what the SDK's converters send
(`final`): count, order, names, descriptions, schemas and `strict` must be the baseline less what
trusted owner facts hide now, and an entry request's input must state its capability summary word
for word. The wrapper then hides what those facts hide. With `selects=True` the tools' `is_enabled`
is admission: the tools it enables for a model call are that call's selection (admitted tools,
each unchanged, in their order), and the call is held to them, so a function that enables a few
tools per call is legitimate, and a piece that drops one it enabled is refused. Without it, a tool
`is_enabled` hides that no trusted fact hides is refused as dropped. With a `capacity` (else the owner's, if it
says; so too `web_tools` and `summary`), a request whose tools and input cannot fit is an explicit
`CapacityExceeded`, and so, at the early check, is a surface with more tools than the model takes that
a hook cut to fit: tools are never cut to fit.

**Handoffs.** Each handoff reaches the model as a function tool (`transfer_to_…`, its description,
its input schema), after the tools: give the guard the agent's handoffs (`handoffs=`, `Handoff`s or
agents) and they are admitted and checked as tools are, and each run holds copies of its own. A
handoff the guard was not given is refused as an added tool, before the model call that would carry it.

**What you implement.** An `Owner` (see `toolsurface.guard`): the request's `binding`, its owners'
`facts()` now, and `settle(settlement, note)`. Run each request under `owning(owner)` (or pass
`owner=` a callable returning it). A refusal (`SurfaceRefused`, `SummaryRefused`,
`CapacityExceeded`) is settled `pre_dispatch_rejected` and raised before anything is sent; however
else the run ends it is settled once, `dispatched` after a model call went out, `failed` before.

**Limits.** `Runner.run` only (a streamed run's model calls are checked, but `guard.run` does not
stream). One agent's tools: install the wrapper as this agent's model, not `RunConfig.model`, when
the run hands off to agents of their own. Only `FunctionTool`s are admitted; a hosted tool handed to
the model is refused. `AgentHooks.on_start` runs beside the run hooks (the SDK gathers them), so
what it changes is caught by the final check, not the early one. A hosted tool's `is_enabled` is
not read. The guard checks after your `on_agent_start` and
right before the model, not between your other pieces: one of yours that puts a change back (a
model wrapper outside `guard.model` that tidies descriptions, say) hides an earlier piece's change
from the final check, and the request goes out repaired instead of refused. Call
`guard.check(agent, input)` in your hook right after the change (`on_start`, `on_llm_start`); a
change made and undone inside model wrappers of yours reaches no check, so fix it where it is made.
"""

from __future__ import annotations

from toolsurface.guard._requires import requires

_INSTALL = "toolsurface.guard.openai_agents needs the OpenAI Agents SDK: pip install 'toolsurface[openai-agents]'"
with requires(_INSTALL):
    from agents import Agent, FunctionTool, Handoff, RunHooks, Runner, RunResult, Tool
    from agents.lifecycle import RunHooksBase
    from agents.models.interface import Model

import contextvars
import copy
import inspect
import operator
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from toolsurface.contract._canonical import capture
from toolsurface.contract._facts import WebTools
from toolsurface.contract._refusals import SummaryRefused
from toolsurface.guard import Capacity, GuardedRequest, Owner, current_owner, summary_of
from toolsurface.guard import SurfaceGuard as CoreGuard

from ._openai_agents_views import CHECKED, as_handoffs, checked_view, message_views

__all__ = ["CheckedModel", "SurfaceGuard"]


@dataclass(slots=True)
class _Run:
    """One request being run: its checks and settlement, and the agent it runs on."""

    request: GuardedRequest
    agent: Agent[Any]
    #: The run's own tool and handoff objects, by id (held by the run's agent as it began, and here).
    own: dict[int, FunctionTool | Handoff[Any, Any]]
    #: Model calls the SDK started for this agent, and those the wrapper checked: a gap is a model not wrapped.
    started: int = 0
    checked: int = 0


class SurfaceGuard:
    """One agent's guard: built once with the tools it admits, it serves every request run with `run`.

    `web_tools` names the tools owner facts govern, `summary` is an entry request's capability
    summary word for word, `capacity` what one model call can hold, and `owner` returns the
    running request's `Owner` (by default the one `owning` set); `selects=True` declares that the
    tools' `is_enabled` selects each model call's tools (admission). `handoffs` are the agent's
    handoffs (`Handoff`s, or agents to hand off to): each reaches the model as a tool, checked as one.
    """

    def __init__(
        self, tools: Sequence[Tool], *, web_tools: WebTools | None = None, summary: str | None = None,
        capacity: Capacity | None = None, owner: Callable[[], Owner] = current_owner, selects: bool = False,
        handoffs: Sequence[Agent[Any] | Handoff[Any, Any]] = (),
    ) -> None:  # fmt: skip
        for index, tool in enumerate(tools):
            if not isinstance(tool, FunctionTool):
                raise TypeError(f"tools[{index}] is a {type(tool).__name__}: the guard admits FunctionTools only")
        self._tools = [tool for tool in tools if isinstance(tool, FunctionTool)]  # all of them, as checked
        self._handoffs = as_handoffs(handoffs)
        self.core = CoreGuard(
            [checked_view(item) for item in (*self._tools, *self._handoffs)],
            CHECKED,
            web_tools=web_tools,
            summary=summary,
            capacity=capacity,
        )
        self.capacity = capacity
        self._owner = owner
        #: Whether the tools' `is_enabled` selects each model call's tools: admission (see the module).
        self.selects = selects
        #: Sets of run tools a finished run left exactly as they were made, for the next runs.
        self._spare: list[_OwnTools] = []
        self._run: contextvars.ContextVar[_Run | None] = contextvars.ContextVar(
            "toolsurface_openai_agents_run", default=None
        )

    async def run(
        self, agent: Agent[Any], input: str | list[Any], *, hooks: RunHooks[Any] | None = None, **kwargs: Any
    ) -> RunResult:
        """`Runner.run(agent, input, hooks=hooks, **kwargs)` as one guarded request of the current owner."""
        request = self.core.request(self._owner())
        try:
            own = self._spare.pop()
        except IndexError:  # none spare: every set is in a run, or was left changed
            own = _OwnTools(self.own_tools(), self._own_handoffs())
        # An agent's handoffs the guard does not hold stay the agent's: the model is handed them, and refused.
        held = {"handoffs": list(own.handoffs)} if self._handoffs else {}
        run = _Run(request, agent.clone(tools=list(own.tools), **held), {id(item): item for item in own.surface})
        token = self._run.set(run)
        try:
            with request.settling():
                return await Runner.run(run.agent, input, hooks=_Hooks(self, run, hooks), **kwargs)
        finally:
            self._run.reset(token)
            if len(self._spare) < _SPARE and own.unchanged(self.core.baseline):
                self._spare.append(own)

    def own_tools(self) -> list[FunctionTool]:
        """Tool objects for one run: copies of the admitted ones (their function, guardrails and
        settings, as `copy.copy` gives them) with the baseline's name, description and a schema dict
        decoded from its bytes, so they share nothing a run could edit."""
        own = []
        entries = list(self.core.baseline.entries())[: len(self._tools)]  # the handoffs' entries follow
        for tool, (name, description, schema, *_) in zip(self._tools, entries, strict=True):
            copied = copy.copy(tool)
            copied.name, copied.description, copied.params_json_schema = name, description, schema
            own.append(copied)
        return own

    def _own_handoffs(self) -> list[Handoff[Any, Any]]:
        """The handoffs for one run, as `own_tools` makes its tools: copies with the baseline's fields."""
        entries = list(self.core.baseline.entries())[len(self._tools) :]
        return [
            replace(item, tool_name=name, tool_description=description, input_json_schema=schema)
            for item, (name, description, schema, *_) in zip(self._handoffs, entries, strict=True)
        ]

    def model(self, model: Model) -> CheckedModel:
        """`model` behind the final check: make it the agent's model, innermost of any wrappers of yours."""
        return CheckedModel(model, self)

    def check(self, agent: Agent[Any], input: str | Sequence[Any] = ()) -> None:
        """The early check, where a host's own hooks want it (say, between a hook that may edit the
        tools and one that rebuilds them): the agent still holds the admitted tools, as admitted or
        less what trusted owner facts hide, and `input` states the entry summary."""
        self._early(self._current(), agent, input)

    def _current(self) -> _Run:
        run = self._run.get()
        if run is None:
            raise RuntimeError("no guarded request is running: run the agent with guard.run(agent, input, ...)")
        return run

    def _early(self, run: _Run, agent: Agent[Any], input: str | Sequence[Any]) -> None:
        request, messages = run.request, message_views(input)
        surface = [*agent.tools, *as_handoffs(agent.handoffs)]
        if capture([checked_view(item) for item in surface], CHECKED) != self.core.baseline:
            # Not every admitted tool as admitted. A surface with more tools than the model call takes
            # is a capacity result, as at the final check: a hook that cut the list to fit did not fit it.
            request.fit_count(list(request.expected().entries()))
            # Otherwise what the agent offers must be the surface in force.
            request.check("early", [checked_view(item) for item in self._offered(run, surface)], messages)
        elif (summary := request.summary) is not None and (stated := summary_of(messages)) != summary:
            request.refuse(SummaryRefused("early", summary, stated))
        # Whatever trusted facts hide now is hidden before the model gets the tools (by `is_enabled`,
        # or the final check's narrowing): from here on the request is held to the rest.
        request.narrowed(())

    async def _admit(self, run: _Run, context: Any, agent: Agent[Any]) -> None:
        """Admission, where the tools' `is_enabled` selects: the run's own tools it enables for this
        model call, in their order, are what the call is held to."""
        own = list(run.own.values())
        if not self.selects or all(item.is_enabled is True for item in own):
            return
        enabled = [item for item in own if await _enabled(item, context, agent)]
        run.request.admit([checked_view(item) for item in enabled])

    def _final(self, input: str | Sequence[Any], tools: list[Any], handoffs: Sequence[Any]) -> list[Any]:
        """Check what the model is handed (its tools, then its handoffs, as the SDK's converters
        send them); the tools it gets, less what trusted facts hide now."""
        run = self._current()
        run.checked += 1
        request, messages = run.request, message_views(input)
        offered = self._offered(run, [*tools, *handoffs])
        tools = [item for item in offered if not isinstance(item, Handoff)]
        if (capacity := request.capacity) is not None:
            # Counted on the surface the request must carry, never on what a stage left of it: a
            # tool dropped to make room is refused as dropped, not fitted.
            surface = [entry[:3] for entry in request.expected().entries()]
            if (result := capacity.exceeded(surface, messages)) is not None:
                request.refuse(result)
        request.check("final", [checked_view(item) for item in offered], messages)
        narrowed = request.narrowed(tools, _name)
        request.sent()  # from here on the provider may have it, whatever the model call raises
        return narrowed

    @staticmethod
    def _offered(run: _Run, tools: Sequence[Any]) -> list[Any]:
        """The tools as offered: less the run's own tools that trusted facts hide now (the guard's to
        hide, as `is_enabled` hides them) where that leaves exactly the surface in force, else as
        they are, so a hidden tool a stage put back is refused, not hidden again."""
        hidden = run.request.hidden()
        kept = [tool for tool in tools if not (id(tool) in run.own and _name(tool) in hidden)]
        if len(kept) < len(tools) and capture([checked_view(tool) for tool in kept], CHECKED) == run.request.expected():
            return kept
        return list(tools)


async def _enabled(tool: FunctionTool | Handoff[Any, Any], context: Any, agent: Agent[Any]) -> bool:
    """Whether the SDK offers `tool` to this model call, as its `get_all_tools` (or `get_handoffs`) decides."""
    if not callable(tool.is_enabled):
        return bool(tool.is_enabled)
    enabled = tool.is_enabled(context, agent)
    return bool(await enabled if inspect.isawaitable(enabled) else enabled)


def _name(tool: Any) -> str:
    if isinstance(tool, Handoff):
        return tool.tool_name
    return tool.name if isinstance(tool, FunctionTool) else repr(tool)


#: How many unchanged sets of run tools a guard keeps for later runs (as many as run at once, say).
_SPARE = 8


class _OwnTools:
    """One run's tool objects, and how they were made: decoding the schemas costs more than a run
    of the SDK, so a set a run left exactly as made serves a later run instead of a new one."""

    def __init__(self, tools: list[FunctionTool], handoffs: list[Handoff[Any, Any]]) -> None:
        self.tools, self.handoffs = tools, handoffs
        self.surface: list[FunctionTool | Handoff[Any, Any]] = [*tools, *handoffs]
        self._made = [_state(item) for item in self.surface]

    def unchanged(self, baseline: Any) -> bool:
        """Whether every tool is as made: its surface as the baseline has it, and every other
        attribute the same object (a list, the same items)."""
        return all(map(_same, map(_state, self.surface), self._made)) and (
            capture([checked_view(item) for item in self.surface], CHECKED) == baseline
        )


def _state(tool: FunctionTool | Handoff[Any, Any]) -> tuple[Any, ...]:
    """A tool's (or handoff's) attribute names and values, then the items of those that are lists."""
    attributes = vars(tool)
    return (
        *attributes,
        *attributes.values(),
        *(item for value in attributes.values() if isinstance(value, list) for item in value),
    )


def _same(now: tuple[Any, ...], made: tuple[Any, ...]) -> bool:
    return len(now) == len(made) and all(map(operator.is_, now, made))


class _Hooks(RunHooks[Any]):
    """The run's hooks: yours, each as you wrote it, with the early check after `on_agent_start`."""

    def __init__(self, guard: SurfaceGuard, run: _Run, yours: RunHooks[Any] | None) -> None:
        self._guard, self._run, self._yours = guard, run, yours
        if yours is not None:  # every hook the guard does not add to is yours, unwrapped
            for name in dir(RunHooksBase):
                if name.startswith("on_") and name not in _Hooks.__dict__:
                    setattr(self, name, getattr(yours, name))

    async def on_agent_start(self, context: Any, agent: Any) -> None:
        if self._yours is not None:
            await self._yours.on_agent_start(context, agent)
        if agent is self._run.agent:  # an agent handed off to is not this guard's
            self._guard._early(self._run, agent, context.turn_input)

    async def on_llm_start(self, context: Any, agent: Any, system_prompt: str | None, input_items: list[Any]) -> None:
        if self._yours is not None:
            await self._yours.on_llm_start(context, agent, system_prompt, input_items)
        if agent is self._run.agent:
            self._run.started += 1
            await self._guard._admit(self._run, context, agent)

    async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
        run = self._run
        if agent is run.agent and run.checked < run.started:
            run.request.sent()
            raise RuntimeError("a model call went out unchecked: make the agent's model guard.model(model)")
        if self._yours is not None:
            await self._yours.on_llm_end(context, agent, response)


class CheckedModel(Model):
    """A model behind the guard's final check: each call's tools and input are checked right
    before `model` gets them, streamed or not."""

    def __init__(self, model: Model, guard: SurfaceGuard) -> None:
        self.model = model
        self.guard = guard

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
    ) -> Any:
        tools = self.guard._final(input, tools, handoffs)
        return await self.model.get_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
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
        tools = self.guard._final(input, tools, handoffs)
        async for event in self.model.stream_response(
            system_instructions, input, model_settings, tools, output_schema, handoffs, tracing,
            previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
        ):  # fmt: skip
            yield event

    def get_retry_advice(self, request: Any) -> Any:
        return self.model.get_retry_advice(request)

    async def close(self) -> None:
        await self.model.close()
