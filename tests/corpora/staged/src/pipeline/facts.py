"""Owner facts: typed statements by a tool's owner that narrow a request's surface."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

logger = logging.getLogger(__name__)

SEARCH_BUDGET_EXHAUSTED = "search_budget_exhausted"
RUN_DEADLINE_EXHAUSTED = "run_deadline_exhausted"

WEB_SEARCH = "market__web_search"
WEB_READ = "market__web_read"

TRUSTED_OWNERS = {
    SEARCH_BUDGET_EXHAUSTED: "web_gateway",
    RUN_DEADLINE_EXHAUSTED: "host",
}


@dataclass(frozen=True)
class Binding:
    """The identity a fact must be bound to before it applies to a request."""

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
    """Facts recorded by owners, read whenever a stage needs the ones in force."""

    def __init__(self) -> None:
        self._facts: list[OwnerFact] = []
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)

    def record(self, fact: OwnerFact) -> None:
        with self._changed:
            self._facts.append(fact)
            self._changed.notify_all()
        logger.info("fact %s from %s recorded", fact.kind, fact.owner)

    def bound_to(self, binding: Binding) -> list[OwnerFact]:
        """Facts by their trusted owner, bound to exactly *binding*."""
        with self._lock:
            facts = list(self._facts)
        trusted = []
        for fact in facts:
            if TRUSTED_OWNERS.get(fact.kind) != fact.owner:
                logger.info("ignoring %s from %s: not its owner", fact.kind, fact.owner)
                continue
            if fact.binding != binding:
                logger.info("ignoring %s from %s: bound to %s", fact.kind, fact.owner, fact.binding)
                continue
            trusted.append(fact)
        return trusted


feed = FactFeed()
