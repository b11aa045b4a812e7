"""Owner facts recorded into the feed mid-run: forged ones that must change nothing, and a trusted
one that must narrow.

A forged fact is right in every field but one: bound to another run, scope, invocation or
connection (one that differs from the real value at its end, or only at its start or in its
middle), bound to the child request's parent, or produced by someone who is not this kind's
owner (an impostor, or the other real owner). A host that compares prefixes, suffixes or last
segments, trusts any known owner, or lets a child obey its parent, narrows on it.

A trusted fact, produced by its owner and bound to this very request, is legitimate owner
narrowing whenever it arrives: the request must go out without the tools it hides.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from toolsurface.contract._facts import Binding, FactKind, OwnerFact, hidden_by
from toolsurface.scenarios import Scenario

from ._aims import (
    Aim,
    FactField,
    ForeignOwner,
    Forgery,
    LookAlike,
    Narrowing,
    ParentBound,
    Where,
)
from ._base import Delivery, Edit, Example, Kind, Must, Mutator
from ._fixtures import SEARCH, WEB_READ, WEB_SEARCH, WEB_TOOLS
from ._testing import BINDING

#: Who claims a forged fact in the `owner` variant: a tool server, not the fact's owner.
IMPOSTOR = "mcp:market"
#: The source reference a trusted search-budget fact recorded mid-run leaves open to web read.
LATE_SOURCE = "src_late_1"

_PARENT = Binding(run="run-1", scope="research", invocation="inv-0", connection="conn-1")
#: The identity fields a look-alike may forge.
_BOUND_FIELDS = tuple(field for field in FactField if field is not FactField.OWNER)


def look_alike(value: str) -> str:
    """A value one step away: `inv_07` → `inv_08`, `research` → `research-2`."""
    match = re.search(r"(\d+)$", value)
    if match is None:
        return f"{value}-2"
    digits = match.group(1)
    return value[: match.start()] + str(int(digits) + 1).zfill(len(digits))


def look_alike_at(value: str, where: Where) -> str:
    """`value` with one letter or digit changed at its start, in its middle or at its end, every
    other character kept: `scope:research/etf-compare` → `tcope:…`, `…/etf-compare` kept by the
    middle one (`scope:researdh/etf-compare`), `…/etf-comparf` at the end."""
    places = [index for index, char in enumerate(value) if char.isalnum()]
    if not places:
        raise ValueError(f"{value!r} has no letter or digit to change")
    index = {Where.START: places[0], Where.MIDDLE: places[len(places) // 2], Where.END: places[-1]}[where]
    return value[:index] + _next_char(value[index]) + value[index + 1 :]


def _next_char(char: str) -> str:
    for alphabet in ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"):
        if char in alphabet:
            return alphabet[(alphabet.index(char) + 1) % len(alphabet)]
    raise ValueError(f"{char!r} is not an ASCII letter or digit")


def forged(scenario: Scenario, aim: Aim) -> OwnerFact:
    """The fact a forgery aim records: right in every field but the one it forges."""
    binding, budget = scenario.binding, FactKind.SEARCH_BUDGET_EXHAUSTED
    if isinstance(aim, Forgery):
        if aim.field is FactField.OWNER:
            return OwnerFact(budget, IMPOSTOR, binding)
        other = dataclasses.replace(binding, **{aim.field.value: look_alike(getattr(binding, aim.field.value))})
        return OwnerFact(budget, budget.producer, other)
    if isinstance(aim, LookAlike):
        value = getattr(binding, aim.field.value)
        return OwnerFact(
            budget, budget.producer, dataclasses.replace(binding, **{aim.field.value: look_alike_at(value, aim.at)})
        )
    if isinstance(aim, ForeignOwner):
        return OwnerFact(aim.kind, aim.owner, binding)
    if isinstance(aim, ParentBound):
        if scenario.identity.parent is None:
            raise ValueError(f"{aim} needs a child request with a recorded parent; {scenario.id} has none")
        return OwnerFact(aim.kind, aim.kind.producer, scenario.identity.parent)
    raise TypeError(f"availability.forged_fact takes forgery aims, not {aim!r}")


def trusted(scenario: Scenario, kind: FactKind) -> OwnerFact:
    """A fact of `kind` from its owner, bound to this request: a budget one leaves a source to read."""
    refs = (LATE_SOURCE,) if kind is FactKind.SEARCH_BUDGET_EXHAUSTED else ()
    return OwnerFact(kind, kind.producer, scenario.binding, refs)


def _would_narrow(scenario: Scenario, fact: OwnerFact) -> bool:
    """Whether `fact`, were it trusted, hides a tool the expected surface shows."""
    web = scenario.contract.web_tools
    shown = {tool.name for tool in scenario.surface}
    trusting = dataclasses.replace(fact, owner=fact.kind.producer, bound_to=scenario.binding)
    return bool(hidden_by((trusting,), scenario.binding, web) & shown)


class _RecordsFact(Mutator):
    """A mutator that records one owner fact into the feed and leaves the request as it is."""

    kind = Kind.AVAILABILITY
    must = Must.DISPATCH
    # A fact is a new record either way: there is no live object of the request to edit.
    deliveries = (Delivery.REPLACE,)
    #: The one kind of aim it takes.
    takes: ClassVar[type[Aim]]

    def fact(self, scenario: Scenario, aim: Any) -> OwnerFact:
        """The fact an aim records; a forgery by default."""
        return forged(scenario, aim)

    def records(self, scenario: Scenario, aim: Aim) -> tuple[OwnerFact, ...]:
        if not isinstance(aim, self.takes):
            raise TypeError(f"{self.key()} takes {self.takes.__name__} aims, not {aim!r}")
        return (self.fact(scenario, aim),)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        edit.facts.extend(self.records(edit.scenario, edit.aim))
        return edit.tools, edit.messages


def _web_shown(scenario: Scenario) -> bool:
    web = scenario.contract.web_tools
    return web is not None and bool({web.search, web.read} & {tool.name for tool in scenario.surface})


class ForgedFact(_RecordsFact):
    """A correct-looking search-budget fact bound to another run, scope, invocation or connection
    (one step past its end), or produced by an impostor rather than the web gateway."""

    variant = "forged_fact"
    takes = Forgery
    examples = (
        Example(
            aim=Forgery(FactField.INVOCATION),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(
                OwnerFact(
                    FactKind.SEARCH_BUDGET_EXHAUSTED,
                    "web_gateway",
                    Binding(run="run-1", scope="research", invocation="inv-2", connection="conn-1"),
                ),
            ),
        ),
        Example(
            aim=Forgery(FactField.OWNER),
            before=(WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, IMPOSTOR, BINDING),),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Forgery]:
        return tuple(map(Forgery, FactField)) if _web_shown(scenario) else ()


class LookAlikeFact(_RecordsFact):
    """A search-budget fact bound to a look-alike of one identity field: the real value with one
    character changed at its start, in its middle or at its end."""

    variant = "look_alike_fact"
    takes = LookAlike
    examples = (
        Example(
            aim=LookAlike(FactField.SCOPE, Where.MIDDLE),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(
                OwnerFact(
                    FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", dataclasses.replace(BINDING, scope="resebrch")
                ),
            ),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[LookAlike]:
        # One place per field and scenario keeps the matrix small; across the bundled scenarios
        # every field is forged at every place (a test holds the default seed to that).
        return (
            tuple(LookAlike(field, rng.choice(tuple(Where))) for field in _BOUND_FIELDS) if _web_shown(scenario) else ()
        )


class ForeignOwnerFact(_RecordsFact):
    """A correctly bound fact produced by the other real owner: the host's word on the search
    budget, the web gateway's on the run deadline."""

    variant = "foreign_owner_fact"
    takes = ForeignOwner
    examples = (
        Example(
            aim=ForeignOwner("host", FactKind.SEARCH_BUDGET_EXHAUSTED),
            before=(WEB_SEARCH, WEB_READ),
            after=(WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "host", BINDING),),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[ForeignOwner]:
        if not _web_shown(scenario):
            return ()
        return tuple(ForeignOwner(other.producer, kind) for kind in FactKind for other in FactKind if other is not kind)


class ParentFact(_RecordsFact):
    """A fact from its owner, bound to the parent of a child request, that would hide a tool the
    child shows: the parent's facts are never the child's."""

    variant = "parent_fact"
    takes = ParentBound
    examples = (
        Example(
            aim=ParentBound(FactKind.RUN_DEADLINE_EXHAUSTED),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            parent=_PARENT,
            recorded=(OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", _PARENT),),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[ParentBound]:
        if scenario.identity.parent is None or scenario.contract.web_tools is None:
            return ()
        return tuple(aim for aim in map(ParentBound, FactKind) if _would_narrow(scenario, forged(scenario, aim)))


class TrustedFact(_RecordsFact):
    """A trusted fact bound to this very request, recorded by its owner at the injection point:
    the request must go out narrowed by it, however late it came."""

    variant = "trusted_fact"
    takes = Narrowing
    examples = (
        Example(
            aim=Narrowing(FactKind.RUN_DEADLINE_EXHAUSTED),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", BINDING),),
        ),
        Example(
            aim=Narrowing(FactKind.SEARCH_BUDGET_EXHAUSTED),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", BINDING, (LATE_SOURCE,)),),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Narrowing]:
        if scenario.contract.web_tools is None:
            return ()
        return tuple(aim for aim in map(Narrowing, FactKind) if _would_narrow(scenario, self.fact(scenario, aim)))

    def fact(self, scenario: Scenario, aim: Narrowing) -> OwnerFact:
        return trusted(scenario, aim.kind)


class TrustedFactSources(TrustedFact):
    """The trusted facts of `trusted_fact` with their source references the other way round: a
    search-budget fact that names no source already found (so web read is hidden with web search),
    a run-deadline fact that names one (which keeps nothing open: the run is out of time)."""

    variant = "trusted_fact_sources"
    examples = (
        Example(
            aim=Narrowing(FactKind.SEARCH_BUDGET_EXHAUSTED),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.SEARCH_BUDGET_EXHAUSTED, "web_gateway", BINDING),),
        ),
        Example(
            aim=Narrowing(FactKind.RUN_DEADLINE_EXHAUSTED),
            before=(SEARCH, WEB_SEARCH, WEB_READ),
            after=(SEARCH, WEB_SEARCH, WEB_READ),
            web_tools=WEB_TOOLS,
            recorded=(OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", BINDING, (LATE_SOURCE,)),),
        ),
    )

    def fact(self, scenario: Scenario, aim: Narrowing) -> OwnerFact:
        refs = () if aim.kind is FactKind.SEARCH_BUDGET_EXHAUSTED else (LATE_SOURCE,)
        return OwnerFact(aim.kind, aim.kind.producer, scenario.binding, refs)


MUTATORS: tuple[Mutator, ...] = (
    ForgedFact(),
    LookAlikeFact(),
    ForeignOwnerFact(),
    ParentFact(),
    TrustedFact(),
    TrustedFactSources(),
)
