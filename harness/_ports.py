"""The ports the harness owns and hands to a target: gateway, ledgers, owner facts,
publications, the MCP server a discovering host lists from, injection.

The oracle never trusts a target's own account of what it did; it reads these. Each case gets
fresh ports. Once the target's `run` has returned the ports are closed, not discarded: whatever a
host left running (a retry thread, a timer) may still use them, and each such late effect is
reported to the runner instead of vanishing with the case.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolsurface.contract._canonical import Snapshot, canonical_json, capture
from toolsurface.contract._facts import OwnerFact, hidden_by
from toolsurface.contract._formats import ToolFormat
from toolsurface.contract._guard import Capacity, Estimator, estimate_tokens, summary_of
from toolsurface.contract._owner import Settlement
from toolsurface.mutators import MutationNotApplicable, NotCarried
from toolsurface.scenarios import Boundary, Lane, Point, Scenario, ToolCall

from ._capacity import recorded_capacity
from ._mcp import McpCatalogue
from ._types import Admission, Admitted, Dispatch, LedgerEvent, LedgerOp

#: Told, in words, of each effect on closed ports: `dispatched request 'req_main_0001'`.
LateEffect = Callable[[str], None]


class _Closable:
    """A port that reports what it is asked to do once its case is over."""

    _late: LateEffect | None = None

    def close(self, late: LateEffect) -> None:
        self._late = late

    def _after_close(self, effect: str) -> None:
        if self._late is not None:
            self._late(effect)


class LedgerRefused(Exception):
    """The ledger refused a settlement: no such reservation, or it was already settled."""


@dataclass(frozen=True, slots=True)
class Reservation:
    """The handle a ledger gives for an opened reservation."""

    lane: str
    request: str


class ProviderFailed(ConnectionError):
    """The simulated model provider failed the model call (a failure case made it fail)."""


class Gateway(_Closable):
    """The simulated provider gateway and the model behind it: records each dispatch with a
    snapshot of its tools, and answers with the tool calls the recorded model made next, if any.
    Made to fail (`fail`), it raises `ProviderFailed` for every model call from then on."""

    def __init__(self, fmt: ToolFormat, replies: tuple[tuple[ToolCall, ...], ...] = ()) -> None:
        self._fmt = fmt
        #: The tool calls of the reply to each model call but the last.
        self._replies = replies
        self.log: list[Dispatch] = []
        #: Whether the provider fails every model call from now on (`fail`).
        self.failing = False
        #: Model calls the provider failed: none went out.
        self.failed = 0

    def fail(self) -> None:
        """From the next model call on, fail every one, as a provider that is down does."""
        self.failing = True

    def dispatch(self, request: str, tools: list[Any], messages: list[Any]) -> dict[str, Any]:
        """Send a model call; the reply's `tool_calls` (each `id`, `name`, `arguments`) are the
        recorded model's next calls, whose results the host sends back in its next model call."""
        self._after_close(f"dispatched request {request!r}")
        call = len(self.log) + 1
        if self.failing:
            self.failed += 1
            raise ProviderFailed(f"the model provider failed model call {call}: 503 Service Unavailable")
        # Snapshot now: a later in-place edit must not rewrite what was sent.
        self.log.append(Dispatch(request, capture(tools, self._fmt), len(messages), self.summary_of(messages), call))
        reply: dict[str, Any] = {"request": request, "status": "accepted"}
        if call <= len(self._replies):
            reply["tool_calls"] = [
                {"id": tool_call_id(call, index), "name": made.name, "arguments": made.arguments}
                for index, made in enumerate(self._replies[call - 1])
            ]
        return reply

    def next_calls(self) -> tuple[str, ...]:
        """The tools the recorded model calls in its reply to the model call being prepared."""
        call = len(self.log)
        return tuple(made.name for made in self._replies[call]) if call < len(self._replies) else ()

    def replied(self) -> tuple[tuple[str, str], ...]:
        """The tool calls of the reply to the last model call sent, as (id, name), in the order made."""
        call = len(self.log)
        made = self._replies[call - 1] if 0 < call <= len(self._replies) else ()
        return tuple((tool_call_id(call, index), tool_call.name) for index, tool_call in enumerate(made))

    def result_of(self, call_id: str) -> str:
        """What the host's tool returned for a tool call of a reply, as recorded."""
        for call, made in enumerate(self._replies, 1):
            for index, tool_call in enumerate(made):
                if tool_call_id(call, index) == call_id and call <= len(self.log):
                    return tool_call.result
        raise KeyError(f"no reply so far made a tool call {call_id!r}")

    @staticmethod
    def summary_of(messages: list[Any]) -> str | None:
        """The capability summary a request carries: the first message that opens with its header."""
        return summary_of(messages)


def tool_call_id(call: int, index: int) -> str:
    """The id of the `index`-th tool call in the reply to the `call`-th model call."""
    return f"call_{call}_{index + 1}"


class Ledger(_Closable):
    """One request owner's ledger: reservations and the single settlement each must get."""

    def __init__(self, lane: str, events: list[LedgerEvent]) -> None:
        self.lane = lane
        self._events = events
        self._open: set[str] = set()
        self._settled: set[str] = set()

    def reserve(self, request: str) -> Reservation:
        self._after_close(f"reserved {request!r} in the {self.lane} ledger")
        self._open.add(request)
        self._events.append(LedgerEvent(self.lane, LedgerOp.RESERVE, request))
        return Reservation(self.lane, request)

    def settle(self, reservation: Reservation | str, settlement: Settlement | str, note: str = "") -> None:
        request = reservation.request if isinstance(reservation, Reservation) else reservation
        settlement = Settlement(settlement)
        self._after_close(f"settled {request!r} as {settlement.value} in the {self.lane} ledger")
        if request in self._settled:
            refusal = "second settlement"
        elif request not in self._open:
            refusal = f"no reservation for {request!r} in the {self.lane} ledger"
        else:
            self._open.remove(request)
            self._settled.add(request)
            self._events.append(LedgerEvent(self.lane, LedgerOp.SETTLE, request, settlement, note=note))
            return
        self._events.append(LedgerEvent(self.lane, LedgerOp.SETTLE, request, settlement, False, refusal))
        raise LedgerRefused(refusal)

    @property
    def open(self) -> tuple[str, ...]:
        return tuple(sorted(self._open))


class OwnerFacts:
    """The availability facts owners produced for the run, as a host reads them.

    It holds whatever was recorded, trusted or not: deciding which facts bind this request is
    the target's job, and the oracle's, never the feed's. A fact recorded as arriving mid-run
    joins the feed at its boundary, when the target reaches it.
    """

    def __init__(self, facts: tuple[OwnerFact, ...]) -> None:
        #: The live record; an injected mutation may append to it.
        self.live: list[OwnerFact] = [fact for fact in facts if fact.arrives is None]
        self._pending = [fact for fact in facts if fact.arrives is not None]

    def release(self, at: Boundary) -> None:
        """The owners' facts that arrive at boundary `at` join the feed, each once."""
        arriving = [fact for fact in self._pending if _arrival(fact) == at]
        if arriving:
            self._pending = [fact for fact in self._pending if _arrival(fact) != at]
            self.live.extend(arriving)

    def release_through(self, call: int) -> None:
        """Every fact that arrives before the `call`-th model call joins the feed: for a target whose
        boundaries are its own, none of them is a recorded stage's."""
        arriving = [fact for fact in self._pending if _arrival(fact).call <= call]
        if arriving:
            self._pending = [fact for fact in self._pending if fact not in arriving]
            self.live.extend(arriving)

    def current(self) -> tuple[OwnerFact, ...]:
        return tuple(self.live)


def _arrival(fact: OwnerFact) -> Boundary:
    """Where a fact recorded mid-run joins the feed: an owner fact spells it as a label (`hook@2`)."""
    assert fact.arrives is not None, "only a pending fact arrives"
    return Boundary.parse(fact.arrives)


class Publications(_Closable):
    """Bodies already publishable; a refused request must leave them as they are."""

    def __init__(self, bodies: dict[str, str]) -> None:
        self._bodies = dict(bodies)

    def get(self, key: str) -> str | None:
        return self._bodies.get(key)

    def publish(self, key: str, body: str) -> None:
        self._after_close(f"published {key!r}")
        self._bodies[key] = body

    def withdraw(self, key: str) -> None:
        self._after_close(f"withdrew publication {key!r}")
        self._bodies.pop(key, None)

    def snapshot(self) -> dict[str, str]:
        return dict(self._bodies)


#: Applies the case's mutation: the live (tools, messages) and fact feed in, the (tools, messages) to go on with out.
Injection = Callable[[list[Any], list[Any], list[OwnerFact]], tuple[list[Any], list[Any]]]


class Ports:
    """What a target gets for one run of one scenario."""

    def __init__(
        self, scenario: Scenario, fmt: ToolFormat, at: Boundary | None, injection: Injection | None, watch: int = 0,
        own_boundaries: bool = False, estimate: Estimator = estimate_tokens,
    ) -> None:  # fmt: skip
        self.scenario = scenario
        self.fmt = fmt
        self.gateway = Gateway(fmt, tuple(step.calls for step in scenario.steps))
        self.events: list[LedgerEvent] = []
        self._ledgers = {lane.value: Ledger(lane.value, self.events) for lane in Lane}
        self.facts = OwnerFacts(scenario.contract.facts)
        bodies = {scenario.publication.id: scenario.publication.body} if scenario.publication else {}
        self.publications = Publications(bodies)
        #: The MCP server a host that discovers its tools lists them from (`tools/list`, paged).
        self.mcp = McpCatalogue(scenario)
        self._at = at
        self._injection = injection
        #: The target offers boundaries of its own (an agent's middleware), not the recording's stages.
        self._own_boundaries = own_boundaries
        self.points: list[Boundary] = []
        self.injected = False
        #: Why the mutator failed at its point.
        self.mutator_failed: str | None = None
        #: Why the request at the case's point no longer had what the mutation acts on.
        self.unapplied: str | None = None
        #: Why the mutation cannot reach this target's wire at all (its format has no such field).
        self.not_carried: str | None = None
        #: How many of the first stage boundaries to snapshot, as the target offered them before any change.
        self._watch = watch
        #: Those snapshots, with their point: what the host's own state gave, to compare with a clean run.
        self.offered: list[tuple[Boundary, Snapshot]] = []
        #: Where the target's admission ended on each model call (`admit`).
        self.admissions: list[Admission] = []
        #: How the target counts tokens (`Target.estimate_tokens`), else the harness's estimate.
        self.estimate = estimate
        #: The tools the last admission selected, by name and as logical dicts: less what trusted
        #: facts hide when it is decided, what must fit.
        self._selected: list[tuple[str, Any]] = []

    def close(self, late: LateEffect) -> None:
        """The case is over: from now on every effect on these ports is late, and reported to `late`."""
        for port in (self.gateway, *self._ledgers.values(), self.publications):
            port.close(late)

    def ledger(self, lane: Lane | str) -> Ledger:
        """The owner ledger of a lane (`main` or `child`)."""
        return self._ledgers[Lane(lane).value]

    def owner(self) -> RequestOwner:
        """The scenario's request as a guard's `Owner` (`toolsurface.guard.Owner`): reserved now in
        its lane's ledger, its facts read from this feed, settled on that reservation."""
        return RequestOwner(self.scenario, self)

    @property
    def open_reservations(self) -> tuple[str, ...]:
        return tuple(f"{lane}:{request}" for lane, ledger in self._ledgers.items() for request in ledger.open)

    @property
    def call(self) -> int:
        """The model call being prepared: one more than the gateway has been sent."""
        return len(self.gateway.log) + 1

    def tool_result(self, call_id: str) -> str:
        """Run a tool call of the model's reply: the result the recorded tool gave (see `Gateway.dispatch`)."""
        return self.gateway.result_of(call_id)

    def inject(self, point: Point | str, tools: list[Any], messages: list[Any]) -> tuple[list[Any], list[Any]]:
        """Call at each stage boundary with the live request, naming the boundary by its `Point` or
        its own name; go on with what it returns. Before a later model call the boundary is that
        call's (`hook@2`)."""
        at = Boundary(point, self.call)
        self.points.append(at)
        # Before the case's change: a mutation at this boundary lands after what the owners said.
        # On boundaries of the target's own, a fact recorded for a model call is there from its first.
        if self._own_boundaries:
            self.facts.release_through(self.call)
        else:
            self.facts.release(at)
        self.mcp.reach(at)
        try:
            return self._inject(at, tools, messages)
        finally:
            # After the change, as a server notifies once its list has changed; a listener's
            # failure is the host's own, so it is raised into the host, outside the injection.
            self.mcp.announce()

    def _inject(self, at: Boundary, tools: list[Any], messages: list[Any]) -> tuple[list[Any], list[Any]]:
        if len(self.offered) < self._watch and not self.injected:
            # Tools the format cannot read are the dispatch's to report (it captures them too), not
            # an error raised into the host at a boundary that was only being watched.
            with contextlib.suppress(Exception):
                self.offered.append((at, capture(tools, self.fmt)))
        if at != self._at or self.injected or self._injection is None:
            return tools, messages
        self.injected = True
        try:
            if not self.past_admission:
                return self._injection(tools, messages, self.facts.live)
            # After admission, on what it selected: a change planned on every registered tool may
            # change nothing here (a rotation by a multiple of the selection's length, say).
            before = self._state(tools, messages)
            changed = self._injection(tools, messages, self.facts.live)
            if self._state(*changed) == before:
                self.unapplied = f"on the {len(tools)} tools it selected, the change changes nothing"
            return changed
        except NotCarried as problem:
            self.not_carried = str(problem)
        except MutationNotApplicable as problem:
            self.unapplied = str(problem)
        except Exception as problem:  # a mutator bug is the harness's error, not the target's crash
            self.mutator_failed = f"mutator failed: {type(problem).__name__}: {problem}"
        return tools, messages

    def _state(self, tools: list[Any], messages: list[Any]) -> tuple[Snapshot, bytes, int, bool]:
        """What a change after admission may change: the tools, the messages, the facts recorded,
        whether the provider fails."""
        return capture(tools, self.fmt), canonical_json(messages), len(self.facts.live), self.gateway.failing

    @property
    def injection_problem(self) -> str | None:
        """Why the mutation could not be made at its point: the harness's error, or the target's."""
        return self.mutator_failed or (None if self.admissions else self.unapplied)

    @property
    def not_selected(self) -> str | None:
        """Why the mutation found nothing to change on a target that selects its tools: admission
        left out what it acts on (before admission ended, or after)."""
        return self.unapplied if self.admissions and not self.mutator_failed else None

    def admit(self, tools: list[Any], messages: list[Any], registered: Snapshot) -> None:
        """Call where the target's admission ends on each model call, with the tools it admitted (as
        its boundaries offer them), the messages the model call carries and every tool the target
        registered: a selection of registered tools, each unchanged, is the surface that call is
        held to. A capacity result is then due where the selection, less what trusted facts hide
        now, and the messages exceed the recorded context fit."""
        surface = capture(tools, self.fmt)
        names = surface.names()
        selection = registered.selected(names) == surface and len(set(names)) == len(names)
        self._selected = [(self.fmt.get_name(tool), self.fmt.logical(tool)) for tool in tools]
        admitted = Admitted(self.call, len(names), selection, self.injected, self._over(messages))
        # Not a selection: the call is held to the registered tools of those names, so what went
        # out is judged, and named, against what the target registered.
        self.admissions.append(Admission(admitted, surface if selection else registered.selected(names)))

    @property
    def past_admission(self) -> bool:
        """Whether the model call being prepared has ended its admission (`admit`)."""
        return bool(self.admissions) and self.admissions[-1].admitted.call == self.call

    def refit(self, messages: list[Any]) -> None:
        """Call past admission (`past_admission`) with the messages the model call carries now (a
        context fit of the target's own may have shortened them): whether the admitted tools, less
        what trusted facts hide now, fit is decided on these."""
        last = self.admissions[-1]
        self.admissions[-1] = Admission(
            dataclasses.replace(last.admitted, over_capacity=self._over(messages)), last.surface
        )

    def _over(self, messages: list[Any]) -> bool:
        capacity = recorded_capacity(self.scenario, self.estimate)
        if capacity is None:
            return False
        hidden = hidden_by(self.facts.current(), self.scenario.binding, self.scenario.contract.web_tools)
        return capacity.exceeded([tool for name, tool in self._selected if name not in hidden], messages) is not None


class RequestOwner:
    """One request's owner on the harness's ports, as a guard sees it (`toolsurface.guard.Owner`):
    its identity, the owner-fact feed as it is now, and its reservation in its lane's ledger."""

    def __init__(self, scenario: Scenario, ports: Ports, capacity: Capacity | None = None) -> None:
        self.binding = scenario.binding
        #: The tools the owners' facts govern, and an entry request's capability summary, as recorded.
        self.web_tools = scenario.contract.web_tools
        self.summary = scenario.contract.summary
        #: What the request's model call can hold, where the owner says so: a host that replays the
        #: recorded context fit knows it from there (`recorded_capacity`).
        self.capacity = capacity
        self._facts = ports.facts
        self.ledger = ports.ledger(scenario.lane)
        self.reservation = self.ledger.reserve(scenario.identity.request)
        self.settled = False

    def facts(self) -> tuple[OwnerFact, ...]:
        return self._facts.current()

    def settle(self, settlement: Settlement, note: str) -> None:
        self.settled = True
        self.ledger.settle(self.reservation, settlement, note)
