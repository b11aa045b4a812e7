"""`reference:framework` — the shipped guard as an agent framework's middleware uses it.

`reference:guarded` is a host built around the guard; this is an agent framework with the guard as
its middleware, in the shape of the shipped integrations (`toolsurface.guard.pydantic_ai`,
`.langchain`, `.openai_agents`), so that the guard's other entry points decide cases too:

- the agent's tools are read through a filter by the request's hidden set (`hidden`), never
  narrowed when the request is made; the check right before each model call is followed by the
  guard's narrowing (`narrowed`), the others by the filter;
- a tool selector picks each model call's tools after the agent's hooks, in an order of its own,
  and ends admission there (`admit`, declared to the harness by `Ports.admit`);
- the agent's start hook (its hooks, the selection and the early check of the first model call)
  runs before the run's `settling`, so a refusal there is settled by the guard alone;
- the guard sees the framework's message objects, the agent's instructions ahead of them;
- the framework refuses a tool name held twice with its own error, which `settling` names as the
  framework's refusal; and the host's context fit raises the capacity rule's result itself
  (`Capacity.exceeded`), for `settling` to settle;
- once the run is over, the agent's answer is published: a run that failed, or was refused, must
  not get there.

Nothing is retried after a refusal. Like `reference:guarded`, it decides nothing itself.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, ClassVar

from toolsurface.scenarios import Scenario, Stage, StageKind

from .._adapters._common import FrameworkRefused
from .._capacity import capacity_of, compress
from .._ports import Ports
from ._guarded import GuardedPipeline
from ._stages import Run, RunOwner, admitted_snapshot

#: The stages the agent's start hook runs, before the run begins: recovery and the agent's hooks.
STARTING = (StageKind.RECOVER, StageKind.HOOK)


@dataclass(frozen=True, slots=True)
class FrameworkMessage:
    """A message as the framework holds it: an object with `content`, not a dict."""

    role: str
    content: Any

    @classmethod
    def of(cls, message: dict[str, Any]) -> FrameworkMessage:
        return cls(str(message.get("role", "")), message.get("content"))


#: The agent's own instructions, which the framework puts ahead of the conversation.
INSTRUCTIONS = FrameworkMessage("system", "You are a research agent: answer from what the tools return.")


class ToolNameConflict(Exception):
    """The framework's own error for a toolset that holds a tool name twice."""


@dataclass(slots=True, eq=False)
class FrameworkRun(Run):
    """The request as the framework holds it, with its selector's choice for the model call."""

    #: The names the selector chose for the model call being prepared, in its order.
    selected: tuple[str, ...] | None = None


class FrameworkPipeline(GuardedPipeline):
    """The shipped guard as an agent framework's middleware uses it."""

    name: ClassVar[str] = "reference:framework"

    def run(self, scenario: Scenario, ports: Ports) -> None:
        messages = [message.as_dict() for message in scenario.request_messages]
        run = FrameworkRun(scenario, ports, ports.fmt, [], messages)
        fit = scenario.fit
        owner = RunOwner(run, capacity_of(fit, None, self.capacity_type) if fit and self.owner_says(run) else None)
        run.admitted = self.admit(run)
        self.watch_server(run)
        run.tools = self.built(run)
        request = run.request = self.request_type(self.guarded(run, run.tools), owner)
        stages = self.next_call(run)  # the first start hook runs outside `settling`
        with request.settling(framework_refusal):
            self.model_calls(run, stages)
        # The agent's answer, once its run is over, is kept where its owner reads it: only a run
        # that ended so gets there.
        ports.publications.publish(f"{scenario.identity.request}/answer", f"answer to {scenario.identity.request}")

    def next_call(self, run: Run) -> tuple[Stage, ...]:
        """The start hook of the model call `run.call`, run now; the stages that prepare it after."""
        head, stages = starting(run.scenario.stages_of(run.call))
        self.start(run, head)
        return stages

    def prepared(self, run: Run, stages: tuple[Stage, ...]) -> None:
        self.prepare(run, stages)  # nothing is retried after a refusal

    def start(self, run: Run, stages: tuple[Stage, ...]) -> None:
        """The start of a model call: recovery and the hooks, then the selection and the early check."""
        for stage in stages:
            self.stage(run, stage)
        self.select(run)
        self.early_check(run)

    def prepare(self, run: Run, stages: tuple[Stage, ...]) -> None:
        for stage in stages:
            self.stage(run, stage)
        self.final_check(run)

    def select(self, run: Run) -> None:
        """The tool selector: the model call's tools, read through the filter, in its own order
        (here the last first); admission ends with them."""
        assert isinstance(run, FrameworkRun)
        selection = list(reversed(self.filtered(run, run.tools)))
        run.ports.admit(selection, run.messages, admitted_snapshot(run))
        run.request.admit(selection)
        run.selected = tuple(name_of(run, tool) or "" for tool in selection)
        run.tools = selection

    def filtered(self, run: Run, tools: list[Any]) -> list[Any]:
        """The toolset's filter: the tools the request's trusted facts do not hide, read now."""
        hidden = run.request.hidden()
        return [tool for tool in tools if name_of(run, tool) not in hidden]

    def project(self, run: Run) -> list[Any]:
        """Fresh tools of the admitted surface, in the selector's order, through the filter."""
        assert isinstance(run, FrameworkRun)
        built = self.built(run)
        if run.selected is not None:
            by_name = {run.fmt.get_name(tool): tool for tool in built}
            built = [by_name[name] for name in run.selected if name in by_name]
        return self.filtered(run, built)

    def narrow(self, run: Run) -> None:
        filtered = self.filtered(run, run.tools)
        if len(filtered) != len(run.tools):
            run.tools = filtered

    def check(self, checkpoint: str, run: Run) -> None:
        self.server_check(checkpoint, run)
        run.request.check(checkpoint, run.tools, [INSTRUCTIONS, *map(FrameworkMessage.of, run.messages)])
        if checkpoint != "final":
            self.narrow(run)
            return
        narrowed = run.request.narrowed(run.tools)
        if len(narrowed) != len(run.tools):
            run.tools = narrowed

    def final_check(self, run: Run) -> None:
        """The framework's toolset for the model call, which refuses a name held twice, then the check."""
        names = [name_of(run, tool) for tool in run.tools]
        if doubled := sorted({name for name in names if name is not None and names.count(name) > 1}):
            raise ToolNameConflict(f"tool name {doubled[0]!r} conflicts with an existing tool")
        super().final_check(run)

    def fit_tools(self, run: Run, stage: Stage) -> None:
        """The host's own context fit: the tools whole and the compressed messages, or the capacity
        rule's result raised as it is."""
        fitted = compress(run.messages, stage.keep_messages or len(run.messages))
        if run.ports.past_admission:
            run.ports.refit(fitted)
        owners = self.owner_says(run) and stage == run.scenario.fit
        capacity = run.request.capacity if owners else capacity_of(stage, None, self.capacity_type)
        if capacity is not None and (over := capacity.exceeded([run.fmt.logical(t) for t in run.tools], fitted)):
            raise over


def starting(stages: tuple[Stage, ...]) -> tuple[tuple[Stage, ...], tuple[Stage, ...]]:
    """The stages the start of a model call runs (recovery and hooks, up to the first other), and the rest."""
    first = next((i for i, stage in enumerate(stages) if stage.kind not in STARTING), len(stages))
    return stages[:first], stages[first:]


def name_of(run: Run, tool: Any) -> str | None:
    """A tool's name, or None where a change left it none to read (the check names that)."""
    with contextlib.suppress(Exception):
        return run.fmt.get_name(tool)
    return None


def framework_refusal(error: Exception) -> FrameworkRefused | None:
    """The framework's own refusal, as `settling` names it."""
    return FrameworkRefused("framework", "toolset", str(error)) if isinstance(error, ToolNameConflict) else None
