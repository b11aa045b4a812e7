"""Scenarios at the edges of the limits a recording declares.

A host that counts one kind of tool wrongly (controls left out of `max_tools`, web tools left out
of the token estimate, only the first `tools/list` page read) gives the same verdicts as a correct
one wherever the request is far from the limit. So each limit a recording declares — context_fit
`max_tools` and `budget_tokens`, MCP `page_size` — is set anew in derived scenarios where the
request's measure of it is the limit − 1, the limit, and the limit + 1.

A count or a sum does not know which tool came last: at limit + 1 every tool in the request crosses
the limit, the admitted ones, the eligible controls and the web tools alike, so a host that leaves
any of them out lets through a request it must end in a capacity result; at the limit, one that
counts anything twice ends a request that fits. A derived scenario's description says which kinds
of tool its request holds. The tool a change adds crosses it in the add cases planned at the limit
(`Mutator.at_edges`); on a page-size edge, the tool that crosses is the last one the request needs.

Only single-call requests get edges: a later call's conversation is longer, so a limit the first
call meets exactly says nothing of the next. Nor does a request whose owners' facts arrive
mid-request get a context-fit edge: what the fit counts would depend on when a host counts. For
the same reason a request whose messages grow after the fit (evidence or a publication appended)
gets only the token-budget edge one over: a host may count at its fit or the request as it is
sent, and either is correct; under the limit and at it the two disagree, one over they agree.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from toolsurface.contract._guard import estimate_tokens
from toolsurface.scenarios import Edge, Limit, McpListing, RequestOutcome, Scenario, Stage, StageKind

from ._capacity import counted, over_capacity
from ._mcp import served

#: Where a derived request's measure sits against the limit set for it.
OFFSETS = (-1, 0, 1)


def with_edges(scenarios: Iterable[Scenario]) -> tuple[Scenario, ...]:
    """The scenarios, then each one's edges (`edges_of`) in the same order."""
    scenarios = tuple(scenarios)
    return scenarios + tuple(edge for scenario in scenarios for edge in edges_of(scenario))


def edges_of(scenario: Scenario) -> tuple[Scenario, ...]:
    """Every limit the recording declares at its edge, each at `OFFSETS`: context_fit's `max_tools`
    and `budget_tokens` where the other fits, then MCP's `page_size`."""
    if scenario.edge is not None or scenario.model_calls != 1:
        return ()
    return tuple(_fit_edges(scenario)) + tuple(_page_edges(scenario))


def _fit_edges(scenario: Scenario) -> Iterator[Scenario]:
    fit = scenario.fit
    if fit is None or scenario.surface != scenario.narrowed_by((), 0):
        return
    tools, fitted = counted(scenario)
    measures = {
        # A request of no tools has no tool limit to meet.
        Limit.MAX_TOOLS: len(tools) if fit.max_tools is not None and tools else None,
        Limit.BUDGET_TOKENS: sum(map(estimate_tokens, tools)) + estimate_tokens(fitted),
    }
    for limit, measure in measures.items():
        if measure is None:
            continue
        derived = [_at(scenario, Edge(limit, offset, measure, scenario.id), _fit_set(fit, limit)) for offset in OFFSETS]
        outcomes = [over_capacity(tools, fitted, _fit_of(s)) is not None for s in derived]
        # Only where this limit alone decides: at it and under it the request must fit.
        if outcomes != [False, False, True]:
            continue
        either = limit is Limit.BUDGET_TOKENS and _grows_after(scenario, fit)
        for edge, over in zip(derived, outcomes, strict=True):
            if over or not either:
                yield dataclasses.replace(edge, outcome=RequestOutcome.CAPACITY if over else RequestOutcome.DISPATCHED)


def _grows_after(scenario: Scenario, fit: Stage) -> bool:
    """Whether a stage after the fit appends to the messages the fit counted."""
    after = scenario.stages[scenario.stages.index(fit) + 1 :]
    publishes = scenario.publication is not None  # the publication stage shows the stored body
    return any(stage.add_messages or (publishes and stage.kind is StageKind.PUBLICATION) for stage in after)


def _page_edges(scenario: Scenario) -> Iterator[Scenario]:
    listing = scenario.mcp
    if listing is None or listing.page_size is None:
        return
    needed = {tool.name for tool in scenario.contract.surface}
    listed = served(scenario.contract)
    measure = 1 + max((at for at, tool in enumerate(listed) if tool.name in needed), default=-1)
    if measure < 1:  # the request needs none of the tools listed
        return
    for offset in OFFSETS:
        if measure - offset >= 1:
            yield _at(scenario, Edge(Limit.PAGE_SIZE, offset, measure, scenario.id), _page_set(listing))


def _fit_set(fit: Stage, limit: Limit) -> Callable[[Scenario, int], Scenario]:
    def setting(scenario: Scenario, value: int) -> Scenario:
        if limit is Limit.MAX_TOOLS:
            stage = dataclasses.replace(fit, max_tools=value)
        else:
            stage = dataclasses.replace(fit, budget_tokens=value)
        return dataclasses.replace(scenario, stages=tuple(stage if s is fit else s for s in scenario.stages))

    return setting


def _page_set(listing: McpListing) -> Callable[[Scenario, int], Scenario]:
    def setting(scenario: Scenario, value: int) -> Scenario:
        return dataclasses.replace(scenario, mcp=dataclasses.replace(listing, page_size=value))

    return setting


def _fit_of(scenario: Scenario) -> Stage:
    fit = scenario.fit
    assert fit is not None, "a fit edge keeps its fit stage"
    return fit


def _at(scenario: Scenario, edge: Edge, setting: Callable[[Scenario, int], Scenario]) -> Scenario:
    derived = setting(scenario, edge.value)
    return dataclasses.replace(
        derived, id=f"{scenario.id}@{edge}", edge=edge, description=f"{scenario.description} {_told(scenario, edge)}"
    )


def _told(scenario: Scenario, edge: Edge) -> str:
    """The derived scenario's edge in words, with what kinds of tool the request holds."""
    if edge.limit is Limit.PAGE_SIZE:
        return f"Derived at the edge of its MCP page size: {edge.said}."
    return f"Derived at the edge of its {edge.limit}: {edge.said}, with {_kinds(scenario)}."


def _kinds(scenario: Scenario) -> str:
    """How many tools of each kind the expected surface holds."""
    names = [tool.name for tool in scenario.surface]
    controls = {control.name for control in scenario.contract.controls}
    web = scenario.contract.web_tools
    metered = {web.search, web.read} if web is not None else set()
    counts = {
        ("admitted tool", "admitted tools"): sum(name not in controls and name not in metered for name in names),
        ("web tool", "web tools"): sum(name in metered for name in names),
        ("control", "controls"): sum(name in controls for name in names),
    }
    said = [f"{count} {words[count != 1]}" for words, count in counts.items() if count]
    if not said:
        return "no tools"
    held = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    return f"{held}, listed over MCP" if scenario.tool_format == "mcp" or scenario.mcp is not None else held
