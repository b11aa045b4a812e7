"""The errors toolsurface raises, and the refusal a guarded target raises.

Input errors are one line each, name the file, spec or flag at fault, and say what was expected;
the CLI prints them and exits 2.
"""

from __future__ import annotations

import functools

from ._canonical import Snapshot
from ._diff import diff_snapshots


class ToolsurfaceError(Exception):
    """Bad input to toolsurface: a flag, a target spec, a case id."""


class TargetError(ToolsurfaceError):
    """A target spec that cannot be loaded into a target."""


class UsageError(ToolsurfaceError):
    """A flag or argument with a value that cannot work."""


class SurfaceRefused(Exception):
    """A typed protocol refusal: the request's tool surface is not the one that was admitted.

    Reference targets raise it after settling the reservation as `pre_dispatch_rejected`; a
    user's target may raise it too, or list its own refusal types in `Target.refusals`. The diff
    is computed only when the message is read: on a run of thousands of expected refusals, it
    would cost more than the checks themselves.
    """

    def __init__(self, checkpoint: str, expected: Snapshot, actual: Snapshot) -> None:
        super().__init__(checkpoint)
        self.checkpoint = checkpoint
        self.expected = expected
        self.actual = actual

    @functools.cached_property
    def changes(self) -> tuple[str, ...]:
        return tuple(map(str, diff_snapshots(self.expected, self.actual))) or ("canonical form differs",)

    def __str__(self) -> str:
        more = f"; … {len(self.changes) - 3} more" if len(self.changes) > 3 else ""
        return f"{self.checkpoint} check: tool surface differs from the admitted one: {'; '.join(self.changes[:3])}{more}"
