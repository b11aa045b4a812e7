"""The request's owner: how a request may end with it, and what a guard asks of it."""

from __future__ import annotations

import contextlib
import contextvars
import enum
from collections.abc import Iterable, Iterator
from typing import Protocol

from ._facts import Binding, OwnerFact


class Settlement(enum.StrEnum):
    """How a reservation may be settled in an owner ledger."""

    DISPATCHED = "dispatched"
    PRE_DISPATCH_REJECTED = "pre_dispatch_rejected"
    FAILED = "failed"


class Owner(Protocol):
    """What the guard needs from the host about one request.

    `binding` is the request's identity (run, scope, invocation, connection): only an owner fact
    bound to exactly it, from the fact's own producer, narrows the surface. `facts()` is the owner
    facts as recorded now (the guard decides which it trusts). `settle` records how the request
    ended with its owner (its ledger, its reservation); the guard calls it once per request.

    An owner may also say which tools its facts govern (`web_tools`, a `WebTools`), what the
    request's model call can hold (`capacity`, a `Capacity`) and which capability summary an entry
    request carries (`summary`): a guard not given its own uses them.
    """

    @property
    def binding(self) -> Binding: ...

    def facts(self) -> Iterable[OwnerFact]: ...

    def settle(self, settlement: Settlement, note: str) -> None: ...


_OWNER: contextvars.ContextVar[Owner | None] = contextvars.ContextVar("toolsurface_guard_owner", default=None)


@contextlib.contextmanager
def owning(owner: Owner) -> Iterator[Owner]:
    """Run a request under `owner`: a framework integration built once per agent finds each
    request's owner here (`current_owner`), so the host sets it where it starts the request:

        with owning(MyOwner(request_id)):
            await agent.ainvoke(...)
    """
    token = _OWNER.set(owner)
    try:
        yield owner
    finally:
        _OWNER.reset(token)


def current_owner() -> Owner:
    """The owner of the request being run (see `owning`)."""
    owner = _OWNER.get()
    if owner is None:
        raise LookupError("no request owner: start the request under toolsurface.guard.owning(owner)")
    return owner
