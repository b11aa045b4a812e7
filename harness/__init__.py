"""The toolsurface engine: tool formats, canonical snapshots and diffs, ports, reference targets,
the plan, the runner and its oracles, and the API the CLI drives."""

from ._api import (
    DEFAULT_RED_TARGET,
    DEFAULT_TARGET,
    RunOptions,
    Session,
    defect_kills,
    find_case,
    prepare,
    reproduce,
)
from ._canonical import Snapshot, canonical_json, capture, snapshot_of
from ._diff import Added, Change, DescriptionChanged, Moved, Removed, Renamed, SchemaChanged, diff, diff_snapshots
from ._errors import SurfaceRefused, TargetError, ToolsurfaceError, UsageError
from ._formats import FORMATS, ToolFormat
from ._oracles import judge
from ._plan import Shard, plan
from ._ports import Gateway, Ledger, LedgerRefused, Ports, Publications, Reservation
from ._reference import DEFECTS, REFERENCE_TARGETS
from ._runner import Runner, observe
from ._targets import NO_TARGET, load_target
from ._types import (
    Case,
    CaseResult,
    Crash,
    Dispatch,
    Evidence,
    LedgerEvent,
    Observation,
    Outcome,
    Reproduction,
    Target,
    Verdict,
    VerdictKind,
    totals,
)

__all__ = [
    "DEFAULT_RED_TARGET",
    "DEFAULT_TARGET",
    "DEFECTS",
    "FORMATS",
    "NO_TARGET",
    "REFERENCE_TARGETS",
    "Added",
    "Case",
    "CaseResult",
    "Change",
    "Crash",
    "DescriptionChanged",
    "Dispatch",
    "Evidence",
    "Gateway",
    "Ledger",
    "LedgerEvent",
    "LedgerRefused",
    "Moved",
    "Observation",
    "Outcome",
    "Ports",
    "Publications",
    "Removed",
    "Renamed",
    "Reproduction",
    "Reservation",
    "RunOptions",
    "Runner",
    "SchemaChanged",
    "Session",
    "Shard",
    "Snapshot",
    "SurfaceRefused",
    "Target",
    "TargetError",
    "ToolFormat",
    "ToolsurfaceError",
    "UsageError",
    "Verdict",
    "VerdictKind",
    "canonical_json",
    "capture",
    "defect_kills",
    "diff",
    "diff_snapshots",
    "find_case",
    "judge",
    "load_target",
    "observe",
    "plan",
    "prepare",
    "reproduce",
    "snapshot_of",
    "totals",
]
