"""`reference:guarded` — the guard users install, driven through a recorded pipeline.

The pipeline replays a scenario's recorded stages and, at its boundaries, hands every decision to
the shipped guard (`toolsurface.guard.SurfaceGuard` and its `GuardedRequest`): the baseline is
taken when the guard is made, before any hook runs; an early check after the hooks and a final
check right before each model call, on every path, each followed by the guard's narrowing by
trusted owner facts read at that moment; a context fit the guard answers with the tools whole or a
capacity result; a refusal the guard settles as `pre_dispatch_rejected` with the request's owner,
once, and every other ending settled once too; publications left alone. After a refusal the
pipeline retries the model call once from the registered tools, as a model fallback middleware
does, and the guard refuses the retry too. The guard is made as the recorded host holds its tools:
from the live tools an MCP server listed, else from the recorded descriptors' snapshot; for a
child or an entry request, from the tools alone, the request's owner naming the rest; and for an
MCP-format host with a provider tool limit, with that limit, by which the guard counts the tools
(`fit_count`) before the context fit sizes the tokens.

The pipeline decides nothing itself: it says where and when the guard is asked. Each defect
variant replaces exactly one step, of the guard (`guard_type`, `request_type`) or of this pipeline,
so that each differs from the shipped guard by exactly the flaw it names.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar

from toolsurface.contract._formats import ToolDescriptor
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.scenarios import Lane, Mode, Scenario, Stage, StageKind

from .._capacity import capacity_of, compress
from .._ports import Ports
from ._stages import Run, RunOwner, admitted_snapshot, replay


class GuardedPipeline:
    """The shipped guard at a recorded host's boundaries."""

    name: ClassVar[str] = "reference:guarded"
    refusals: ClassVar[tuple[type[BaseException], ...]] = (RequestRefused,)
    capacity_results: ClassVar[tuple[type[BaseException], ...]] = (CapacityExceeded,)
    #: The guard and the request guard the pipeline makes: the shipped ones, or a defect's.
    guard_type: ClassVar[type[SurfaceGuard]] = SurfaceGuard
    request_type: ClassVar[type[GuardedRequest]] = GuardedRequest
    #: The capacity rule the guard fits a request to, counting with its own estimate: None for the
    #: shipped one, or a source mutant's (the harness's oracle keeps the shipped one).
    capacity_type: ClassVar[type[Any] | None] = None

    def run(self, scenario: Scenario, ports: Ports) -> None:
        run = Run(scenario, ports, ports.fmt, [], [message.as_dict() for message in scenario.request_messages])
        # Where the owner says (`owner_says`), what one model call holds is its word: the recorded fit's.
        fit = scenario.fit
        owner = RunOwner(run, capacity_of(fit, None, self.capacity_type) if fit and self.owner_says(run) else None)
        run.admitted = self.admit(run)
        self.watch_server(run)
        admitted = self.built(run)
        request = run.request = self.request_type(self.guarded(run, admitted), owner)
        run.tools = request.narrowed(admitted)
        with request.settling():
            self.model_calls(run, scenario.stages)

    def model_calls(self, run: Run, stages: tuple[Stage, ...]) -> None:
        """Each model call of the request, from the first, prepared by `stages`, until the model answers."""
        while True:
            self.prepared(run, stages)
            reply = run.ports.gateway.dispatch(run.scenario.identity.request, self.sent(run), run.messages)
            run.request.sent()
            if not reply.get("tool_calls"):
                return
            # The model asked for tools: their results go back in the next model call of the
            # same request, prepared by the stages the host runs before each call, and checked again.
            run.call += 1
            run.messages = run.messages + answered(reply["tool_calls"], run.ports)
            stages = self.next_call(run)

    def next_call(self, run: Run) -> tuple[Stage, ...]:
        """The stages the host runs before the model call `run.call`."""
        return run.scenario.stages_of(run.call)

    def guarded(self, run: Run, admitted: list[Any]) -> SurfaceGuard:
        """The guard, made as the host holds its tools. A host that discovered them over MCP holds
        only the live tools the server listed, and its guard captures them; any other hands it the
        snapshot of the recorded descriptors. A child request's guard, and an entry request's, is its
        agent's, made from the tools alone: what owner facts govern, the capability summary of the
        turn and the capacity of the call are the request owner's word."""
        snapshot = None if run.scenario.mcp is not None else admitted_snapshot(run)
        if self.owner_says(run):
            return self.guard_type(admitted, run.fmt, snapshot=snapshot)
        contract, fit = run.scenario.contract, run.scenario.fit
        limit = capacity_of(fit, None, self.capacity_type) if fit is not None and self.counts_early(run) else None
        return self.guard_type(
            admitted, run.fmt, web_tools=contract.web_tools, summary=contract.summary, capacity=limit, snapshot=snapshot
        )

    def counts_early(self, run: Run) -> bool:
        """Whether the guard knows the provider's tool limit and counts the tools by it alone
        (`fit_count`), the context fit then sizing tokens: a host in the MCP format, whose recording
        declares `max_tools`. Other hosts fit both in one (`fit`)."""
        fit = run.scenario.fit
        return run.scenario.tool_format == "mcp" and fit is not None and fit.max_tools is not None

    def owner_says(self, run: Run) -> bool:
        """Whether the request's owner, not its guard, names what facts govern, the summary and the capacity."""
        return run.scenario.lane is Lane.CHILD or run.scenario.mode is Mode.ENTRY

    def prepared(self, run: Run, stages: tuple[Stage, ...]) -> None:
        """The model call prepared; after a refusal, once more from the registered tools, as a model
        fallback middleware retries: the refusal stands, so the guard refuses the retry too."""
        try:
            self.prepare(run, stages)
        except RequestRefused:
            run.tools = self.project(run)
            self.final_check(run)

    def prepare(self, run: Run, stages: tuple[Stage, ...]) -> None:
        early_done = False
        for stage in stages:
            # Early: after recovery and the hooks, before owner re-validation can rebuild anything.
            if stage.kind not in (StageKind.RECOVER, StageKind.HOOK) and not early_done:
                self.early_check(run)
                early_done = True
            self.stage(run, stage)
        self.final_check(run)

    def stage(self, run: Run, stage: Stage) -> None:
        """One recorded stage: the fit's tools, its replayed effect, the host's own step, the injection."""
        if stage.fits:
            self.fit_tools(run, stage)
        replay(stage, run)
        if stage.kind is StageKind.RECOVER:
            self.recover(run, stage)
        elif stage.kind is StageKind.REVALIDATE:
            self.revalidate(run, stage)
        run.tools, run.messages = run.ports.inject(stage.point, run.tools, run.messages)

    # -- the steps the variants override -------------------------------------------------------

    def sent(self, run: Run) -> list[Any]:
        """What goes on the wire for this model call: the checked tools as they are."""
        return run.tools

    def built(self, run: Run) -> list[Any]:
        """Fresh live tools of the admitted descriptors, in the request's format."""
        return [run.fmt.build(tool) for tool in run.admitted]

    def admit(self, run: Run) -> tuple[ToolDescriptor, ...]:
        """The admitted descriptors. A host that discovers its tools over MCP (the scenario records
        its server) keeps, in grant order, the granted tools the server lists on every page."""
        surface = run.scenario.contract.surface
        if run.scenario.mcp is None:
            return surface
        listed = {tool.name: tool for tool in self.listed(run)}
        return tuple(listed[tool.name] for tool in surface if tool.name in listed)

    def listed(self, run: Run) -> tuple[ToolDescriptor, ...]:
        """`tools/list`, following `nextCursor` to the last page."""
        return run.ports.mcp.list_all()

    def watch_server(self, run: Run) -> None:
        """Subscribe to `notifications/tools/list_changed`: a check then lists again."""
        if run.scenario.mcp is not None:
            run.ports.mcp.subscribe(lambda: setattr(run, "server_changed", True))

    def server_check(self, checkpoint: str, run: Run) -> None:
        """After a list change, the guard re-admits the server's list: it must give the admitted
        surface again, or the request is refused (re-admission is the next turn's)."""
        if run.server_changed:
            run.server_changed = False
            run.request.readmitted([run.fmt.build(tool) for tool in self.admit(run)], checkpoint)

    def project(self, run: Run) -> list[Any]:
        """Fresh live tools of the admitted surface, narrowed by the guard."""
        return run.request.narrowed(self.built(run))

    def narrow(self, run: Run) -> None:
        """The guard's narrowing of the live tools; the very list stays where it hides none."""
        narrowed = run.request.narrowed(run.tools)
        if len(narrowed) != len(run.tools):
            run.tools = narrowed

    def early_check(self, run: Run) -> None:
        self.check("early", run)

    def final_check(self, run: Run) -> None:
        self.check("final", run)

    def check(self, checkpoint: str, run: Run) -> None:
        """A checkpoint: the server's list, the guard's check, then its narrowing by the trusted
        facts that arrived since (checking first keeps a narrowing from erasing a change to a
        tool it hides before anyone saw it)."""
        self.server_check(checkpoint, run)
        run.request.check(checkpoint, run.tools, run.messages)
        self.narrow(run)

    def recover(self, run: Run, stage: Stage) -> None:
        """Resume from the sealed receipt: tools restored from the admitted surface, narrowed by
        the guard; the transcript is handed on as messages and never re-read for availability."""
        run.tools = self.project(run)

    def revalidate(self, run: Run, stage: Stage) -> None:
        """Owner re-validation narrows and never adds; with `rebuild`, the owners rebuild the tool
        objects from their own descriptors. It never moves the baseline."""
        if stage.rebuild:
            run.tools = self.project(run)
            return
        self.narrow(run)

    def fit_tools(self, run: Run, stage: Stage) -> None:
        """The guard fits the tools and the compressed messages to what the recording says one
        model call holds: the tools whole, or a capacity result."""
        fitted = compress(run.messages, stage.keep_messages or len(run.messages))
        # Where the owner says what a call holds (the recorded fit's), the request fits to that; a
        # later model call's own fit stage is fitted to what that stage records.
        owners = self.owner_says(run) and stage == run.scenario.fit
        capacity = None if owners else capacity_of(stage, None, self.capacity_type)
        if self.counts_early(run):
            run.request.fit_count(run.tools)
            capacity = capacity_of(dataclasses.replace(stage, max_tools=None), None, self.capacity_type)
        run.tools = run.request.fit(run.tools, fitted, capacity)


def answered(tool_calls: list[dict[str, Any]], ports: Ports) -> list[dict[str, Any]]:
    """The messages that answer a reply's tool calls: the model's calls, then each tool's result."""
    asked = {"role": "assistant", "content": "", "tool_calls": tool_calls}
    return [
        asked,
        *(
            {"role": "tool", "tool_call_id": call["id"], "content": ports.tool_result(call["id"])}
            for call in tool_calls
        ),
    ]


def variant(flaw: type[Any]) -> type[GuardedPipeline]:
    """The reference pipeline with `flaw`'s step in place of the shipped one: `flaw` replaces a
    step of the guard (a `SurfaceGuard`), of its request (a `GuardedRequest`) or of the pipeline."""
    if issubclass(flaw, GuardedPipeline):
        return flaw
    slot = "request_type" if issubclass(flaw, GuardedRequest) else "guard_type"
    namespace = {"name": flaw.name, slot: flaw, "__doc__": flaw.__doc__, "__module__": flaw.__module__}
    return type(flaw.__name__, (GuardedPipeline,), namespace)
