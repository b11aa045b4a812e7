"""The recording of a target whose boundaries are its own (`Target.own_boundaries`): a user's agent.

Its stages are the agent's own, one `own` stage per boundary it offered, in the order it offered
them, each model call's in that call's `steps`. The request enters the agent's pipeline with the
conversation the harness handed it (the source recording's, as its stages left it), so that is
the recording's `messages`, and its stages are measured from there: what each did to the messages
is its effect. What a run cannot show is taken from the source scenario: the context budget goes
to the stage where the request stopped over it (or to the last stage before the model), and an
owner fact or an MCP list change recorded at a boundary the agent does not offer moves to the
first boundary of its model call, where the harness has it in force on such a target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toolsurface.common._errors import UsageError
from toolsurface.scenarios import Boundary, Scenario, StageKind

from ._adapters._agent import sealed_views
from ._capacity import compress
from ._ports import Publications


@dataclass(frozen=True, slots=True)
class Frame:
    """What one stage boundary held: the tools as logical descriptors, and the messages."""

    #: The boundary, before which model call of the request.
    at: Boundary
    tools: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, Any], ...]


#: The message fields a recorded message holds; a view with more is not a plain message.
_MESSAGE_FIELDS = frozenset({"role", "content"})


def own_recording(
    base: Scenario,
    frames: Sequence[Frame],
    contract: dict[str, Any],
    declared: Sequence[Boundary],
    stopped: bool,
) -> dict[str, Any]:
    """The document for `frames`, whose boundaries are the target's own, with the `contract` the
    run showed; `declared`: the boundaries the target says it offers (`Target.checkpoints`), which
    stand in for those a run `stopped` in a capacity result never reached."""
    calls: list[list[dict[str, Any]]] = [[] for _ in range(max((frame.at.call for frame in frames), default=1))]
    before: list[dict[str, Any]] | None = None
    for index, frame in enumerate(frames):
        # What the agent is handed, and what the host sends back with tool results, is no stage's
        # doing: the first stage of each model call is measured from its own boundary on.
        first = index == 0 or frames[index - 1].at.call != frame.at.call
        calls[frame.at.call - 1].append(_stage(base, frame, None if first else before))
        before = list(frame.messages)
    if stopped:
        seen = {stage["point"] for stage in calls[0]}
        calls[0] += [
            {"stage": StageKind.OWN.value, "point": at.point}
            for at in declared
            if at.call == 1 and at.point not in seen
        ]
    if not calls[0]:
        raise UsageError(
            f"recording {base.id}: the target offered no boundary and declares none, so there is nothing to record"
        )
    _give_budget(base, calls[0], reached=sum(frame.at.call == 1 for frame in frames), stopped=stopped)
    firsts = {call: Boundary(stages[0]["point"], call) for call, stages in enumerate(calls, 1) if stages}
    document = {
        **base.document,
        "description": f"Recorded from a live run of its target on {base.id}: {base.description}",
        "contract": _moved_facts(contract, firsts),
        "messages": handed(base),
        "stages": calls[0],
    }
    document.pop("steps", None)
    if len(calls) > 1:
        document["steps"] = [
            {**step, "stages": later} for step, later in zip(base.document["steps"], calls[1:], strict=False)
        ]
    if "mcp" in document and "list_changes" in document["mcp"]:
        changes = [{**change, "point": str(firsts[1])} for change in document["mcp"]["list_changes"]]
        document["mcp"] = {**document["mcp"], "list_changes": changes}
    return document


def handed(base: Scenario) -> list[dict[str, Any]]:
    """The conversation the harness hands an agent on `base` (`sealed_messages`), less the
    capability summary an entry request opens with, which the contract states."""
    views = sealed_views(base, Publications({base.publication.id: base.publication.body} if base.publication else {}))
    if base.contract.summary is not None:
        views = views[1:]
    return [{"role": view["role"], "content": view["content"]} for view in views]


def _stage(base: Scenario, frame: Frame, before: list[dict[str, Any]] | None) -> dict[str, Any]:
    """The own stage followed by `frame`'s boundary, with what it did to the messages it was given
    (`before`; None: not known, so nothing is recorded)."""
    stage: dict[str, Any] = {"stage": StageKind.OWN.value, "point": frame.at.point}
    after = list(frame.messages)
    if before is None or after == before:
        return stage
    if after[: len(before)] == before and all(set(message) <= _MESSAGE_FIELDS for message in after[len(before) :]):
        return {**stage, "add_messages": after[len(before) :]}
    if len(after) >= 2 and compress(before, len(after)) == after:
        return {**stage, "keep_messages": len(after)}
    raise UsageError(
        f"recording {base.id}: the stage before {str(frame.at)!r} changed the messages in a way a recording "
        "cannot hold (it can hold messages appended, or a context fit's compression)"
    )


def _give_budget(base: Scenario, stages: list[dict[str, Any]], reached: int, stopped: bool) -> None:
    """The source's context budget, on the stage where the request stopped over it (the first the
    run never reached), or else on the last before the model call."""
    fit = base.fit
    if fit is None:
        return
    budget: dict[str, Any] = {"budget_tokens": fit.budget_tokens}
    if fit.max_tools is not None:
        budget["max_tools"] = fit.max_tools
    at = reached if stopped and reached < len(stages) else len(stages) - 1
    stages[at] = {**stages[at], **budget}


def _moved_facts(contract: dict[str, Any], firsts: dict[int, Boundary]) -> dict[str, Any]:
    """The contract, with each fact that arrives mid-run arriving at the first boundary of its model call."""
    if not any("arrives" in fact for fact in contract.get("facts", ())):
        return contract
    facts = [
        {**fact, "arrives": _first_of_its_call(fact["arrives"], firsts)} if "arrives" in fact else fact
        for fact in contract["facts"]
    ]
    return {**contract, "facts": facts}


def _first_of_its_call(arrives: str, firsts: dict[int, Boundary]) -> str:
    """The label of the first boundary of the model call a fact arrives before (`arrives`, a label)."""
    first = firsts.get(Boundary.parse(arrives).call)
    return arrives if first is None else str(first)
