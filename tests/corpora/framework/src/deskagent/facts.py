"""Owner facts: typed statements by a tool's owner, bound to one request."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

TRUSTED_OWNERS = {
    "search_budget_exhausted": "web_gateway",
    "run_deadline_exhausted": "host",
}


@dataclass(frozen=True)
class Binding:
    run_id: str
    scope: str
    invocation: str
    connection: str


@dataclass(frozen=True)
class OwnerFact:
    kind: str
    owner: str
    binding: Binding
    source_refs: tuple[str, ...] = ()


class FactFeed:
    """Facts recorded by their owners; only a trusted owner's fact bound to this request counts."""

    def __init__(self) -> None:
        self._facts: list[OwnerFact] = []
        self._lock = threading.Lock()

    def record(self, fact: OwnerFact) -> None:
        with self._lock:
            self._facts.append(fact)

    def _trusted(self, kind: str, binding: Binding) -> list[OwnerFact]:
        name = f"{kind}_exhausted"
        with self._lock:
            facts = list(self._facts)
        return [f for f in facts if f.kind == name and f.owner == TRUSTED_OWNERS.get(name) and f.binding == binding]

    def exhausted(self, kind: str, binding: Binding) -> bool:
        return bool(self._trusted(kind, binding))

    def source_refs(self, kind: str, binding: Binding) -> tuple[str, ...]:
        return tuple(ref for fact in self._trusted(kind, binding) for ref in fact.source_refs)
