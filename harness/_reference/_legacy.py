"""`reference:legacy` — the old path the guard replaced.

Its final check lives in an optional hook callback (so the no-hook path has none), its baseline
is a shallow copy that shares nested objects with the request, there is no early check, a
refusal on the asynchronous-preparation path is raised without reaching the owner's ledger, and
it carries the defects of the availability era before owner facts were typed: diagnostics read
as availability in live and recovery paths, a context fitter that silently keeps what fits, and
an entry summary nobody checks. It never subscribes to its MCP server's list changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.contract._refusals import RequestRefused
from toolsurface.scenarios import StageKind

from ._careless import recapture
from ._contract_defects import DiagnosticAuthority, EntryOverclaim, FinalOnly, RecoveryReparse, SilentCapacityDrop
from ._defects import HookOnlyFinal
from ._mcp_defects import ListChangeIgnored
from ._stages import run_of


class LegacyGuard(SurfaceGuard):
    """A baseline of shallow copies: new outer dicts sharing every nested object with the request."""

    def take_baseline(
        self, admitted: Sequence[Any] | Snapshot, snapshot: Snapshot | None = None
    ) -> Callable[[], Snapshot]:
        if isinstance(admitted, Snapshot):
            return super().take_baseline(admitted)
        return recapture([dict(tool) for tool in admitted], self.fmt)


class LegacyRequest(DiagnosticAuthority, RecoveryReparse, SilentCapacityDrop, EntryOverclaim):
    """Diagnostics as availability, a recovery that re-reads the transcript, a silent top-N, an
    unchecked entry summary; and a refusal on the asynchronous-preparation path never settled."""

    def settle_refusal(self, refusal: RequestRefused) -> None:
        if run_of(self).scenario.stage(StageKind.ASYNC_PREP) is None:
            super().settle_refusal(refusal)


class LegacyPipeline(HookOnlyFinal, FinalOnly, ListChangeIgnored):
    """The old path: final check only in a hook callback, shallow-copied baseline, async refusals
    unsettled, diagnostics as availability, silent top-N, unchecked entry summary, MCP list
    changes unheard."""

    name: ClassVar[str] = "reference:legacy"
    guard_type: ClassVar[type[SurfaceGuard]] = LegacyGuard
    request_type: ClassVar[type[GuardedRequest]] = LegacyRequest
