"""Value types of a recorded request pipeline.

Everything here is frozen. JSON-valued fields (input schemas, stage metadata) are kept as the
bytes they were recorded as, so no caller can edit a scenario through a shared dict: each read
hands out a fresh object.
"""

from __future__ import annotations

import enum
import functools
import re
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolsurface.contract._facts import Binding, OwnerFact, WebTools, hidden_by
from toolsurface.contract._formats import ToolDescriptor
from toolsurface.contract._guard import SUMMARY_HEADER
from toolsurface.contract._json import loads

from ._boundary import OWN_POINT_PATTERN, POINTS, Boundary, Point


class Lane(enum.StrEnum):
    """Which request owner a pipeline belongs to; each has its own ledger."""

    MAIN = "main"
    CHILD = "child"


class Mode(enum.StrEnum):
    """What a request is for; it decides what the model is shown besides messages."""

    #: A research turn: the admitted tool list.
    RESEARCH = "research"
    #: An entry turn: a short, current summary of host capabilities instead of research tools.
    ENTRY = "entry"


class RequestOutcome(enum.StrEnum):
    """How the unmutated recorded request ends."""

    DISPATCHED = "dispatched"
    #: The context budget cannot hold the required tools: an explicit capacity result, no dispatch.
    CAPACITY = "capacity"


class StageKind(enum.StrEnum):
    """A recorded stage, in the only order a pipeline may run them; a host's own stages (`OWN`)
    may come anywhere among them."""

    #: Resume an interrupted request from its sealed receipt.
    RECOVER = "recover"
    HOOK = "hook"
    REVALIDATE = "revalidate"
    CONTEXT_FIT = "context_fit"
    EVIDENCE = "evidence"
    PUBLICATION = "publication"
    ASYNC_PREP = "async_prep"
    SEAL = "seal"
    #: A stage of the host's own (an agent's middleware or hook), named by the boundary that
    #: follows it: a recording of a target that offers boundaries of its own is made of these.
    OWN = "own"

    @property
    def point(self) -> Point:
        """The injection point that follows this stage; an own stage names its own (`Stage.point`)."""
        if self is StageKind.OWN:
            raise ValueError("an own stage names the boundary that follows it: read Stage.point")
        return _POINT_AFTER[self]


#: The stages whose boundary is one of `Point`, in pipeline order.
RECORDED_KINDS: tuple[StageKind, ...] = tuple(kind for kind in StageKind if kind is not StageKind.OWN)

#: Each stage is followed by the point of the same position: the two enums are in pipeline order.
_POINT_AFTER = dict(zip(RECORDED_KINDS, Point, strict=True))

#: The stage each injection point follows.
_KIND_BEFORE = {point: kind for kind, point in _POINT_AFTER.items()}


_OWN_POINT = re.compile(OWN_POINT_PATTERN)


def own_point_problem(name: str) -> str | None:
    """Why `name` cannot name a boundary of a host's own, or None when it can."""
    if name in POINTS:
        return (
            f"{name!r} is the point of a recorded {_KIND_BEFORE[Point(name)].value!r} stage: a stage of the "
            "host's own names a boundary of its own"
        )
    if not _OWN_POINT.match(name):
        return (
            f"{name!r} must be 1 to 64 characters with no '/', '@', '*', '?', '[', ']', whitespace or control "
            "characters (it becomes part of case ids)"
        )
    return None


#: The wire fields a tool may carry beyond name, description and input schema, in the order a
#: snapshot lists them: OpenAI's and Anthropic's `strict`, MCP's `title`, `annotations` and
#: `outputSchema` (here `output_schema`, as the scenario format spells it).
@dataclass(frozen=True, slots=True)
class Identity:
    """Who a request belongs to; owner facts and settlements are bound to it."""

    run: str
    scope: str
    invocation: str
    connection: str
    request: str
    #: A child request's parent: the identity the parent's own facts are bound to, never the child's.
    parent: Binding | None = None


class Access(enum.StrEnum):
    """What an entry summary may say of a capability: access, never a result."""

    ACCESSIBLE = "accessible"
    REFERENCE_APPROVED = "reference approved"
    NOT_GRANTED = "not granted"


@dataclass(frozen=True, slots=True)
class Capability:
    """One line of an entry request's capability summary."""

    #: Short and stable, for case ids.
    id: str
    subject: str
    access: Access

    def __str__(self) -> str:
        return f"- {self.subject}: {self.access}"


#: The first line of every capability summary; the gateway finds the summary by it.


def capability_summary(capabilities: Iterable[Capability]) -> str:
    """The summary text for these capability statements: the header, then one line each."""
    return "\n".join((SUMMARY_HEADER, *map(str, capabilities)))


@dataclass(frozen=True, slots=True)
class Contract:
    """What the owners admitted for this turn."""

    admitted: tuple[ToolDescriptor, ...]
    #: Control tools the host knows how to offer, eligible or not.
    controls: tuple[ToolDescriptor, ...] = ()
    #: Names of the controls the host/fitting entry made eligible this turn.
    eligible_controls: frozenset[str] = frozenset()
    #: Tools admitted to other scopes of the same run, never to this request.
    admitted_elsewhere: tuple[ToolDescriptor, ...] = ()
    #: Availability facts the owners recorded for the run, trusted or not: each is judged by `rule`.
    facts: tuple[OwnerFact, ...] = ()
    #: The web search and web read tools those facts govern.
    web_tools: WebTools | None = None
    #: entry mode: what the host may say it can do this turn.
    capabilities: tuple[Capability, ...] = ()

    @property
    def surface(self) -> tuple[ToolDescriptor, ...]:
        """The admitted surface: admitted tools, then eligible controls in catalogue order."""
        eligible = tuple(c for c in self.controls if c.name in self.eligible_controls)
        return self.admitted + eligible

    @property
    def ineligible_controls(self) -> tuple[ToolDescriptor, ...]:
        return tuple(c for c in self.controls if c.name not in self.eligible_controls)

    @property
    def summary(self) -> str | None:
        """The capability summary an entry request must carry, word for word; None outside entry mode."""
        return capability_summary(self.capabilities) if self.capabilities else None


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class Stage:
    """One recorded stage and the legitimate effect it had on the request."""

    kind: StageKind
    #: context_fit (and own, when that is what it did): how many messages remain after compression.
    keep_messages: int | None = None
    #: context_fit (and the own stage a recording gives it to): the token budget the request had to fit in.
    budget_tokens: int | None = None
    #: context_fit: the provider's limit on tools per request (128 at OpenAI); None when it has none.
    max_tools: int | None = None
    #: evidence (and own, when that is what it did): messages the stage appended.
    add_messages: tuple[Message, ...] = ()
    #: async_prep: request metadata the stage attached, as JSON bytes.
    metadata_json: bytes = b"{}"
    #: revalidate: the owners rebuild the tool objects from their own descriptors.
    rebuild: bool = False
    #: recover: the sealed receipt the interrupted request resumes from.
    receipt: str | None = None
    #: own: the host's name for the boundary that follows the stage (`after:ProviderLimit`).
    own_point: str | None = None

    @property
    def point(self) -> str:
        """The boundary that follows the stage: its kind's injection point, or an own stage's name."""
        if self.kind is StageKind.OWN:
            assert self.own_point is not None, "an own stage names its point"
            return self.own_point
        return self.kind.point

    @property
    def fits(self) -> bool:
        """Whether the request must fit a token budget here: a context fit, or an own stage that
        carries one (the budget its recording was given)."""
        return self.budget_tokens is not None

    @property
    def metadata(self) -> dict[str, Any]:
        return loads(self.metadata_json)


class ListChangeKind(enum.StrEnum):
    """What an MCP server does to its tool list mid-request."""

    ADD = "add"
    REMOVE = "remove"
    #: The tool is listed again under its name with another description or input schema.
    UPDATE = "update"


@dataclass(frozen=True, slots=True)
class ListChange:
    """A change the server makes to its `tools/list`, followed by `notifications/tools/list_changed`."""

    change: ListChangeKind
    #: The tool it touches.
    name: str
    #: add, update: the tool as the server lists it from then on; remove: None.
    tool: ToolDescriptor | None = None
    #: The boundary at which the server makes it (recorded changes; a mutation's is the case's).
    point: Boundary | None = None


@dataclass(frozen=True, slots=True)
class McpListing:
    """How the recorded host's MCP server lists its tools: in pages, and changing mid-request."""

    #: Tools per `tools/list` page (a host must follow `nextCursor`); None: one page.
    page_size: int | None = None
    #: Changes the server makes during the unmutated request, in order; none touches the admitted surface.
    list_changes: tuple[ListChange, ...] = ()


class Limit(enum.StrEnum):
    """A limit a recording declares on what one model call may hold."""

    #: context_fit `max_tools`: tools per request.
    MAX_TOOLS = "max_tools"
    #: context_fit `budget_tokens`: the estimated tokens of the tools and the fitted messages.
    BUDGET_TOKENS = "budget_tokens"
    #: MCP `page_size`: tools per `tools/list` page; the measure is how far down the list the
    #: last tool the request needs is.
    PAGE_SIZE = "page_size"


@dataclass(frozen=True, slots=True)
class Edge:
    """What makes a scenario derived from a recording one at a limit's edge: the limit set so
    that the request's measure of it is `limit + offset` (-1: one to spare; 0: exactly at it;
    +1: over it by one)."""

    limit: Limit
    offset: int
    #: The request's measure: tools, estimated tokens, or list position of the last needed tool.
    measure: int
    #: The scenario it was derived from.
    source: str

    @property
    def value(self) -> int:
        """The limit as the derived scenario sets it."""
        return self.measure - self.offset

    def __str__(self) -> str:
        return f"{self.limit}{self.offset:+d}" if self.offset else str(self.limit)

    @property
    def said(self) -> str:
        """The edge in words: `max_tools set to 127, the request holding 128 tools: one over it`."""
        where = {-1: "one under it", 0: "exactly at it", 1: "one over it"}[self.offset]
        if self.limit is Limit.PAGE_SIZE:
            needed = f"the last tool the request needs number {self.measure} listed"
            return f"page_size set to {self.value}, {needed}: {where}"
        return f"{self.limit} set to {self.value}, the request holding {self.measure} {self.unit}: {where}"

    @property
    def unit(self) -> str:
        """What the measure counts."""
        return {Limit.MAX_TOOLS: "tools", Limit.BUDGET_TOKENS: "estimated tokens"}.get(self.limit, "tools listed")


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call the model's reply made, and the result the host's tool gave back."""

    name: str
    #: The arguments as JSON bytes, so no caller edits the recording through a shared dict.
    arguments_json: bytes
    result: str

    @property
    def arguments(self) -> dict[str, Any]:
        return loads(self.arguments_json)


@dataclass(frozen=True, slots=True)
class Step:
    """A further model call of the same request: the tool calls the previous reply made, whose
    results the host sends back, and the stages it ran again before this call."""

    calls: tuple[ToolCall, ...]
    stages: tuple[Stage, ...]


@dataclass(frozen=True, slots=True)
class Publication:
    """A body that was already publishable before this request was prepared."""

    id: str
    body: str


@dataclass(frozen=True, slots=True)
class Scenario:
    """A recorded request pipeline: the contract, the request, and the stages it went through."""

    id: str
    description: str
    mode: Mode
    lane: Lane
    identity: Identity
    #: The shape the recorded host gives its live tool objects (see `toolsurface.FORMATS`).
    tool_format: str
    contract: Contract
    messages: tuple[Message, ...]
    hooks: bool
    stages: tuple[Stage, ...]
    publication: Publication | None = None
    outcome: RequestOutcome = RequestOutcome.DISPATCHED
    #: The recorded host discovered its tools over MCP from a server that lists them so; None: no recorded server.
    mcp: McpListing | None = None
    #: The model calls after the first, each after the tool calls of the reply before it; every
    #: one must carry the admitted surface, less what trusted facts in force by then hide.
    steps: tuple[Step, ...] = ()
    #: A scenario derived from a recording at one of its limits' edges (`harness._edges`); None: as recorded.
    edge: Edge | None = None
    #: The file it was loaded from, for messages and reproduce commands.
    source: str = field(default="", compare=False)
    #: sha256 of the recording's canonical JSON: whitespace and key order aside, the same recording.
    digest: str = field(default="", compare=False)
    #: The JSON document it was loaded from, compressed (empty when built in code): only
    #: re-recording reads it, and decoded it would take several times the memory of the rest.
    recorded: bytes = field(default=b"", compare=False, repr=False)

    @property
    def document(self) -> Mapping[str, Any]:
        """The JSON document it was loaded from, decoded anew (empty when built in code), for re-recording it."""
        return loads(zlib.decompress(self.recorded)) if self.recorded else {}

    @property
    def binding(self) -> Binding:
        """The identity owner facts must be bound to for this request."""
        return _binding(self.identity)

    @property
    def surface(self) -> tuple[ToolDescriptor, ...]:
        """The expected surface of the last model call: the admitted one, narrowed by exactly the
        trusted owner facts recorded for the run, whether before the pipeline or mid-run."""
        return self.surface_at(self.model_calls)

    def surface_at(self, call: int) -> tuple[ToolDescriptor, ...]:
        """The expected surface of the `call`-th model call: narrowed by the facts in force by then."""
        return self.narrowed_by((), call)

    def narrowed_by(self, facts: tuple[OwnerFact, ...], call: int | None = None) -> tuple[ToolDescriptor, ...]:
        """The expected surface of the `call`-th model call (default: the last) once `facts` have
        also been recorded: a mutation that records a trusted fact narrows it further; an untrusted
        one changes nothing."""
        arrived = self.contract.facts
        if call is not None:
            arrived = tuple(
                fact for fact in arrived if fact.arrives is None or Boundary.parse(fact.arrives).call <= call
            )
        return _narrowed(self.contract, self.binding, arrived + facts)

    @property
    def model_calls(self) -> int:
        """How many model calls the recorded request makes."""
        return 1 + len(self.steps)

    def stages_of(self, call: int) -> tuple[Stage, ...]:
        """The stages the host runs before its `call`-th model call."""
        return self.stages if call == 1 else self.steps[call - 2].stages

    @property
    def checkpoints(self) -> tuple[Boundary, ...]:
        """Every boundary this pipeline exposes, in order: the first call's `points`, then each later call's."""
        first = tuple(Boundary(point) for point in self.points)
        return first + tuple(
            Boundary(stage.point, call) for call in range(2, self.model_calls + 1) for stage in self.stages_of(call)
        )

    @property
    def request_messages(self) -> tuple[Message, ...]:
        """The messages the request opens with: an entry request's capability summary comes first."""
        summary = self.contract.summary
        return self.messages if summary is None else (Message("system", summary), *self.messages)

    @property
    def points(self) -> tuple[str, ...]:
        """The injection points this pipeline exposes, in order.

        A request over capacity stops where it is fitted, so it offers only the points before it.
        """
        stages = self.stages
        if self.outcome is RequestOutcome.CAPACITY:
            stages = stages[: next(i for i, s in enumerate(stages) if s.fits)]
        return tuple(stage.point for stage in stages)

    @property
    def fit(self) -> Stage | None:
        """The stage that fits the request to its token budget (`Stage.fits`); None when none does."""
        return next((s for s in self.stages if s.fits), None)

    def __hash__(self) -> int:
        # Equal scenarios have equal ids; hashing every descriptor of a 140-tool contract on each
        # cache lookup (one per case per role) would cost more than the lookup saves.
        return hash(self.id)

    def stage(self, kind: StageKind) -> Stage | None:
        return next((s for s in self.stages if s.kind is kind), None)


@functools.lru_cache(maxsize=256)
def _binding(identity: Identity) -> Binding:
    return Binding(identity.run, identity.scope, identity.invocation, identity.connection)


@functools.lru_cache(maxsize=256)
def _narrowed(contract: Contract, binding: Binding, facts: tuple[OwnerFact, ...]) -> tuple[ToolDescriptor, ...]:
    hidden = hidden_by(facts, binding, contract.web_tools)
    return tuple(tool for tool in contract.surface if tool.name not in hidden)
