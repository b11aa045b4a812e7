"""`reference:legacy` — the old path the guard replaced.

Its final check lives in an optional hook callback (so the no-hook path has none), its baseline
is a shallow copy that shares nested objects with the request, there is no early check, a
refusal on the asynchronous-preparation path is raised without reaching the owner's ledger, and
it carries the defects of the availability era before owner facts were typed: diagnostics read
as availability in live and recovery paths, a context fitter that silently keeps what fits, and
an entry summary nobody checks. It never subscribes to its MCP server's list changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._refusals import RequestRefused
from toolsurface.scenarios import StageKind

from ._contract_defects import (
    DiagnosticAuthority,
    EntryOverclaim,
    FinalOnly,
    RecoveryReparse,
    SilentCapacityDrop,
)
from ._defects import HookOnlyFinal
from ._guarded import recapture, shallow_copies
from ._mcp_defects import ListChangeIgnored
from ._stages import Run


class LegacyPipeline(
    HookOnlyFinal,
    FinalOnly,
    DiagnosticAuthority,
    RecoveryReparse,
    SilentCapacityDrop,
    EntryOverclaim,
    ListChangeIgnored,
):
    """The old path: final check only in a hook callback, shallow-copied baseline, async refusals
    unsettled, diagnostics as availability, silent top-N, unchecked entry summary, MCP list
    changes unheard."""

    name: ClassVar[str] = "reference:legacy"

    def take_baseline(self, run: Run) -> Callable[[], Snapshot]:
        return recapture(shallow_copies(run.tools), run)

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        if run.scenario.stage(StageKind.ASYNC_PREP) is None:
            super().settle_refusal(run, refusal)
