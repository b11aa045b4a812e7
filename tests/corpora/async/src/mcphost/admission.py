"""Admission: which of the granted tools a model call may carry, and the baseline kept for it."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from relay.adapters import apply_overrides, to_openai_strict
from toolkit import OfferModel, ToolCatalogue, ToolSpec, freeze_offer, to_wire
from toolkit.controls import with_controls
from toolkit.selection import pick, preview

from .config import HostSettings, LaneSettings

log = logging.getLogger(__name__)


@dataclass
class Admission:
    offer: OfferModel
    baseline: list[dict[str, Any]]
    specs: list[ToolSpec]
    admitted_at: float


class BaselineStore:
    """Admitted baselines by run, invocation and turn; written at admission, read at the check."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str, int], list[dict[str, Any]]] = {}

    def put(self, run_id: str, invocation: str, turn: int, baseline: list[dict[str, Any]]) -> None:
        self._by_key[(run_id, invocation, turn)] = freeze_offer(baseline)

    async def for_turn(self, run_id: str, invocation: str, turn: int) -> list[dict[str, Any]]:
        """The baseline admitted for a call; a later call of a request keeps its last admission's."""
        for earlier in range(turn, -1, -1):
            stored = self._by_key.get((run_id, invocation, earlier))
            if stored is not None:
                return freeze_offer(stored)
        raise KeyError(f"no admission recorded for {run_id}/{invocation}")


async def admit(
    catalogue: ToolCatalogue,
    settings: HostSettings,
    *,
    run_id: str,
    invocation: str,
    lane: LaneSettings,
    store: BaselineStore,
) -> Admission:
    """Admit the granted tools for one model call on ``lane``."""
    started = time.monotonic()
    specs = await catalogue.granted(settings.granted)
    specs = pick(specs, lane.max_tools)
    if settings.overrides:
        apply_overrides(specs, settings.overrides)
    if lane.fmt == "openai":
        entries = [to_openai_strict(spec) for spec in specs]
    else:
        entries = [to_wire(spec, lane.fmt) for spec in specs]
    entries = with_controls(entries, lane.fmt, paging=settings.result_paging)
    offer = OfferModel(run_id=run_id, lane=lane.name, invocation=invocation, entries=entries)
    baseline = freeze_offer(offer.entries)
    store.put(run_id, invocation, 0, baseline)
    log.info("admitted %d tools for %s on %s: %s", len(baseline), invocation, lane.name, preview(specs))
    return Admission(offer=offer, baseline=baseline, specs=specs, admitted_at=started)
