"""Which admitted tools a request may still carry, given what its run has learnt."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Mapping, Sequence

from toolkit.wire import tool_name

from .diagnostics import deadline_reported
from .facts import OwnerFact
from .requests import ModelRequest

log = logging.getLogger(__name__)

WEB_SEARCH = "market__web_search"
WEB_READ = "market__web_read"

TRUSTED_OWNERS = {
    "search_budget_exhausted": "web_gateway",
    "run_deadline_exhausted": "host",
}


def binds(fact: OwnerFact, request: ModelRequest) -> bool:
    """Whether ``fact`` is bound to this very request (every identity field, exactly)."""
    return (
        fact.run_id == request.run_id
        and fact.scope == request.scope
        and fact.invocation == request.invocation
        and fact.connection == request.metadata.get("connection")
    )


def hidden_by_facts(facts: Iterable[OwnerFact], request: ModelRequest) -> set[str]:
    """Tools that trusted owner facts bound to ``request`` hide."""
    hidden: set[str] = set()
    for fact in facts:
        if TRUSTED_OWNERS.get(fact.kind) != fact.owner:
            log.info("ignoring %s from %s: not its owner", fact.kind, fact.owner)
            continue
        if not binds(fact, request):
            log.info("ignoring %s: bound to another request", fact.kind)
            continue
        if fact.kind == "search_budget_exhausted":
            hidden.add(WEB_SEARCH)
            if not fact.source_refs:
                hidden.add(WEB_READ)
        elif fact.kind == "run_deadline_exhausted":
            hidden.update((WEB_SEARCH, WEB_READ))
    return hidden


def narrow(entries: Sequence[Mapping[str, Any]], hidden: set[str]) -> list[Any]:
    """Entries less the hidden tools, in their order."""
    return [entry for entry in entries if tool_name(entry) not in hidden]


def allowed(entries: Sequence[Mapping[str, Any]], facts: Iterable[OwnerFact], request: ModelRequest) -> list[Any]:
    """The entries ``request`` may still carry, given its run's facts and its tools' reports."""
    if any(deadline_reported(message) for message in request.messages):
        log.info("%s: a tool reported the run's deadline as passed", request.invocation)
        return narrow(entries, {WEB_SEARCH, WEB_READ})
    hidden = hidden_by_facts(facts, request)
    for message in request.messages:
        usage = message.get("usage") or {}
        if usage.get("search_quota_remaining") == 0:
            hidden.add(WEB_SEARCH)
    return narrow(entries, hidden)
