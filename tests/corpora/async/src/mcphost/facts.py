"""Owner facts: what the owners of budgets and deadlines have recorded about a run."""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Protocol

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OwnerFact:
    """A typed fact, bound to one run, scope, invocation and connection."""

    kind: str
    owner: str
    run_id: str
    scope: str
    invocation: str
    connection: str
    source_refs: tuple[str, ...] = ()


class FactStore(Protocol):
    async def read(self, run_id: str) -> list[dict[str, Any]]: ...


class MemoryFactStore:
    def __init__(self) -> None:
        self._rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._lock = asyncio.Lock()

    async def write(self, row: dict[str, Any]) -> None:
        async with self._lock:
            self._rows[str(row["run_id"])].append(dict(row))

    async def read(self, run_id: str) -> list[dict[str, Any]]:
        async with self._lock:
            return [dict(row) for row in self._rows.get(run_id, [])]


class FactFeed:
    """Owner facts as their owners recorded them.

    Facts may arrive at any point of a run, so the feed is read again before every dispatch.
    """

    def __init__(self, store: FactStore) -> None:
        self._store = store

    async def current(self, run_id: str) -> list[OwnerFact]:
        facts: list[OwnerFact] = []
        for row in await self._store.read(run_id):
            try:
                facts.append(
                    OwnerFact(
                        kind=row["kind"],
                        owner=row["owner"],
                        run_id=row["run_id"],
                        scope=row["scope"],
                        invocation=row["invocation"],
                        connection=row["connection"],
                        source_refs=tuple(row.get("source_refs", ())),
                    )
                )
            except KeyError as exc:
                log.warning("ignoring a %s fact without %s", row.get("kind", "?"), exc)
        return facts
