"""What every framework target shares: the request being prepared, the agent kept per scenario,
and how a run ends in exactly one settlement.

Each framework module converts its own live objects to logical views at its boundaries; what is
decided about those views — expected surface, parity, capacity, settlement — is decided by the
public guard (`toolsurface.guard`), once.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, NoReturn

from toolsurface.contract._canonical import Snapshot, snapshot_of
from toolsurface.contract._formats import LOGICAL
from toolsurface.contract._guard import GuardedRequest
from toolsurface.contract._guard import SurfaceGuard as PublicGuard
from toolsurface.contract._owner import Settlement
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.scenarios import Scenario

#: The tool views every framework target shows: logical dicts of name, description and input schema.
#: The frameworks' tool objects built from a scenario keep no wire field (`strict`, MCP titles,
#: annotations, output schemas), so nothing else is compared; a change to one is equivalent here.
VIEWS = LOGICAL.only(())


class AgentTarget:
    """A toolsurface target (`toolsurface.Target`) around one framework's agent; `run` is the framework's."""

    refusals: ClassVar[tuple[type[BaseException], ...]] = (RequestRefused,)
    capacity_results: ClassVar[tuple[type[BaseException], ...]] = (CapacityExceeded,)
    #: Mutators see the framework's tools as logical dicts sharing their live schemas (see each `Crossing`).
    tool_format = "logical"
    #: ...with no wire field beyond the three: see `VIEWS`.
    wire_fields: tuple[str, ...] = ()
    framework: ClassVar[str]

    def __init__(self, guarded: bool) -> None:
        self.guarded = guarded
        self.name = f"{self.framework}:{'guarded' if guarded else 'stock'}"
        self.agent_for = KeptAgents(self.build_agent)

    def build_agent(self, scenario: Scenario) -> Any:
        """The framework's agent for this contract, as a host builds it once."""
        raise NotImplementedError


class KeptAgents:
    """One agent per scenario, as a host keeps one per configuration: built for the scenario's
    first request and handed every later one, so whatever a run leaves on it reaches the next."""

    def __init__(self, build: Callable[[Scenario], Any]) -> None:
        self._build = build
        self._agents: dict[str, tuple[Scenario, Any]] = {}

    def __call__(self, scenario: Scenario) -> Any:
        """The agent kept for the scenario's contract, built on first use."""
        kept = self._agents.get(scenario.id)
        if kept is None or (kept[0] is not scenario and kept[0] != scenario):
            kept = self._agents[scenario.id] = (scenario, self._build(scenario))
        return kept[1]


class FrameworkRefused(RequestRefused):
    """The framework itself refused the request before the model was called."""

    def __init__(self, framework: str, checkpoint: str, message: str) -> None:
        super().__init__(checkpoint)
        self.framework = framework
        self.message = message

    def __str__(self) -> str:
        return f"{self.framework} refused the tool list: {self.message}"


@dataclass(slots=True)
class PreparedRequest:
    """One request being prepared: what every stage of a framework target reads and settles through.

    Its checks and its single settlement are the public guard's (`toolsurface.guard`), on the
    harness's ports as the request's owner; a stock target uses them only to narrow and settle.
    """

    scenario: Scenario
    ports: Any
    guarded: GuardedRequest
    #: The sealed record of the request, once the seal stage ran.
    seal: Snapshot | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, scenario: Scenario, ports: Any) -> Any:
        """Reserve the request in its lane's ledger: every way the run ends settles this reservation."""
        return cls(scenario, ports, contract_guard(scenario).request(ports.owner()))

    @property
    def dispatched(self) -> bool:
        return self.guarded.dispatched

    def sent(self) -> None:
        self.guarded.sent()

    def hidden(self) -> frozenset[str]:
        """What the trusted owner facts bound to this request hide, read from the feed as it is now."""
        return self.guarded.hidden()

    def narrowed(self) -> None:
        """The live tools were just narrowed by what trusted owner facts hide now: from here on the
        request can no longer be as an earlier read left it (a reveal is a change)."""
        self.guarded.narrowed(())

    def settle(self, settlement: Settlement, note: str = "") -> None:
        self.guarded.settle(settlement, note)

    def refuse(self, refusal: RequestRefused) -> NoReturn:
        self.guarded.refuse(refusal)


def contract_guard(scenario: Scenario) -> PublicGuard:
    """The public guard of a scenario's contract: its recorded descriptors as bytes, taken before
    any tool object exists, so nothing can share them."""
    contract = scenario.contract
    return PublicGuard(
        snapshot_of(contract.surface, VIEWS), VIEWS, web_tools=contract.web_tools, summary=contract.summary
    )


#: How a recorded tool result names its tool: `[market__web_read] …`.
TOOL_RESULT_NAME = re.compile(r"^\[([A-Za-z0-9_.\-]+)\]")


class CallIds:
    """Tool-call ids for tool results that arrive without a call, unique within one run."""

    def __init__(self, prefix: str = "recorded") -> None:
        self._prefix = prefix
        self._next = itertools.count(1)

    def __call__(self) -> str:
        return f"toolsurface_{self._prefix}_{next(self._next)}"


def write_back(tool: Any, view: dict[str, Any], before: dict[str, Any], schema_attribute: str) -> None:
    """Put a tool view's edits onto the framework's own tool object, and only what changed, so an
    unchanged tool stays exactly as the framework made it."""
    if view["name"] != before["name"]:
        tool.name = view["name"]
    if view["description"] != before["description"]:
        tool.description = view["description"]
    if view["input_schema"] is not before["input_schema"]:
        setattr(tool, schema_attribute, view["input_schema"])


def same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """The same objects in the same order: nothing to write back."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


async def settle_run(
    request: PreparedRequest,
    run: Awaitable[Any],
    framework_refusal: Callable[[Exception], RequestRefused | None] | None = None,
) -> None:
    """Await the framework's run and settle the reservation once, however it ends (see
    `GuardedRequest.settling`); a run that never called the model is an error, never a pass."""
    with request.guarded.settling(framework_refusal):
        await run
    if not request.dispatched:
        raise RuntimeError("the agent run ended without calling the model")
