"""The legitimate effects of each recorded stage, replayed by the reference pipelines.

None of these touches the tool list: every change they make is one a guard must let through.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, cast

from toolsurface.contract._canonical import Snapshot, capture, snapshot_of
from toolsurface.contract._formats import ToolDescriptor, ToolFormat
from toolsurface.contract._guard import Capacity, GuardedRequest
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import compress
from .._ports import Ports, Publications, RequestOwner


@dataclass(slots=True, eq=False)
class Run:
    """The request being prepared, as the pipeline holds it while it does so."""

    scenario: Scenario
    ports: Ports
    fmt: ToolFormat
    tools: list[Any]
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] = field(default_factory=dict)
    #: The sealed record of the request, once the seal stage ran.
    seal: Snapshot | None = None
    #: The admitted descriptors the request is projected from: the contract's, or what the
    #: host's MCP server lists that the grant names.
    admitted: tuple[ToolDescriptor, ...] = ()
    #: The MCP server sent `notifications/tools/list_changed` since the host last listed.
    server_changed: bool = False
    #: The model call being prepared: 1 for the first, one more after each reply with tool calls.
    call: int = 1
    #: The guard of this request, from admission to its settlement.
    request: GuardedRequest = field(init=False)


class RunOwner(RequestOwner):
    """The request's owner on the harness's ports, with the request it owns: what a guard asks of
    an owner, and what a flawed guard reads besides (the transcript, the seal, the call)."""

    def __init__(self, run: Run, capacity: Capacity | None = None) -> None:
        super().__init__(run.scenario, run.ports, capacity)
        self.run = run


def admitted_snapshot(run: Run) -> Snapshot:
    """The snapshot of the admitted descriptors, in the request's format: what `capture` gives of the
    tools built from them, without building and reading them again on every run."""
    return _snapshot_of(run.admitted, run.fmt)


@functools.lru_cache(maxsize=64)
def _snapshot_of(admitted: tuple[ToolDescriptor, ...], fmt: ToolFormat) -> Snapshot:
    # Descriptors are frozen, so one snapshot serves every request that admits them.
    return snapshot_of(admitted, fmt)


def run_of(request: GuardedRequest) -> Run:
    """The request a reference pipeline's guard guards, as the pipeline holds it."""
    return cast(RunOwner, request.owner).run


def replay(stage: Stage, run: Run) -> None:
    """Apply a recorded stage's legitimate effect to the request."""
    if stage.kind is StageKind.RECOVER:
        run.metadata["recovered_from"] = stage.receipt
    elif stage.kind is StageKind.HOOK:
        run.metadata.setdefault("hooks", []).append("trace_annotations")
    elif stage.kind is StageKind.REVALIDATE:
        run.metadata["revalidated_by"] = run.scenario.identity.connection
    elif stage.kind in (StageKind.CONTEXT_FIT, StageKind.EVIDENCE, StageKind.PUBLICATION, StageKind.OWN):
        run.messages = replay_messages(stage, run.messages, run.scenario, run.ports.publications)
    elif stage.kind is StageKind.ASYNC_PREP:
        run.metadata.update(stage.metadata)
    elif stage.kind is StageKind.SEAL:
        run.seal = capture(run.tools, run.fmt)
        run.metadata["sealed"] = True


def replay_messages(stage: Stage, messages: list[Any], scenario: Scenario, publications: Publications) -> list[Any]:
    """What a recorded stage legitimately does to the messages (context fitting compresses,
    evidence and publication append, a host's own stage does what its recording shows of either);
    other stages leave them as they are. Framework targets apply it to their message views, so
    every target replays the same effects."""
    if stage.kind in (StageKind.CONTEXT_FIT, StageKind.EVIDENCE, StageKind.OWN):
        if stage.keep_messages is not None:
            messages = compress(messages, stage.keep_messages)
        return messages + [message.as_dict() for message in stage.add_messages]
    if stage.kind is StageKind.PUBLICATION and scenario.publication is not None:
        body = publications.get(scenario.publication.id)
        if body is not None:
            return [*messages, {"role": "system", "content": f"Current publication:\n{body}"}]
    return messages
