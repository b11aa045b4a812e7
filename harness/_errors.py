"""The errors toolsurface raises, and the typed refusals a guarded target raises.

Input errors are one line each, name the file, spec or input at fault, and say what was expected;
the CLI prints them and exits 2, the pytest plugin makes them a usage error. The engine names an
input by its option (`seed`, `red_target`, `out`), never by a flag: each front end spells it as its
own flag, and a value that came from `[tool.toolsurface]` is named by its file and key.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from ._canonical import Snapshot
from ._diff import diff_snapshots, diff_summaries


class ToolsurfaceError(Exception):
    """Bad input to toolsurface: a flag, a target spec, a case id."""

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        #: The input whose value is at fault, by its option name; the message then starts with that
        #: value, so that a front end puts its own name for the input in front.
        self.option = option
        #: The pyproject file whose `[tool.toolsurface]` gave that value, when no flag did.
        self.config: Path | None = None

    @property
    def problems(self) -> tuple[str, ...]:
        """What is wrong, one problem each: the message, whole. (Not its lines: a path a problem
        names may hold a newline, which the front end escapes rather than breaks the line at.)"""
        return (str(self),)

    def lines(self, flag: Callable[[str], str]) -> list[str]:
        """One line per problem, the input at fault named by `flag(option)` or by its config key."""
        lines = list(self.problems)
        if self.option is None:
            return lines
        if self.config is not None:
            return [f"{self.config}:[tool.toolsurface].{self.option}: {line}" for line in lines]
        return [f"{flag(self.option)} {line}" for line in lines]


class TargetError(ToolsurfaceError):
    """A target spec that cannot be loaded into a target."""


class UsageError(ToolsurfaceError):
    """A flag or argument with a value that cannot work."""


class ExpectationsError(ToolsurfaceError):
    """An expectations file that cannot be read or is invalid; each problem is one line."""

    def __init__(self, problems: list[str] | tuple[str, ...], *, option: str | None = None) -> None:
        self._problems = tuple(problems)
        super().__init__("\n".join(self._problems), option=option)

    @property
    def problems(self) -> tuple[str, ...]:
        return self._problems


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
        return f"{self.checkpoint} check: tool surface differs from the expected one: {'; '.join(self.changes[:3])}{more}"


class SummaryRefused(RequestRefused):
    """An entry request's capability summary says something the contract does not."""

    def __init__(self, checkpoint: str, expected: str, actual: str | None) -> None:
        super().__init__(checkpoint)
        self.expected = expected
        self.actual = actual

    def __str__(self) -> str:
        return f"{self.checkpoint} check: capability summary differs from the contract: {'; '.join(diff_summaries(self.expected, self.actual))}"


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
