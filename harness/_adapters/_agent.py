"""What every user-agent target shares: the user's own agent, built by their factory, run as a host
runs it, with injection boundaries of its own.

A spec `FRAMEWORK:PKG.MOD:FACTORY` names a factory `FACTORY(tools, model)` that builds the user's
agent, as they build it in production, from the admitted tools and the model it is handed. The
harness plays the host around it: it keeps one agent per scenario (a host keeps its agent, so
what one run leaves on it reaches the next), opens each request with its owner in the ledger, runs
the agent under `toolsurface.guard.owning(owner)` so a guard the user installed finds it, and
settles the request, as a host does after its agent returns, where nothing in the agent did.

The boundaries are the agent's own — one before its first middleware or hook, one after each —
named after them, and found by a dry run (`Target.own_boundaries`), so case ids read in the user's
words. The recorded stages are not replayed: the user's middleware are the stages. The agent is
handed the conversation as the recording sealed it (compressed, with its evidence and
publication), and each owner fact recorded for a model call is in the feed from that call's first
boundary.
"""

from __future__ import annotations

import contextvars
import inspect
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from toolsurface.contract._owner import Settlement, owning
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.scenarios import Message, Scenario, StageKind, derived

from .._capacity import recorded_capacity
from .._ports import Ports, Publications, RequestOwner
from .._reference._stages import replay_messages
from ._common import KeptAgents

#: A boundary name keeps to what case ids and `--select` globs read plainly.
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:-]+")


@dataclass(slots=True)
class AgentRun:
    """The request a user's agent is running: what the harness's boundaries, tools and offline model
    reach it through."""

    scenario: Scenario
    ports: Ports
    owner: RequestOwner
    dispatched: bool = False
    #: The model call whose tools the model's own boundary last offered.
    offered_at_model: int = 0
    #: The first typed refusal a boundary saw on its way out: a middleware may catch it (a retry, a
    #: fallback) and answer without the model, and the run still ended in it.
    refusal: RequestRefused | None = None

    def sent(self) -> None:
        """A model call of the request went out."""
        self.dispatched = True


_RUN: contextvars.ContextVar[AgentRun | None] = contextvars.ContextVar("toolsurface_agent_run", default=None)


def current_run() -> AgentRun | None:
    """The request being run, or None outside a harness run (the agent used as it is in production)."""
    return _RUN.get()


def builds_own_tools(factory: Callable[..., Any]) -> bool:
    """Whether `factory` builds the agent with tools of its own, `FACTORY(model)`, rather than with
    a recording's, `FACTORY(tools, model)`; a `TypeError` for anything else."""
    given = len(inspect.signature(factory).parameters) if callable(factory) else 0
    if given not in (1, 2):
        raise TypeError(
            "expected a factory FACTORY(model) that builds the agent with its own tools, "
            "or FACTORY(tools, model) that builds it with the recording's"
        )
    return given == 1


def recorded_tools(scenario: Scenario | None, tool_of: Callable[[Any], Any]) -> list[Any]:
    """The tools a `FACTORY(tools, model)` is handed: the recording's, as the framework makes them."""
    if scenario is None:
        raise TypeError("a factory of tools and model is handed the tools of a recording: name its scenarios")
    return [tool_of(descriptor) for descriptor in scenario.contract.surface]


def noting_refusal(refusal: RequestRefused | None) -> None:
    """Note a typed refusal (the guard's, or the framework's own, as a refusal) on its way out
    through a boundary (`AgentRun.refusal`)."""
    if refusal is not None and (run := current_run()) is not None and run.refusal is None:
        run.refusal = refusal


def boundary_name(where: str, name: str) -> str:
    """`before:TokenSaver`, `after:TokenSaver`: a boundary named after the middleware or hook it borders."""
    return f"{where}:{_UNSAFE.sub('_', name).strip('_') or 'unnamed'}"


def offer(point: str, tools: list[Any], messages: list[Any]) -> tuple[list[Any], list[Any]]:
    """Offer a boundary's live objects (as logical views) to the harness, if a run is on."""
    run = _RUN.get()
    if run is None:
        return tools, messages
    return run.ports.inject(point, tools, messages)


def sealed_messages(scenario: Scenario, ports: Ports) -> list[Message]:
    """The conversation the agent is handed: as the recorded stages of the first model call left it."""
    return [Message(view["role"], view["content"]) for view in sealed_views(scenario, ports.publications)]


def sealed_views(scenario: Scenario, publications: Publications) -> list[dict[str, Any]]:
    """`sealed_messages` as message dicts. A recording's stages of the host's own are the agent's
    middleware, which do what they did themselves: only the recorded kinds are replayed."""
    views = [message.as_dict() for message in scenario.request_messages]
    for stage in scenario.stages:
        if stage.kind is not StageKind.OWN:
            views = replay_messages(stage, views, scenario, publications)
    return with_user_turn(views, scenario.request_messages)


def with_user_turn(views: list[dict[str, Any]], recorded: Sequence[Message]) -> list[dict[str, Any]]:
    """A conversation an agent framework takes: one the recorded context fit left without the user's
    turn gets the last one back, after its opening system messages (where the fit's summary stands),
    as a framework that fits context keeps the question it answers."""
    users = [message for message in recorded if message.role == "user"]
    if not users or any(view["role"] == "user" for view in views):
        return views
    at = next((i for i, view in enumerate(views) if view["role"] != "system"), len(views))
    return [*views[:at], users[-1].as_dict(), *views[at:]]


class UserAgentTarget:
    """A target (`toolsurface.Target`) around the agent a user's factory builds."""

    framework: ClassVar[str]
    own_boundaries = True
    refusals: ClassVar[tuple[type[BaseException], ...]] = (RequestRefused,)
    capacity_results: ClassVar[tuple[type[BaseException], ...]] = (CapacityExceeded,)
    #: Mutators see the framework's tools as logical dicts sharing their live schemas.
    tool_format = "logical"
    wire_fields: tuple[str, ...] = ()

    def __init__(self, factory: Callable[..., Any], spec: str, *, own_tools: bool = False) -> None:
        self.factory = factory
        self.name = spec
        #: Whether the factory builds the agent with tools of its own (`FACTORY(model)`): then its
        #: scenarios are derived from them (`own_scenarios`), and the harness answers their calls.
        self.own_tools = own_tools
        #: The agent the user's factory builds for each contract, kept as a host keeps it.
        self.agent_for = KeptAgents(self.build_agent)

    def build_agent(self, scenario: Scenario) -> Any:
        raise NotImplementedError

    def registered(self) -> list[dict[str, Any]]:
        """Every tool an agent of the factory's registers, as logical dicts, in the order it registers them."""
        raise NotImplementedError

    def own_scenarios(self) -> tuple[Scenario, ...]:
        """The scenarios of an agent with tools of its own, derived from them; none for a factory
        handed the recording's tools."""
        return derived(self.registered(), self.name) if self.own_tools else ()

    @contextmanager
    def request(
        self, scenario: Scenario, ports: Ports, refusal: Callable[[Exception], RequestRefused | None]
    ) -> Iterator[AgentRun]:
        """Run one request as a host does: open it with its owner, run the agent under it, and settle
        what the agent left unsettled — dispatched once a model call went out, failed otherwise,
        refused where the framework itself refused before the model (`refusal`)."""
        # No recorded context fit runs on the agent: its owner says what the model call can hold.
        run = AgentRun(scenario, ports, RequestOwner(scenario, ports, recorded_capacity(scenario)))
        token = _RUN.set(run)
        try:
            with owning(run.owner):
                yield run
        except Exception as error:
            named = refusal(error) or refused_throughout(error, refusal)
            if not run.owner.settled:
                settlement = (
                    Settlement.PRE_DISPATCH_REJECTED
                    if named
                    else Settlement.DISPATCHED
                    if run.dispatched
                    else Settlement.FAILED
                )
                run.owner.settle(settlement, str(named) if named else f"agent failed: {type(error).__name__}")
            if named is not None:
                raise named from error
            raise
        finally:
            _RUN.reset(token)
        # A refusal a middleware of the agent's caught (a retry, a fallback) still ended the run.
        refused = run.refusal if not run.dispatched else None
        if not run.owner.settled:
            if refused is not None:
                run.owner.settle(Settlement.PRE_DISPATCH_REJECTED, str(refused))
            else:
                run.owner.settle(
                    Settlement.DISPATCHED if run.dispatched else Settlement.FAILED,
                    "" if run.dispatched else "no model call",
                )
        if refused is not None:
            raise refused
        if not run.dispatched:
            raise RuntimeError("the agent run ended without calling the model")


def refused_throughout(
    error: Exception, refusal: Callable[[Exception], RequestRefused | None]
) -> RequestRefused | None:
    """The refusal an exception group holds in every branch, or None: a framework that tried the
    request again (a fallback to another model, a retry) and met the same refusal each time raises
    the attempts as a group, and the request was refused, not crashed."""
    if not isinstance(error, BaseExceptionGroup):
        return None
    named = [
        leaf if isinstance(leaf, RequestRefused) else refusal(leaf) if isinstance(leaf, Exception) else None
        for leaf in _leaves(error)
    ]
    return named[0] if named and all(named) else None


def _leaves(group: BaseExceptionGroup[BaseException]) -> Iterator[BaseException]:
    for error in group.exceptions:
        if isinstance(error, BaseExceptionGroup):
            yield from _leaves(error)
        else:
            yield error
