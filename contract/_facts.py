"""Owner facts, and the one rule by which they narrow a surface.

Only a fact produced by its owner (the web gateway for the search budget, the host for the run
deadline) and bound to this very request's run, scope, invocation and connection may hide a
tool. Anything else that looks like one — a diagnostic field in a tool result, the same fact
bound to a sibling request — is evidence at most, never availability.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Iterable
from dataclasses import dataclass, fields

from ._lossy import blind_said


class FactKind(enum.StrEnum):
    SEARCH_BUDGET_EXHAUSTED = "search_budget_exhausted"
    RUN_DEADLINE_EXHAUSTED = "run_deadline_exhausted"

    @property
    def producer(self) -> str:
        """The only owner whose word on this fact counts."""
        return "web_gateway" if self is FactKind.SEARCH_BUDGET_EXHAUSTED else "host"


@dataclass(frozen=True, slots=True)
class Binding:
    """The identity an owner fact is bound to."""

    run: str
    scope: str
    invocation: str
    connection: str

    def __str__(self) -> str:
        return " · ".join((self.run, self.scope, self.invocation, self.connection))


@dataclass(frozen=True, slots=True)
class WebTools:
    """Which admitted tools are the web search and the web read that availability facts govern."""

    search: str
    read: str


@dataclass(frozen=True, slots=True)
class OwnerFact:
    """A typed availability fact, as its owner produced it."""

    kind: FactKind
    owner: str
    bound_to: Binding
    #: search budget: the source references already issued, which web read may still open.
    source_refs: tuple[str, ...] = ()
    #: The injection point at whose boundary the owner recorded it; None: before the pipeline ran.
    arrives: str | None = None

    def __str__(self) -> str:
        arrival = f", arriving at {self.arrives}" if self.arrives else ""
        return f"{self.kind} from {self.owner}, bound to {self.bound_to}{arrival}"


@dataclass(frozen=True, slots=True)
class Ruling:
    """What one fact does to one request: hides tools, or is ignored and why."""

    fact: OwnerFact
    #: Why the fact does not apply to this request; empty when it is trusted.
    ignored_because: str
    hides: tuple[str, ...]
    #: Tools the fact leaves visible that a careless rule would hide, with the reason.
    keeps: tuple[str, ...]

    @property
    def trusted(self) -> bool:
        return not self.ignored_because

    def __str__(self) -> str:
        if not self.trusted:
            return f"{self.fact}: ignored: {self.ignored_because}"
        text = f"{self.fact}: trusted; hides {', '.join(self.hides) or 'nothing'}"
        return text + "".join(f"; keeps {kept}" for kept in self.keeps)


def rule(fact: OwnerFact, binding: Binding, web: WebTools | None) -> Ruling:
    """The ruling on one fact for a request bound to `binding`."""
    if fact.owner != fact.kind.producer:
        blind = blind_said(fact.kind.producer, fact.owner)
        return Ruling(fact, f"produced by {fact.owner}, not by {fact.kind.producer}{blind}", (), ())
    for field in fields(Binding):
        theirs, ours = getattr(fact.bound_to, field.name), getattr(binding, field.name)
        if theirs != ours:
            blind = blind_said(ours, theirs)
            return Ruling(fact, f"bound to {field.name} {theirs}, not this request's {ours}{blind}", (), ())
    if web is None:
        return Ruling(fact, "the contract names no web tools", (), ())
    if fact.kind is FactKind.RUN_DEADLINE_EXHAUSTED:
        return Ruling(fact, "", (web.search, web.read), ())
    # An exhausted search budget stops new searches, not reading sources already found.
    if fact.source_refs:
        refs = ", ".join(fact.source_refs)
        return Ruling(fact, "", (web.search,), (f"{web.read} (source refs {refs})",))
    return Ruling(fact, "", (web.search, web.read), ())


def rulings(facts: Iterable[OwnerFact], binding: Binding, web: WebTools | None) -> tuple[Ruling, ...]:
    """The ruling on each fact for a request bound to `binding`, in the facts' order: why a fact a
    host ignored may be ignored, or which tools one it trusted hides."""
    return tuple(rule(fact, binding, web) for fact in facts)


def hidden_by(facts: Iterable[OwnerFact], binding: Binding, web: WebTools | None) -> frozenset[str]:
    """Names of the tools the trusted facts among `facts` hide."""
    return _hidden(tuple(facts), binding, web)


@functools.lru_cache(maxsize=1024)
def _hidden(facts: tuple[OwnerFact, ...], binding: Binding, web: WebTools | None) -> frozenset[str]:
    # Guards ask at every decision of every case; the facts of a run are few and frozen.
    return frozenset(name for ruling in rulings(facts, binding, web) for name in ruling.hides)
