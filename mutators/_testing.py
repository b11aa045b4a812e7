"""What mutator examples, tests and strategies share: a scenario around a surface, live tools
built from it, and logical dicts read back from live tools."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from toolsurface.contract._facts import Binding, OwnerFact, WebTools
from toolsurface.contract._formats import ToolDescriptor
from toolsurface.scenarios import (
    Capability,
    Contract,
    Identity,
    Lane,
    McpListing,
    Message,
    Mode,
    Scenario,
    Stage,
    StageKind,
)

from ._base import Example, ToolAccess

_IDENTITY = Identity(run="run-1", scope="research", invocation="inv-1", connection="conn-1", request="req-1")
#: What owner facts must be bound to for a minimal scenario to trust them.
BINDING = Binding(run="run-1", scope="research", invocation="inv-1", connection="conn-1")


def descriptor(tool: Mapping[str, Any]) -> ToolDescriptor:
    """A logical tool dict (wire fields included) as a descriptor."""
    return ToolDescriptor.of(tool["name"], tool["description"], tool["input_schema"], tool)


def minimal_scenario(
    admitted: Iterable[ToolDescriptor],
    *,
    controls: Iterable[ToolDescriptor] = (),
    eligible_controls: Iterable[str] = (),
    admitted_elsewhere: Iterable[ToolDescriptor] = (),
    messages: Iterable[Mapping[str, str]] = (),
    facts: Iterable[OwnerFact] = (),
    web_tools: WebTools | None = None,
    capabilities: Iterable[Capability] = (),
    parent: Binding | None = None,
    mcp: McpListing | None = None,
) -> Scenario:
    """A sealed scenario on the main lane (the child lane when it has a parent; entry mode when it
    has capabilities); its live tools are `surface`."""
    capabilities = tuple(capabilities)
    return Scenario(
        id="generated",
        description="A minimal scenario around a given surface.",
        mode=Mode.ENTRY if capabilities else Mode.RESEARCH,
        lane=Lane.MAIN if parent is None else Lane.CHILD,
        identity=dataclasses.replace(_IDENTITY, parent=parent),
        tool_format="logical",
        contract=Contract(
            admitted=tuple(admitted),
            controls=tuple(controls),
            eligible_controls=frozenset(eligible_controls),
            admitted_elsewhere=tuple(admitted_elsewhere),
            facts=tuple(facts),
            web_tools=web_tools,
            capabilities=capabilities,
        ),
        messages=tuple(Message(m["role"], m["content"]) for m in messages),
        hooks=False,
        stages=(Stage(kind=StageKind.SEAL),),
        mcp=mcp,
    )


def example_scenario(example: Example) -> Scenario:
    """The scenario an example runs in: `before` is its expected surface, controls included."""
    eligible = set(example.eligible_controls)
    admitted = example.admitted
    if admitted is None:
        admitted = [tool for tool in example.before if tool["name"] not in eligible]
    return minimal_scenario(
        map(descriptor, admitted),
        controls=map(descriptor, example.controls),
        eligible_controls=example.eligible_controls,
        admitted_elsewhere=map(descriptor, example.admitted_elsewhere),
        messages=example.messages_before,
        facts=example.facts,
        web_tools=example.web_tools,
        capabilities=example.capabilities,
        parent=example.parent,
        mcp=None if example.listed_after is None else McpListing(),
    )


def live_tools(surface: Iterable[ToolDescriptor], fmt: ToolAccess) -> list[Any]:
    """Fresh live tool objects in `fmt`'s shape, as a host would hold them."""
    return [fmt.build(tool) for tool in surface]


def read_surface(tools: Iterable[Any], fmt: ToolAccess) -> list[dict[str, Any]]:
    """Logical dicts of live tools (with the wire fields their format carries), deep-copied so
    later edits to the tools do not reach them."""
    return [
        {
            "name": fmt.get_name(tool),
            "description": fmt.get_description(tool),
            "input_schema": copy.deepcopy(fmt.get_schema(tool)),
            **copy.deepcopy(fmt.get_wire(tool)),
        }
        for tool in tools
    ]
