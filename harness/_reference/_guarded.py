"""`reference:guarded` — the correct design, built from overridable steps.

Immutable baseline captured before any hook runs; the expected surface is that baseline narrowed
only by trusted owner facts, read at each decision (a fact may arrive mid-run: each checkpoint
checks the surface in force, then narrows by what arrived since); an early check after the hooks
and a final check right before dispatch, on every path and before every model call of the
request, of the tools and (entry mode) the capability summary; a request whose tools cannot fit is
an explicit capacity result, never a shortened list; every refusal is typed and settled as
`pre_dispatch_rejected` on the original lane's ledger, once for the whole request; publications
are left alone. Each defect variant and the legacy path override one or more steps, so each differs from
this by exactly the flaw it names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

from toolsurface.contract._canonical import Snapshot, capture, snapshot_of
from toolsurface.contract._facts import OwnerFact, hidden_by
from toolsurface.contract._formats import ToolDescriptor, ToolFormat
from toolsurface.contract._owner import Settlement
from toolsurface.contract._refusals import (
    CapacityExceeded,
    RequestRefused,
    SummaryRefused,
    SurfaceRefused,
)
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import compress, over_capacity
from .._ports import Gateway, Ports
from ._stages import Run, replay


class GuardedPipeline:
    """The correct design: immutable baseline, trusted narrowing, early and final checks on every
    path, capacity results, settled refusals."""

    name: ClassVar[str] = "reference:guarded"
    refusals: ClassVar[tuple[type[BaseException], ...]] = (RequestRefused,)
    capacity_results: ClassVar[tuple[type[BaseException], ...]] = (CapacityExceeded,)

    def run(self, scenario: Scenario, ports: Ports) -> None:
        ledger = ports.ledger(scenario.lane)
        run = Run(
            scenario=scenario,
            ports=ports,
            fmt=ports.fmt,
            ledger=ledger,
            reservation=ledger.reserve(scenario.identity.request),
            tools=[],
            messages=[message.as_dict() for message in scenario.request_messages],
        )
        run.admitted = self.admit(run)
        self.watch_server(run)
        run.tools = self.project(run)
        run.baseline = self.take_baseline(run)
        stages = scenario.stages
        while True:
            try:
                self.prepare(run, stages)
            except RequestRefused as refusal:
                self.settle_refusal(run, refusal)
                raise
            reply = ports.gateway.dispatch(scenario.identity.request, self.sent(run), run.messages)
            if not reply.get("tool_calls"):
                break
            # The model asked for tools: their results go back in the next model call of the same
            # request, prepared by the stages the host runs before each call, and checked again.
            run.call += 1
            run.messages = run.messages + answered(reply["tool_calls"], ports)
            stages = scenario.stages_of(run.call)
        ledger.settle(run.reservation, Settlement.DISPATCHED)

    def prepare(self, run: Run, stages: tuple[Stage, ...]) -> None:
        early_done = False
        for stage in stages:
            # Early: after recovery and the hooks, before owner re-validation can rebuild anything.
            if stage.kind not in (StageKind.RECOVER, StageKind.HOOK) and not early_done:
                self.early_check(run)
                early_done = True
            if stage.fits:
                self.fit_tools(run, stage)
            replay(stage, run)
            if stage.kind is StageKind.RECOVER:
                self.recover(run, stage)
            elif stage.kind is StageKind.REVALIDATE:
                self.revalidate(run, stage)
            run.tools, run.messages = run.ports.inject(stage.point, run.tools, run.messages)
        self.final_check(run)

    # -- the steps the variants override -------------------------------------------------------

    def sent(self, run: Run) -> list[Any]:
        """What goes on the wire for this model call: the checked tools as they are."""
        return run.tools

    def take_baseline(self, run: Run) -> Callable[[], Snapshot]:
        """An immutable snapshot of the admitted surface, straight from the admitted descriptors
        (the contract's, or the server's): taken before any projection or hook can touch a live
        object, and bytes, so no later edit reaches it."""
        baseline = _admitted(run.admitted, run.fmt)
        return lambda: baseline

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
        """After a list change, the server's list re-admitted must give the admitted surface again:
        otherwise this request's surface is one the server no longer stands behind, and it is
        refused (re-admission is the next turn's). Nothing is picked up mid-request."""
        if not run.server_changed:
            return
        run.server_changed = False
        admitted, readmitted = snapshot_of(run.admitted), snapshot_of(self.admit(run))
        if readmitted != admitted:
            raise SurfaceRefused(checkpoint, admitted, readmitted)

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        """The owner facts as this pipeline reads them: the feed as it is now, each judged by `rule`."""
        return run.ports.facts.current()

    def hidden(self, run: Run) -> frozenset[str]:
        """What may be hidden: the tools trusted owner facts hide, read at each decision."""
        scenario = run.scenario
        return hidden_by(self.facts(run), scenario.binding, scenario.contract.web_tools) | run.self_hidden

    def expected(self, run: Run) -> Snapshot:
        """The surface in force: the baseline narrowed by exactly what was hidden when the live
        surface was last narrowed; never read from the request."""
        return run.baseline().without(run.narrowed_by | run.self_hidden)

    def project(self, run: Run) -> list[Any]:
        """Fresh live tools of the admitted surface, less what may be hidden."""
        hidden = run.narrowed_by = self.hidden(run)
        return [run.fmt.build(tool) for tool in run.admitted if tool.name not in hidden]

    def narrow(self, run: Run) -> None:
        """Legitimate owner narrowing: drop the live tools trusted facts hide now. It never adds one."""
        hidden = self.hidden(run)
        if hidden and any(run.fmt.get_name(tool) in hidden for tool in run.tools):
            run.tools = [tool for tool in run.tools if run.fmt.get_name(tool) not in hidden]
        run.narrowed_by |= hidden

    # Each checkpoint checks the surface in force, then narrows by trusted facts that arrived since:
    # checking first keeps the narrowing from erasing a change to a tool it hides (a duplicate, a
    # move) before anyone saw it, and what the narrowing leaves is the new expected surface.

    def early_check(self, run: Run) -> None:
        self.check("early", self.expected(run), run)
        self.narrow(run)

    def final_check(self, run: Run) -> None:
        self.check("final", self.expected(run), run)
        self.narrow(run)

    def recover(self, run: Run, stage: Stage) -> None:
        """Resume from the sealed receipt: tools restored from the trusted facts alone; the
        transcript is handed on as messages and never re-read for availability."""
        run.tools = self.project(run)

    def revalidate(self, run: Run, stage: Stage) -> None:
        """Owner re-validation narrows by trusted facts and never adds; with `rebuild`, the owners
        rebuild the tool objects from their own descriptors. It never moves the baseline."""
        if stage.rebuild:
            run.tools = self.project(run)
            return
        self.narrow(run)

    def fit_tools(self, run: Run, stage: Stage) -> None:
        """Tools are never cut to fit, in tokens or in number: a request that cannot hold them is an
        explicit capacity result."""
        fitted = compress(run.messages, stage.keep_messages or len(run.messages))
        if (result := over_capacity([run.fmt.logical(tool) for tool in run.tools], fitted, stage)) is not None:
            raise result

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        run.ledger.settle(run.reservation, Settlement.PRE_DISPATCH_REJECTED, f"{refusal.checkpoint} check")

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        """Parity: count, order, names, full descriptions, input schemas and the wire fields the
        format carries (key order aside)."""
        return expected == actual

    def check(self, checkpoint: str, expected: Snapshot, run: Run) -> None:
        self.server_check(checkpoint, run)
        actual = capture(run.tools, run.fmt)
        if not self.same(expected, actual):
            raise SurfaceRefused(checkpoint, expected, actual)
        self.check_summary(checkpoint, run)

    def check_summary(self, checkpoint: str, run: Run) -> None:
        """An entry request's capability summary must be the contract's, word for word."""
        expected = run.scenario.contract.summary
        if expected is not None and (actual := Gateway.summary_of(run.messages)) != expected:
            raise SummaryRefused(checkpoint, expected, actual)


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


@functools.lru_cache(maxsize=64)
def _admitted(admitted: tuple[ToolDescriptor, ...], fmt: ToolFormat) -> Snapshot:
    """The admitted surface's snapshot, with the wire fields the format carries: descriptors are
    frozen, so one serves every request that admits them."""
    return snapshot_of(admitted, fmt)


def shallow_copies(tools: list[Any]) -> list[Any]:
    """What `[dict(tool) for tool in tools]` gives: new outer dicts sharing every nested object."""
    return [dict(tool) for tool in tools]


def recapture(tools: list[Any], run: Run) -> Callable[[], Snapshot]:
    """A 'baseline' read from live objects at check time: edits to anything they share reach it."""
    return lambda: capture(tools, run.fmt)
