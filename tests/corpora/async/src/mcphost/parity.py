"""The final parity check: the tools on the wire against the tools admitted for the call."""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any, Mapping, Sequence

from relay.interceptors import Interceptor
from toolkit.wire import tool_name

from .errors import OfferDriftError
from .requests import ModelRequest, SealedRequest

log = logging.getLogger(__name__)


def _canonical(entry: Mapping[str, Any]) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def diff_specs(observed: Sequence[Mapping[str, Any]], admitted: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every difference between two offers, in words; empty when they are the same."""
    changes: list[str] = []
    seen_names = [tool_name(entry) for entry in observed]
    admitted_names = [tool_name(entry) for entry in admitted]
    for name in admitted_names:
        if name not in seen_names:
            changes.append(f"removed {name!r}")
    for name in seen_names:
        if name not in admitted_names:
            changes.append(f"added {name!r}")
    if not changes and seen_names != admitted_names:
        changes.append(f"reordered: {seen_names} instead of {admitted_names}")
    if not changes:
        for position, (seen, held) in enumerate(zip(observed, admitted)):
            if _canonical(seen) != _canonical(held):
                changes.append(f"{tool_name(held)!r} at {position} changed")
    return changes


async def verify_offer_parity(
    observed: Sequence[Mapping[str, Any]],
    baseline: Sequence[Mapping[str, Any]],
    *,
    lane: str,
) -> None:
    """Raise OfferDriftError unless ``observed`` is exactly ``baseline``."""
    changes = diff_specs(observed, baseline)
    if changes:
        log.warning("lane %s: offer differs from admission: %s", lane, changes)
        raise OfferDriftError(lane, changes)


async def verify_if_intercepted(
    sealed: SealedRequest,
    baseline: Sequence[Mapping[str, Any]],
    interceptors: Sequence[Interceptor],
) -> None:
    """Check a sealed follow-up request again after interceptors had a chance to change it.

    Without interceptors nothing touched the request since the last check, so there is
    nothing to compare.
    """
    if not interceptors:
        log.info("no interceptors registered; skipping the follow-up comparison")
        return
    await verify_offer_parity(sealed.request.tools, baseline, lane=sealed.request.lane)


def _digest(entries: Sequence[Mapping[str, Any]]) -> str:
    return hashlib.sha256("\n".join(_canonical(entry) for entry in entries).encode("utf-8")).hexdigest()


class OfferGuard:
    """Holds each lane's last offer for the audit trail, and makes the final comparison."""

    def __init__(self) -> None:
        self._about_to_send: dict[str, str] = {}
        self._last_checked: dict[str, str] = {}

    async def before_send(self, request: ModelRequest) -> None:
        """Interceptor: note what a lane is about to send, for the audit trail."""
        self._about_to_send[request.lane] = _digest(request.tools)

    async def enforce(self, sealed: SealedRequest, expected: Sequence[Mapping[str, Any]]) -> None:
        """The final check of a sealed request against the offer expected for it."""
        await verify_offer_parity(sealed.request.tools, expected, lane=sealed.request.lane)
        self._last_checked[sealed.request.lane] = sealed.digest

    def audit(self) -> dict[str, dict[str, str]]:
        return {"about_to_send": dict(self._about_to_send), "last_checked": dict(self._last_checked)}
