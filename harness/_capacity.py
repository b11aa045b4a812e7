"""Whether a request's tools fit its context: one rule for every guard, and for what the harness expects.

A context_fit stage records the token budget the request had to fit and, where the provider has
one, its limit on tools per request (`max_tools`: 128 at OpenAI). Tools are never cut to fit
either: a request over one of them is an explicit capacity result. The token count is an
estimate, and estimates differ: a target that declares its own (`Target.estimate_tokens`) is
held to its own arithmetic (`ends_in_capacity`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from toolsurface.contract._formats import FORMATS, ToolFormat
from toolsurface.contract._guard import Capacity, Estimator, estimate_tokens
from toolsurface.contract._refusals import CapacityExceeded
from toolsurface.scenarios import Limit, RequestOutcome, Scenario, Stage


def compress(messages: list[dict[str, Any]], keep: int) -> list[dict[str, Any]]:
    """Keep the first message, a summary of the middle, and the most recent `keep - 2`."""
    if len(messages) <= keep:
        return messages
    dropped = len(messages) - keep + 1
    summary = {"role": "system", "content": f"[{dropped} earlier messages summarised by context fitting]"}
    return [messages[0], summary, *messages[len(messages) - (keep - 2) :]]


def capacity_of(
    stage: Stage, estimate: Estimator | None = estimate_tokens, kind: type[Capacity] | None = None
) -> Capacity:
    """What a recorded context_fit stage says one model call can hold, as a `kind` (default: the
    shipped `Capacity`; a source mutant's beside it), counted by `estimate` (None: `kind`'s own)."""
    kind = kind or Capacity
    if estimate is None:
        return kind(stage.budget_tokens or 0, stage.max_tools)
    return kind(stage.budget_tokens or 0, stage.max_tools, estimate)


def recorded_capacity(scenario: Scenario, estimate: Estimator = estimate_tokens) -> Capacity | None:
    """What the recorded context fit says one model call can hold; None where no fit was recorded."""
    fit = scenario.fit
    return None if fit is None else capacity_of(fit, estimate)


def over_capacity(
    tools: Sequence[Any], fitted: Sequence[Any], stage: Stage, estimate: Estimator = estimate_tokens
) -> CapacityExceeded | None:
    """The capacity result for these tools (as the JSON values a count reads: logical views) and
    compressed messages, or None when they fit."""
    return capacity_of(stage, estimate).exceeded(tools, fitted)


def ends_in_capacity(scenario: Scenario, estimate: Estimator | None) -> bool:
    """Whether the unmutated request must end in a capacity result on a target counting with `estimate`.

    The recording's outcome stands: a request whose budget the recorded host could not meet is
    not made to fit by counting differently. A declared estimator can only add a capacity result,
    where by its own count the expected surface and the compressed messages exceed the budget.
    """
    if scenario.outcome is RequestOutcome.CAPACITY:
        return True
    return estimate is not None and _over(scenario, estimate)


def counted(scenario: Scenario, fmt: ToolFormat | None = None) -> tuple[list[Any], list[dict[str, Any]]]:
    """What a context fit counts of the unmutated request: each tool of the expected surface as
    `fmt` (default: the recording's tool format) gives its logical entry, as hosts pass them to
    `Capacity.exceeded`, and the compressed messages."""
    fmt = fmt or FORMATS[scenario.tool_format]
    tools = [fmt.logical(fmt.build(tool)) for tool in scenario.surface]
    messages = [message.as_dict() for message in scenario.request_messages]
    stage = scenario.fit
    keep = stage.keep_messages if stage is not None else None
    return tools, compress(messages, keep or len(messages))


def _over(scenario: Scenario, estimate: Estimator, fmt: ToolFormat | None = None) -> bool:
    """Whether what the fit counts (`counted`) exceeds its limits, tokens counted by `estimate`."""
    stage = scenario.fit
    return stage is not None and over_capacity(*counted(scenario, fmt), stage, estimate) is not None


def judged_on(estimate: Estimator | None, scenario: Scenario, fmt: ToolFormat | None = None) -> Scenario:
    """The scenario as a target counting with `estimate` (its `estimate_tokens`, if it declares one)
    is judged on it: a capacity result where its own estimate says so. A budget set at the edge of
    the request's estimate (`_edges`) was not recorded: there the target's own count, of its tools
    in its tool format `fmt`, decides both ways."""
    if scenario.edge is not None and scenario.edge.limit is Limit.BUDGET_TOKENS:
        over = _over(scenario, estimate or estimate_tokens, fmt)
        return dataclasses.replace(scenario, outcome=RequestOutcome.CAPACITY if over else RequestOutcome.DISPATCHED)
    if scenario.outcome is RequestOutcome.CAPACITY or not ends_in_capacity(scenario, estimate):
        return scenario
    return dataclasses.replace(scenario, outcome=RequestOutcome.CAPACITY)
