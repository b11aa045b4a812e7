"""The typed refusals a guard raises: a request that is not sent, and why.

A refusal is settled with the request's owner as `pre_dispatch_rejected` before it is raised; the
message says what differs, computed only when it is read.
"""

from __future__ import annotations

import functools

from ._canonical import Snapshot
from ._diff import diff_snapshots, diff_summaries


class RequestRefused(Exception):
    """A typed pre-dispatch refusal at a checkpoint: the request is not sent, and its owner
    settles the reservation as `pre_dispatch_rejected`.

    Reference targets raise one of the subclasses after settling; a user's target may raise them
    too, or list its own refusal types in `Target.refusals`.
    """

    def __init__(self, checkpoint: str) -> None:
        super().__init__(checkpoint)
        self.checkpoint = checkpoint


class SurfaceRefused(RequestRefused):
    """The request's tool surface is not the expected one.

    The diff is computed only when the message is read: on a run of thousands of expected
    refusals, it would cost more than the checks themselves.
    """

    def __init__(self, checkpoint: str, expected: Snapshot, actual: Snapshot) -> None:
        super().__init__(checkpoint)
        self.expected = expected
        self.actual = actual

    @functools.cached_property
    def changes(self) -> tuple[str, ...]:
        return tuple(map(str, diff_snapshots(self.expected, self.actual))) or ("canonical form differs",)

    def __str__(self) -> str:
        more = f"; … {len(self.changes) - 3} more" if len(self.changes) > 3 else ""
        return (
            f"{self.checkpoint} check: tool surface differs from the expected one: {'; '.join(self.changes[:3])}{more}"
        )


class SummaryRefused(RequestRefused):
    """An entry request's capability summary says something the contract does not."""

    def __init__(self, checkpoint: str, expected: str, actual: str | None) -> None:
        super().__init__(checkpoint)
        self.expected = expected
        self.actual = actual

    def __str__(self) -> str:
        return (
            f"{self.checkpoint} check: capability summary differs from the contract: "
            f"{'; '.join(diff_summaries(self.expected, self.actual))}"
        )


class CapacityExceeded(RequestRefused):
    """An explicit capacity result: the context budget cannot hold the tools the turn requires.

    Never answered by dropping tools: the request is not sent, and the reservation is closed.
    """

    def __init__(self, needed_tokens: int, budget_tokens: int, tools: int, max_tools: int | None = None) -> None:
        super().__init__("context_fit")
        self.needed_tokens = needed_tokens
        self.budget_tokens = budget_tokens
        self.tools = tools
        #: The provider's limit on tools per request, when it is what the tools exceed.
        self.max_tools = max_tools

    def __str__(self) -> str:
        if self.max_tools is not None:
            return f"capacity: {self.tools} required tools; the provider takes at most {self.max_tools} per request"
        return (
            f"capacity: {self.tools} required tools and the fitted messages need ~{self.needed_tokens} tokens; "
            f"the budget is {self.budget_tokens}"
        )
