"""Surfaces pinned at admission, by run."""

from __future__ import annotations

import threading
from typing import Any, Sequence

from agentcore import ToolDef

from .parity import freeze_surface


class PinStore:
    """Admitted surfaces by run id, kept as snapshots nothing else holds."""

    def __init__(self) -> None:
        self._pins: dict[str, tuple[dict[str, Any], ...]] = {}
        self._lock = threading.Lock()

    def pin(self, run_id: str, tools: Sequence[ToolDef]) -> None:
        with self._lock:
            self._pins[run_id] = freeze_surface(tools)

    def lookup(self, run_id: str) -> tuple[dict[str, Any], ...]:
        with self._lock:
            try:
                return self._pins[run_id]
            except KeyError:
                raise LookupError(f"no surface pinned for run {run_id!r}") from None

    def release(self, run_id: str) -> None:
        with self._lock:
            self._pins.pop(run_id, None)
