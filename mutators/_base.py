"""The mutator protocol: what a change is, how it is delivered, what the guard must do with it.

A mutator is one small class that knows one way to change a request at an injection point.
`aims()` lists, deterministically, what it can hit in a scenario, as typed aims (`_aims`);
`apply()` changes the live tools and messages a target hands to `ports.inject`. Mutators read
and edit tool objects only through the tool format accessor they are given, so the same mutator
reaches an OpenAI function dict, an MCP tool or a logical descriptor alike.
"""

from __future__ import annotations

import copy
import enum
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import orjson

from ._aims import Aim

if TYPE_CHECKING:
    from toolsurface.contract._facts import Binding, OwnerFact, WebTools
    from toolsurface.scenarios import Capability, ListChange, Scenario


_A = TypeVar("_A")


class Kind(enum.StrEnum):
    """What a mutation changes."""

    ADD = "add"
    DELETE = "delete"
    RENAME = "rename"
    REORDER = "reorder"
    DESCRIPTION = "description"
    SCHEMA = "schema"
    CONTROL = "control"
    #: Who may narrow the surface: tools hidden or shown without a trusted owner fact, and
    #: look-alike facts and diagnostics that must change nothing.
    AVAILABILITY = "availability"
    #: An entry request's capability summary claiming more than access.
    ENTRY = "entry"
    #: What is sent differs from what was checked in its wire form: a provider conversion rewrote
    #: the input schema, or a wire field beyond the three (`strict`, MCP `title`, `annotations`,
    #: `outputSchema`) changed.
    WIRE = "wire"
    LEGITIMATE = "legit"
    #: The MCP server the host discovered its tools from changes its list mid-request.
    MCP = "mcp"
    #: Several edits made in turn at one boundary: what the explorer composes, never planned.
    COMPOSED = "composed"
    #: Nothing in the request changes, but the model provider fails its model call: how the request
    #: ends is what is judged.
    FAILURE = "failure"


class Delivery(enum.StrEnum):
    """How a change reaches the request."""

    #: New objects: the edited tools (and the list) are fresh; the old ones stay as they were.
    REPLACE = "replace"
    #: The existing objects are edited, reaching anything else that shares them.
    IN_PLACE = "in_place"


class Reach(enum.StrEnum):
    """Which of the boundaries a target offers a mutation is tried at."""

    #: Every boundary: where a change is made decides what the host must have seen.
    EVERY = "every"
    #: The last boundary before each model call: the change tests how the host compares, which
    #: its final check does wherever the change was made.
    LAST = "last"
    #: The first boundary before each model call: what follows it, the context fit included, is
    #: all judged.
    FIRST = "first"


class Must(enum.StrEnum):
    """What a correct guard must do with the mutation."""

    REFUSE = "refuse"
    DISPATCH = "dispatch"
    #: End in the provider's failure, settled once, as `failed` or `dispatched`; never as a refusal.
    FAIL = "fail"


class MutationNotApplicable(Exception):
    """The live request at the injection point no longer has what the mutation aims at."""


class NotCarried(MutationNotApplicable):
    """The target's tool format has no place for the wire field the mutation changes: the change
    cannot reach what that target sends, so on it the case is equivalent."""


class ToolAccess(Protocol):
    """What mutators need from a tool format accessor (`toolsurface.ToolFormat` provides it)."""

    def get_name(self, tool: Any) -> str: ...
    def set_name(self, tool: Any, value: str) -> None: ...
    def get_description(self, tool: Any) -> str: ...
    def set_description(self, tool: Any, value: str) -> None: ...
    def get_schema(self, tool: Any) -> dict[str, Any]: ...
    def set_schema(self, tool: Any, value: dict[str, Any]) -> None: ...
    def carries(self, field: str) -> bool: ...
    def get_wire(self, tool: Any) -> dict[str, Any]: ...
    def set_wire(self, tool: Any, field: str, value: Any) -> None: ...
    def build(self, descriptor: Any) -> Any: ...


class ToolServer(Protocol):
    """What list-change mutators need of the MCP server a host lists its tools from (`ports.mcp`)."""

    def change(self, change: ListChange) -> None: ...


class ModelProvider(Protocol):
    """What failure mutators need of the model provider the request is sent to (`ports.gateway`)."""

    def fail(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Mutation:
    """One concrete change: a mutator, a delivery and a resolved aim."""

    #: Registry key of the mutator, `kind.variant`.
    mutator: str
    kind: Kind
    variant: str
    delivery: Delivery
    #: What it touches; `str(aim)` is the readable form ids carry (`name@2`, `tool:/json/pointer`, `0<->3`).
    aim: Aim
    must: Must

    @property
    def label(self) -> str:
        """The mutation's part of a case id."""
        return f"{self.kind}.{self.delivery}:{self.variant}:{self.aim}"


@dataclass(frozen=True, slots=True)
class Edit:
    """The live request at an injection point, and the change to make to it."""

    tools: list[Any]
    messages: list[dict[str, Any]]
    fmt: ToolAccess
    delivery: Delivery
    aim: Aim
    scenario: Scenario
    #: The owner-fact feed the target reads availability from; a mutation may record into it.
    facts: list[OwnerFact] = field(default_factory=list)
    #: The MCP server the target may list its tools from; a list-change mutation changes it.
    server: ToolServer | None = None
    #: The model provider the request goes to; a failure mutation makes it fail.
    provider: ModelProvider | None = None

    def index_of(self, name: str) -> int:
        """Position of the first live tool called `name`."""
        for index, tool in enumerate(self.tools):
            if self.fmt.get_name(tool) == name:
                return index
        raise MutationNotApplicable(f"no tool named {name!r} in the request at this point")

    def with_tools(self, tools: list[Any]) -> tuple[list[Any], list[dict[str, Any]]]:
        """Deliver a new tool sequence: a new list, or the live list rewritten in place."""
        if self.delivery is Delivery.REPLACE:
            return tools, self.messages
        self.tools[:] = tools
        return self.tools, self.messages

    def with_messages(self, messages: list[dict[str, Any]]) -> tuple[list[Any], list[dict[str, Any]]]:
        if self.delivery is Delivery.REPLACE:
            return self.tools, messages
        self.messages[:] = messages
        return self.tools, self.messages

    def edit_tool(self, name: str, change: Callable[[Any], None]) -> tuple[list[Any], list[dict[str, Any]]]:
        """Change one tool: a changed deep copy in a new list, or the live tool object itself."""
        index = self.index_of(name)
        if self.delivery is Delivery.IN_PLACE:
            change(self.tools[index])
            return self.tools, self.messages
        tools = list(self.tools)
        tools[index] = fresh_copy(self.tools[index])
        change(tools[index])
        return tools, self.messages


def fresh_copy(tool: Any) -> Any:
    """A deep copy sharing nothing with the original; JSON round trip for plain dicts (much faster)."""
    if type(tool) is dict:
        try:
            return orjson.loads(orjson.dumps(tool))
        except (TypeError, orjson.JSONDecodeError):
            pass
    return copy.deepcopy(tool)


@dataclass(frozen=True, slots=True)
class Example:
    """A surface before and after one application; both are lists of logical tool dicts."""

    aim: Aim
    before: Sequence[dict[str, Any]]
    after: Sequence[dict[str, Any]]
    #: The host's control catalogue; the eligible ones close `before`, in catalogue order.
    controls: Sequence[dict[str, Any]] = ()
    #: Names of the controls the host made eligible this turn.
    eligible_controls: tuple[str, ...] = ()
    #: Tools admitted to other scopes of the same run.
    admitted_elsewhere: Sequence[dict[str, Any]] = ()
    #: The conversation handed over with the tools.
    messages_before: Sequence[dict[str, str]] = ()
    #: The conversation afterwards; None: unchanged.
    messages_after: Sequence[dict[str, str]] | None = None
    #: The admitted tools when owner facts hide some of them from `before`; None: `before` less its controls.
    admitted: Sequence[dict[str, Any]] | None = None
    #: Owner facts recorded for the scenario, and the web tools they govern.
    facts: Sequence[OwnerFact] = ()
    web_tools: WebTools | None = None
    #: Facts the mutation records into the feed.
    recorded: Sequence[OwnerFact] = ()
    #: entry mode: the capability statements of the contract.
    capabilities: Sequence[Capability] = ()
    #: child lane: the identity of the parent request.
    parent: Binding | None = None
    #: MCP: the server's full list (logical dicts) after the change; None: the example has no server.
    listed_after: Sequence[dict[str, Any]] | None = None


def shown_admitted(scenario: Scenario) -> tuple[Any, ...]:
    """The admitted tools (controls aside) that the expected surface shows: owner facts may hide some."""
    controls = {control.name for control in scenario.contract.controls}
    return tuple(tool for tool in scenario.surface if tool.name not in controls)


def one_of(rng: random.Random, options: Sequence[_A]) -> tuple[_A, ...]:
    """At most one aim: an rng pick among options listed in a stable order."""
    return (rng.choice(options),) if options else ()


class Mutator(ABC):
    """One way to change a request. Subclasses set the class attributes and two methods."""

    kind: ClassVar[Kind]
    variant: ClassVar[str]
    must: ClassVar[Must] = Must.REFUSE
    deliveries: ClassVar[tuple[Delivery, ...]] = (Delivery.REPLACE, Delivery.IN_PLACE)
    reach: ClassVar[Reach] = Reach.EVERY
    #: On a scenario derived at a limit's edge (`Scenario.edge`), the offsets at which this mutator
    #: is planned there, at the last boundary before each model call; elsewhere it is not.
    at_edges: ClassVar[frozenset[int]] = frozenset()
    #: Before/after surfaces, applied with every delivery by the generic mutator test.
    examples: ClassVar[tuple[Example, ...]] = ()

    @classmethod
    def key(cls) -> str:
        return f"{cls.kind}.{cls.variant}"

    @abstractmethod
    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Aim]:
        """What this mutator can hit in the scenario's admitted surface; same rng, same aims."""

    @abstractmethod
    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        """Make the change; return the tools and messages the pipeline goes on with."""

    def records(self, scenario: Scenario, aim: Aim) -> tuple[OwnerFact, ...]:
        """The owner facts an application records into the feed. The oracle's expected surface
        counts the trusted ones, so the harness learns them here, never from the target."""
        return ()

    def aim_of(self, edit: Edit, kind: type[_A]) -> _A:
        """The edit's aim, which must be a `kind`: any other aim is a caller's mistake, not a case."""
        if not isinstance(edit.aim, kind):
            raise TypeError(f"{self.key()} takes {kind.__name__} aims, not {edit.aim!r}")
        return edit.aim

    def mutations(self, scenario: Scenario, rng: random.Random) -> Iterable[Mutation]:
        for aim in self.aims(scenario, rng):
            for delivery in self.deliveries:
                yield Mutation(self.key(), self.kind, self.variant, delivery, aim, self.must)
