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

from toolsurface.contract._guard import Capacity, Estimator, estimate_tokens
from toolsurface.contract._refusals import CapacityExceeded
from toolsurface.scenarios import RequestOutcome, Scenario, Stage


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
    stage = scenario.fit
    if estimate is None or stage is None:
        return False
    messages = [message.as_dict() for message in scenario.request_messages]
    fitted = compress(messages, stage.keep_messages or len(messages))
    return over_capacity([tool.as_logical() for tool in scenario.surface], fitted, stage, estimate) is not None


def judged_on(estimate: Estimator | None, scenario: Scenario) -> Scenario:
    """The scenario as a target counting with `estimate` (its `estimate_tokens`, if it declares one)
    is judged on it: a capacity result where its own estimate says so."""
    if scenario.outcome is RequestOutcome.CAPACITY or not ends_in_capacity(scenario, estimate):
        return scenario
    return dataclasses.replace(scenario, outcome=RequestOutcome.CAPACITY)
