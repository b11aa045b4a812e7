"""What mutator examples, tests and strategies share: a scenario around a surface, live tools
built from it, and logical dicts read back from live tools."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from scenarios import Contract, Identity, Lane, Message, Scenario, Stage, StageKind, ToolDescriptor

from ._base import Example, ToolAccess

_IDENTITY = Identity(run="run-1", scope="research", invocation="inv-1", connection="conn-1", request="req-1")


def descriptor(tool: Mapping[str, Any]) -> ToolDescriptor:
    """A logical tool dict as a descriptor."""
    return ToolDescriptor.of(tool["name"], tool["description"], tool["input_schema"])


def minimal_scenario(
    admitted: Iterable[ToolDescriptor],
    *,
    controls: Iterable[ToolDescriptor] = (),
    eligible_controls: Iterable[str] = (),
    admitted_elsewhere: Iterable[ToolDescriptor] = (),
    messages: Iterable[Mapping[str, str]] = (),
) -> Scenario:
    """A sealed research scenario on the main lane; its live tools are `contract.surface`."""
    return Scenario(
        id="generated",
        description="A minimal scenario around a given surface.",
        mode="research",
        lane=Lane.MAIN,
        identity=_IDENTITY,
        tool_format="logical",
        contract=Contract(
            admitted=tuple(admitted),
            controls=tuple(controls),
            eligible_controls=frozenset(eligible_controls),
            admitted_elsewhere=tuple(admitted_elsewhere),
        ),
        messages=tuple(Message(m["role"], m["content"]) for m in messages),
        hooks=False,
        stages=(Stage(kind=StageKind.SEAL),),
    )


def example_scenario(example: Example) -> Scenario:
    """The scenario an example runs in: `before` is its admitted surface, controls included."""
    eligible = set(example.eligible_controls)
    return minimal_scenario(
        (descriptor(tool) for tool in example.before if tool["name"] not in eligible),
        controls=map(descriptor, example.controls),
        eligible_controls=example.eligible_controls,
        admitted_elsewhere=map(descriptor, example.admitted_elsewhere),
        messages=example.messages_before,
    )


def live_tools(surface: Iterable[ToolDescriptor], fmt: ToolAccess) -> list[Any]:
    """Fresh live tool objects in `fmt`'s shape, as a host would hold them."""
    return [fmt.build(tool) for tool in surface]


def read_surface(tools: Iterable[Any], fmt: ToolAccess) -> list[dict[str, Any]]:
    """Logical dicts of live tools, deep-copied so later edits to the tools do not reach them."""
    return [
        {
            "name": fmt.get_name(tool),
            "description": fmt.get_description(tool),
            "input_schema": copy.deepcopy(fmt.get_schema(tool)),
        }
        for tool in tools
    ]
