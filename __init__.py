"""toolsurface: prove that the tools an LLM agent host sends are exactly the tools it admitted.

This is the public API, for people who write a host adapter, a guard or a property test of
their own; everything under `toolsurface.harness`, `.mutators`, `.scenarios` and `.reports` is
internal. Names load on first use, so `import toolsurface` (and the pytest plugin it carries)
costs nothing until something is used, and only the strategies import Hypothesis.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .contract._canonical import Snapshot, capture, snapshot_of
    from .contract._facts import (
        Binding,
        FactKind,
        OwnerFact,
        Ruling,
        WebTools,
        hidden_by,
        rulings,
    )
    from .contract._formats import FORMATS, ToolDescriptor, ToolFormat
    from .contract._owner import Settlement
    from .contract._refusals import (
        CapacityExceeded,
        RequestRefused,
        SummaryRefused,
        SurfaceRefused,
    )
    from .harness._capacity import compress
    from .harness._mcp import McpCatalogue, ToolsPage
    from .harness._ports import (
        Gateway,
        Ledger,
        LedgerRefused,
        OwnerFacts,
        Ports,
        Publications,
        Reservation,
    )
    from .harness._types import Dispatch, Target
    from .mutators._base import Must
    from .mutators._strategies import (
        MutatedRequest,
        edit_sequences,
        mutated_requests,
        owner_facts,
        scenarios_for,
        surfaces,
        tool_descriptors,
    )
    from .scenarios._boundary import Point
    from .scenarios._model import (
        Contract,
        Lane,
        Message,
        RequestOutcome,
        Scenario,
        Stage,
        StageKind,
    )

#: Where each public name lives.
_HOMES = {
    # What a target is handed, and what it reports through.
    "Target": "harness._types",
    "Ports": "harness._ports",
    "Gateway": "harness._ports",
    "Dispatch": "harness._types",
    "Ledger": "harness._ports",
    "Reservation": "harness._ports",
    "Settlement": "contract._owner",
    "LedgerRefused": "harness._ports",
    "OwnerFacts": "harness._ports",
    "Publications": "harness._ports",
    "McpCatalogue": "harness._mcp",
    "ToolsPage": "harness._mcp",
    # Tools as a host shapes them, and their canonical snapshot.
    "ToolFormat": "contract._formats",
    "FORMATS": "contract._formats",
    "Snapshot": "contract._canonical",
    "capture": "contract._canonical",
    "snapshot_of": "contract._canonical",
    # The typed refusals and the capacity result.
    "RequestRefused": "contract._refusals",
    "SurfaceRefused": "contract._refusals",
    "SummaryRefused": "contract._refusals",
    "CapacityExceeded": "contract._refusals",
    # The recorded request a target runs.
    "Scenario": "scenarios._model",
    "ToolDescriptor": "contract._formats",
    "Message": "scenarios._model",
    "Contract": "scenarios._model",
    "Lane": "scenarios._model",
    # What a host compares its own account with: each stage and its kind, the boundary after it,
    # how the unchanged request ends, and what a context fit keeps.
    "Stage": "scenarios._model",
    "StageKind": "scenarios._model",
    "Point": "scenarios._boundary",
    "RequestOutcome": "scenarios._model",
    "compress": "harness._capacity",
    # Owner facts: building one, and what each does to a request.
    "OwnerFact": "contract._facts",
    "FactKind": "contract._facts",
    "Ruling": "contract._facts",
    "rulings": "contract._facts",
    "hidden_by": "contract._facts",
    # What `hidden_by` is asked about: the identity a fact must be bound to, and the web tools facts govern.
    "Binding": "contract._facts",
    "WebTools": "contract._facts",
    # Hypothesis strategies for property tests of a guard.
    "Must": "mutators._base",
    "MutatedRequest": "mutators._strategies",
    "tool_descriptors": "mutators._strategies",
    "surfaces": "mutators._strategies",
    "scenarios_for": "mutators._strategies",
    "owner_facts": "mutators._strategies",
    "edit_sequences": "mutators._strategies",
    "mutated_requests": "mutators._strategies",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # found once; later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
