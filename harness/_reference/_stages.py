"""The legitimate effects of each recorded stage, replayed by the reference pipelines.

None of these touches the tool list: every change they make is one a guard must let through.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._facts import OwnerFact
from toolsurface.contract._formats import ToolDescriptor, ToolFormat
from toolsurface.scenarios import Scenario, Stage, StageKind

from .._capacity import compress
from .._ports import Ledger, Ports, Publications, Reservation


@dataclass(slots=True)
class Run:
    """The request being prepared, and what the pipeline holds while it does so."""

    scenario: Scenario
    ports: Ports
    fmt: ToolFormat
    ledger: Ledger
    reservation: Reservation
    tools: list[Any]
    messages: list[dict[str, Any]]
    metadata: dict[str, Any] = field(default_factory=dict)
    #: Reads the admitted surface the checks start from; set once, before any hook runs.
    baseline: Any = None
    #: The sealed record of the request, once the seal stage ran.
    seal: Snapshot | None = None
    #: The admitted descriptors the request is projected from: the contract's, or what the
    #: host's MCP server lists that the grant names.
    admitted: tuple[ToolDescriptor, ...] = ()
    #: The MCP server sent `notifications/tools/list_changed` since the host last listed.
    server_changed: bool = False
    #: Tools the pipeline hid on its own authority rather than an owner's. The guard never adds
    #: one; defect variants do (a diagnostic, a re-parsed transcript, a context fitter's cut).
    self_hidden: frozenset[str] = frozenset()
    #: What the live surface was last narrowed by: the tools trusted facts hid when it was projected
    #: or last narrowed. A fact that arrives later narrows it at the next checkpoint, after a check.
    narrowed_by: frozenset[str] = frozenset()
    #: The owner facts as first read, for a variant that never reads the feed again.
    facts_read: tuple[OwnerFact, ...] | None = None
    #: The model call being prepared: 1 for the first, one more after each reply with tool calls.
    call: int = 1
    #: The surface the first model call was checked against, for a variant that holds later calls to it.
    first_call: Snapshot | None = None


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
            return messages + [{"role": "system", "content": f"Current publication:\n{body}"}]
    return messages
