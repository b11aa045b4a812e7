"""Record a scenario from one live run of a target: the ports in observe mode.

The target runs once, unmutated, through ports that change nothing and keep what each stage
boundary held. What the run shows becomes the recording: the tools at the first boundary are the
admitted surface, each boundary the target offered is a stage, in the order it offered them, and
what a stage did to the messages is its effect (how many a context fit kept, which an evidence
stage added), starting from the conversation the target was given. A boundary before a later model
call of the request is a stage of that call (`steps`), after the tool calls the recorded model made. What a request
cannot show —
its identity and lane, the controls and tools the host knows of, a fit's token budget, the
metadata attached, a recovery's receipt — is taken from the scenario the target was given. A
target whose boundaries are its own (a user's agent) is recorded as its own stages (`_own_recording`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toolsurface.common._errors import UsageError
from toolsurface.contract._canonical import entries_as_found
from toolsurface.contract._facts import hidden_by
from toolsurface.contract._formats import FORMATS
from toolsurface.scenarios import POINTS, RECORDED_KINDS, Boundary, Point, Scenario, StageKind, parse

from ._observe import observe_ports
from ._own_recording import Frame, own_recording
from ._ports import Ports
from ._runner import offered_checkpoints
from ._traits import LoadedTarget, loaded
from ._types import Capacity, Crashed, Refused, Target, TimedOut

#: The stage that ends at each injection point.
_STAGE_AT: dict[Point, StageKind] = {kind.point: kind for kind in RECORDED_KINDS}


class RecordingPorts(Ports):
    """Ports that inject nothing and keep a `Frame` of every boundary the target offers."""

    def __init__(self, scenario: Scenario, fmt_name: str, own: bool = False) -> None:
        # Owner facts reach a target with boundaries of its own as they do in a run (`Ports.inject`).
        super().__init__(scenario, FORMATS[fmt_name], None, None, own_boundaries=own)
        self.frames: list[Frame] = []

    def inject(self, point: Point | str, tools: list[Any], messages: list[Any]) -> tuple[list[Any], list[Any]]:
        at = Boundary(point, self.call)
        entries = entries_as_found(tools, self.fmt)  # a deep copy: later stages cannot change it
        descriptors = tuple(
            {"name": e[0], "description": e[1], "input_schema": e[2], **(e[3] if len(e) > 3 else {})} for e in entries
        )
        self.frames.append(Frame(at, descriptors, tuple(dict(message) for message in messages)))
        return super().inject(point, tools, messages)


def record(
    target: Target | LoadedTarget, scenario: Scenario, timeout: float = 10.0, spec: str | None = None
) -> dict[str, Any]:
    """The scenario document of one unmutated run of `target` on `scenario`; checked by the loader.
    What the run shows that cannot be recorded is the target's doing: given its `spec`, the error
    names it, as the `target` option."""
    try:
        return _record(loaded(target), scenario, timeout)
    except UsageError as error:
        if spec is None or error.option is not None:
            raise
        raise UsageError(f"{spec!r}: {error}", option="target") from None


def _record(host: LoadedTarget, scenario: Scenario, timeout: float) -> dict[str, Any]:
    fmt_name, own = host.traits.tool_format or scenario.tool_format, host.traits.own_boundaries
    ports = RecordingPorts(scenario, fmt_name, own)
    observed = observe_ports(host, scenario, ports, timeout)
    stop = observed.stop
    if isinstance(stop, Crashed):
        raise UsageError(f"recording {scenario.id}: the target crashed: {stop.error_type}: {stop.message}")
    if isinstance(stop, TimedOut):
        raise UsageError(f"recording {scenario.id}: the target was still running after {timeout} s")
    # A target with boundaries of its own declares them, so a run that stopped before them still has its stages.
    if not ports.frames and not (own and isinstance(stop, Capacity)):
        raise UsageError(
            f"recording {scenario.id}: the target offered no injection point, so there is nothing to record"
        )
    if not (observed.dispatches or isinstance(stop, Refused | Capacity)):
        raise UsageError(f"recording {scenario.id}: the run ended without a dispatch, a refusal or a capacity result")
    made = len(observed.dispatches) + isinstance(stop, Refused | Capacity)
    if made < scenario.model_calls and not isinstance(stop, Refused | Capacity):
        raise UsageError(
            f"recording {scenario.id}: the run made {made} of the {scenario.model_calls} model calls the "
            "recording makes: "
            "it never answered the tool calls of the model's reply"
        )
    if own:
        declared = offered_checkpoints(host, timeout)(scenario) if isinstance(stop, Capacity) else ()
        contract = (
            _contract(scenario, [dict(tool) for tool in ports.frames[0].tools])
            if ports.frames
            else dict(scenario.document["contract"])
        )
        # The agent's tools are seen as logical views; the wire they go out on is as recorded.
        document = own_recording(scenario, ports.frames, contract, declared, isinstance(stop, Capacity))
    else:
        document = recording(scenario, ports.frames, fmt_name, stopped=isinstance(stop, Capacity))
    parse(document, source=f"recording of {scenario.id}")
    return document


def recording(base: Scenario, frames: Sequence[Frame], fmt_name: str, stopped: bool = False) -> dict[str, Any]:
    """The document for `frames`, with what a request cannot show taken from `base`; `stopped`: the
    run ended in a capacity result, so the stages after its last boundary were never reached and
    stay as `base` records them."""
    unknown = [frame.at.point for frame in frames if not frame.at.is_recorded]
    if unknown:
        raise UsageError(f"recording {base.id}: {unknown[0]!r} is not an injection point (known: {', '.join(POINTS)})")
    if not base.document:
        raise UsageError(
            f"recording {base.id}: the scenario was built in code, not loaded, so there is no recording to start from"
        )
    admitted = [dict(tool) for tool in frames[0].tools]
    calls: list[list[dict[str, Any]]] = []
    before: list[dict[str, Any]] | None = [message.as_dict() for message in base.request_messages]
    for frame in frames:
        if frame.at.call > len(calls):
            calls.append([])
            # What the host sent back with the tool results is no stage's doing: a later call's
            # first stage is measured from what it was given, which its boundary does not show.
            before = before if frame.at.call == 1 else None
        kind = _STAGE_AT[Point(frame.at.point)]
        calls[-1].append(_stage(kind, before, list(frame.messages), base, frame.at.call))
        before = list(frame.messages)
    stages = calls[0]
    if stopped:
        stages += base.document["stages"][len(stages) :]
    document = {
        **base.document,
        "description": f"Recorded from a live run of its target on {base.id}: {base.description}",
        "tool_format": fmt_name,
        "contract": _contract(base, admitted),
        "hooks": Boundary(Point.HOOK) in (frame.at for frame in frames),
        "stages": stages,
    }
    document.pop("steps", None)
    if len(calls) > 1:
        document["steps"] = [
            {**step, "stages": later} for step, later in zip(base.document["steps"], calls[1:], strict=False)
        ]
    return document


def _stage(
    kind: StageKind, before: list[dict[str, Any]] | None, after: list[dict[str, Any]], base: Scenario, call: int = 1
) -> dict[str, Any]:
    """One stage, with the effect the run showed and what it could not show taken from `base`
    (`before` None: what the stage was given is not known)."""
    stages = base.document["stages"] if call == 1 else base.document["steps"][call - 2]["stages"]
    recorded = next((stage for stage in stages if stage["stage"] == kind.value), {"stage": kind.value})
    if kind is StageKind.CONTEXT_FIT:
        return {**recorded, "keep_messages": max(2, len(after))}
    if kind is StageKind.EVIDENCE:
        if before is None:
            return recorded
        # A recorded evidence stage appends one message or more; any other effect has no recording.
        if after[: len(before)] != before or len(after) == len(before):
            raise UsageError(
                f"recording {base.id}: the evidence stage did not append messages to the ones it was given, "
                "and a recorded evidence stage only appends; this run cannot be the recording"
            )
        return {"stage": kind.value, "add_messages": after[len(before) :]}
    return recorded


def _contract(base: Scenario, seen: list[dict[str, Any]]) -> dict[str, Any]:
    """The admitted tools the run showed; the rest of the contract as `base` records it.

    A tool that a trusted owner fact hid before the first boundary was never on the request to be
    seen: it is admitted all the same, and put back where `base` admits it.
    """
    # An eligible control is on the surface because the contract makes it eligible, not admitted.
    eligible = set(base.document["contract"].get("eligible_controls", ()))
    admitted = [tool for tool in seen if tool["name"] not in eligible]
    hidden = hidden_by(base.contract.facts, base.binding, base.contract.web_tools)
    names = {tool["name"] for tool in admitted}
    lost = [tool.name for tool in base.surface if tool.name not in names and tool.name not in eligible]
    if lost:
        raise UsageError(
            f"recording {base.id}: the run's first boundary lacks {', '.join(map(repr, lost))}, which the "
            "contract admits "
            "and no trusted fact hides: the target dropped it before any stage, so this run cannot be the recording"
        )
    for index, tool in enumerate(base.document["contract"]["admitted"]):
        if tool["name"] in hidden and tool["name"] not in names:
            admitted.insert(index, tool)
    return dict(base.document["contract"], admitted=admitted)
