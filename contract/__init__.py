"""The contract a request's tools are held to, and the guard that holds them to it.

The bottom layer of toolsurface: what a surface is (`Snapshot`, `capture`, the tool formats),
how two differ, the typed refusals and the capacity result, how a request is settled with its
owner, which owner facts may narrow a surface (`hidden_by`), and the guard itself
(`SurfaceGuard`, `GuardedRequest`, `Capacity`). It imports nothing else of toolsurface and no
test engine: the guard users install is this, and so is what the defect matrix mutation-tests.
"""

from ._canonical import Snapshot, canonical_json, capture, snapshot_of
from ._diff import diff_snapshots, diff_summaries
from ._facts import (
    Binding,
    FactKind,
    OwnerFact,
    Ruling,
    WebTools,
    hidden_by,
    rule,
    rulings,
)
from ._formats import (
    FORMATS,
    LOGICAL,
    WIRE_FIELDS,
    WIRE_FIELDS_OF,
    ToolDescriptor,
    ToolFormat,
)
from ._guard import (
    SUMMARY_HEADER,
    Capacity,
    Estimator,
    GuardedRequest,
    SurfaceGuard,
    estimate_tokens,
    summary_of,
)
from ._owner import Owner, Settlement, current_owner, owning
from ._refusals import CapacityExceeded, RequestRefused, SummaryRefused, SurfaceRefused

__all__ = [
    "FORMATS",
    "LOGICAL",
    "SUMMARY_HEADER",
    "WIRE_FIELDS",
    "WIRE_FIELDS_OF",
    "Binding",
    "Capacity",
    "CapacityExceeded",
    "Estimator",
    "FactKind",
    "GuardedRequest",
    "Owner",
    "OwnerFact",
    "RequestRefused",
    "Ruling",
    "Settlement",
    "Snapshot",
    "SummaryRefused",
    "SurfaceGuard",
    "SurfaceRefused",
    "ToolDescriptor",
    "ToolFormat",
    "WebTools",
    "canonical_json",
    "capture",
    "current_owner",
    "diff_snapshots",
    "diff_summaries",
    "estimate_tokens",
    "hidden_by",
    "owning",
    "rule",
    "rulings",
    "snapshot_of",
    "summary_of",
]
