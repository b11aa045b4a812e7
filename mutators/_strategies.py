"""Hypothesis strategies: realistic surfaces, scenarios around them, and composed edit sequences.

They serve the property every mutator must keep ("apply it, diff, and the diff names exactly the
change it made") and any later property test of the canonical form, the diff or the guard.
Everything shrinks toward small, realistic values: short surfaces of market-research tools.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st

from toolsurface.contract._facts import Binding, FactKind, OwnerFact, WebTools
from toolsurface.contract._formats import ToolDescriptor
from toolsurface.scenarios import Scenario

from ._aims import Aim
from ._base import (
    Delivery,
    Edit,
    Kind,
    Must,
    Mutation,
    MutationNotApplicable,
    Mutator,
    NotCarried,
)
from ._fixtures import READ_TOOL_RESULT
from ._registry import MUTATORS, by_key
from ._testing import BINDING, descriptor, minimal_scenario

#: Tool names every scenario file accepts.
NAME_PATTERN = r"[A-Za-z0-9_.-]{1,64}"

_OWNERS = ("market", "portfolio", "news", "filings", "fx")
_ACTIONS = ("search_instruments", "get_instrument_profile", "web_search", "web_read", "get_holdings", "get_quotes")
_SENTENCES = (
    "Search listed instruments by name, ticker or ISIN.",
    "Read the public profile of one instrument.",
    "Search public web sources for recent news about an instrument.",
    "List the user's current holdings.",
    "Quote the last traded price in the listing currency.",
)
_PROPERTIES = ("symbol", "query", "limit", "currency", "sections", "as_of", "asset_class", "url", "price/earnings")
_WORDS = ("etf", "stock", "bond", "fund", "EUR", "USD", "overview", "fees")
_DEFS = ("Symbol", "Money", "AccountRef", "DateRange")


def tool_names() -> st.SearchStrategy[str]:
    """Names like `market__web_search`, sometimes any name a scenario file accepts."""
    realistic = st.builds("{}__{}".format, st.sampled_from(_OWNERS), st.sampled_from(_ACTIONS))
    return st.one_of(realistic, st.from_regex(NAME_PATTERN, fullmatch=True))


def _without_none(**fields: Any) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if value is not None}


def _object(properties: dict[str, Any], flags: list[bool], closed: bool | None) -> dict[str, Any]:
    required = [name for name, flag in zip(properties, flags, strict=False) if flag]
    return _without_none(type="object", properties=properties, required=required or None, additionalProperties=closed)


def _objects(children: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    # One flag per property says whether it is required; `closed` sets additionalProperties.
    flags = st.lists(st.booleans(), max_size=4)
    closed = st.sampled_from((None, False, True))
    return st.builds(_object, st.dictionaries(_PROPERTY_NAMES, children, max_size=4), flags, closed)


# Strategies are built once, here: one made afresh inside every draw is validated afresh, and
# that alone made generation many times slower.
_TEXTS = st.one_of(st.sampled_from(_SENTENCES), st.text(min_size=1, max_size=80))
_PROPERTY_NAMES = st.one_of(st.sampled_from(_PROPERTIES), st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True))
_LEAVES = st.one_of(
    st.builds(
        lambda description, enum, format: _without_none(
            type="string", description=description, enum=enum, format=format
        ),
        st.none() | st.sampled_from(_SENTENCES),
        st.none() | st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4, unique=True),
        st.none() | st.sampled_from(("date", "uri")),
    ),
    st.builds(
        lambda low, span: {"type": "integer", "minimum": low, "maximum": low + span},
        st.integers(0, 10),
        st.integers(1, 100),
    ),
    st.builds(
        lambda codes: {"type": "integer", "enum": codes},
        st.lists(st.integers(1, 9), min_size=1, max_size=3, unique=True),
    ),
    st.builds(dict, type=st.sampled_from(("number", "boolean", ["string", "null"]))),
)
_PROPERTY_SCHEMAS = st.recursive(
    _LEAVES,
    lambda children: st.one_of(
        st.builds(lambda items: {"type": "array", "items": items}, children), _objects(children)
    ),
    max_leaves=4,
)
_ROOTS = _objects(_PROPERTY_SCHEMAS)
_DEFINITIONS = st.dictionaries(st.sampled_from(_DEFS), _PROPERTY_SCHEMAS, max_size=2)
_MESSAGES = st.lists(
    st.builds(lambda role, content: {"role": role, "content": content}, st.sampled_from(("user", "assistant")), _TEXTS),
    min_size=1,
    max_size=7,
)
_CONTROL_STATES = st.sampled_from(("none", "ineligible", "eligible"))
_REFS = st.lists(st.from_regex(r"src_[0-9a-f]{4}", fullmatch=True), max_size=3, unique=True).map(tuple)


@st.composite
def owner_facts(draw: st.DrawFn, binding: Binding = BINDING) -> OwnerFact:
    """An availability fact that is trusted for `binding`, or wrong in its owner or one identity field."""
    kind = draw(st.sampled_from(FactKind))
    owner = draw(st.sampled_from((kind.producer, kind.producer, "mcp:market")))
    wrong = draw(st.sampled_from((None, None, "run", "scope", "invocation", "connection")))
    bound_to = binding if wrong is None else dataclasses.replace(binding, **{wrong: f"{getattr(binding, wrong)}-x"})
    refs = draw(_REFS) if kind is FactKind.SEARCH_BUDGET_EXHAUSTED else ()
    return OwnerFact(kind, owner, bound_to, refs)


@st.composite
def input_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Object schemas with nested objects, arrays and enums, sometimes `$defs` used by `$ref`."""
    schema = draw(_ROOTS)
    definitions = draw(_DEFINITIONS)
    for name in definitions:
        schema["properties"][name.lower()] = {"$ref": f"#/$defs/{name}"}
    return {**schema, "$defs": definitions} if definitions else schema


def tool_descriptors() -> st.SearchStrategy[ToolDescriptor]:
    """One realistic logical tool."""
    return st.builds(ToolDescriptor.of, tool_names(), _TEXTS, input_schemas())


def surfaces(min_size: int = 1, max_size: int = 8) -> st.SearchStrategy[tuple[ToolDescriptor, ...]]:
    """Admitted surfaces: tools with unique names, in order."""
    return st.lists(tool_descriptors(), min_size=min_size, max_size=max_size, unique_by=_name).map(tuple)


def _name(tool: ToolDescriptor) -> str:
    return tool.name


_ELSEWHERE = st.lists(tool_descriptors(), max_size=2, unique_by=_name)


@st.composite
def scenarios_for(draw: st.DrawFn, surface: Iterable[ToolDescriptor]) -> Scenario:
    """A minimal scenario around `surface`: maybe a control (eligible or not), maybe tools admitted
    elsewhere, maybe two of its tools named the web tools with owner facts (trusted or not) about
    them, and a short conversation. Use as `surfaces().flatmap(scenarios_for)`."""
    admitted = tuple(surface)
    names = {tool.name for tool in admitted}
    control = descriptor(READ_TOOL_RESULT)
    state = draw(_CONTROL_STATES) if control.name not in names else "none"
    elsewhere = [tool for tool in draw(_ELSEWHERE) if tool.name not in names]
    web, facts = None, []
    if len(admitted) >= 2 and draw(st.booleans()):
        search, read = draw(st.permutations(range(len(admitted))))[:2]
        web = WebTools(search=admitted[search].name, read=admitted[read].name)
        facts = draw(st.lists(owner_facts(), max_size=2))
    return minimal_scenario(
        admitted,
        controls=() if state == "none" else (control,),
        eligible_controls=(control.name,) if state == "eligible" else (),
        admitted_elsewhere=elsewhere,
        messages=draw(_MESSAGES),
        facts=facts,
        web_tools=web,
    )


def _applies(edit: Edit, mutator: Mutator) -> bool:
    try:
        # `replace` never touches what it is handed, so trying is free of side effects.
        mutator.apply(edit)
    except MutationNotApplicable:
        return False
    return True


@st.composite
def edit_sequences(
    draw: st.DrawFn,
    scenario: Scenario,
    *,
    min_size: int = 1,
    max_size: int = 3,
    mutators: Iterable[Mutator] | None = None,
) -> tuple[Mutation, ...]:
    """Mutations to apply in order to `scenario`'s request; each still applies after those before it.

    Aims come from `aims(scenario, random.Random(seed))` with a drawn seed, so every step is a
    case the planner could produce. Fewer than `min_size` steps applicable: the draw is rejected.
    """
    # Imported here, not at the top: the harness imports this package to plan its cases.
    from toolsurface.contract._formats import LOGICAL

    if not 0 <= min_size <= max_size:
        raise ValueError(f"{min_size=} and {max_size=} must satisfy 0 <= min_size <= max_size")
    # A failure changes the provider, not the request: no edit sequence holds one.
    pool = tuple(m for m in MUTATORS if m.kind is not Kind.FAILURE) if mutators is None else tuple(mutators)
    tools = [LOGICAL.build(tool) for tool in scenario.surface]
    messages = [message.as_dict() for message in scenario.request_messages]
    steps: list[Mutation] = []
    for _ in range(draw(st.integers(min_size, max_size))):
        seed = draw(st.integers(0, 2**16 - 1))
        options: list[tuple[Mutator, Aim]] = [
            (mutator, aim)
            for mutator in pool
            for aim in mutator.aims(scenario, random.Random(seed))
            if _applies(Edit(tools, messages, LOGICAL, Delivery.REPLACE, aim, scenario), mutator)
        ]
        if not options:
            break
        mutator, aim = draw(st.sampled_from(options))
        delivery = draw(st.sampled_from(mutator.deliveries))
        tools, messages = mutator.apply(Edit(tools, messages, LOGICAL, Delivery.REPLACE, aim, scenario))
        steps.append(Mutation(mutator.key(), mutator.kind, mutator.variant, delivery, aim, mutator.must))
    if len(steps) < min_size:
        reject()
    return tuple(steps)


@dataclass(frozen=True, slots=True)
class MutatedRequest:
    """One request before and after one mutation, its tools shaped the way a host shapes them."""

    mutation: Mutation
    #: The admitted tools, as the host built them before any stage ran.
    admitted: tuple[Any, ...]
    #: The tools and messages after the mutation.
    tools: tuple[Any, ...]
    messages: tuple[dict[str, Any], ...]
    #: Owner facts the mutation recorded (a forged fact, say); they change no surface.
    facts: tuple[OwnerFact, ...]

    @property
    def must(self) -> Must:
        """Whether a guard must refuse the changed request (`REFUSE`) or let it through (`DISPATCH`)."""
        return self.mutation.must


@st.composite
def mutated_requests(draw: st.DrawFn, scenario: Scenario, tool_format: str = "logical") -> MutatedRequest:
    """One mutation of `scenario`'s request, applied to tools in `tool_format` (`logical`, `openai`,
    `anthropic`, `mcp`), by either delivery. A change that leaves the surface canonically equal
    while it must be refused (reordering one tool) is never drawn: there is nothing to refuse.
    Use as `surfaces().flatmap(scenarios_for).flatmap(mutated_requests)`."""
    from toolsurface.contract._canonical import capture
    from toolsurface.contract._formats import FORMATS

    fmt = FORMATS[tool_format]
    (mutation,) = draw(edit_sequences(scenario, min_size=1, max_size=1))
    admitted = [fmt.build(tool) for tool in scenario.surface]
    before = [message.as_dict() for message in scenario.request_messages]
    facts: list[OwnerFact] = []
    live = [fmt.build(tool) for tool in scenario.surface]
    edit = Edit(live, before, fmt, mutation.delivery, mutation.aim, scenario, facts)
    try:
        tools, messages = by_key(mutation.mutator).apply(edit)
    except NotCarried:
        reject()  # a wire field this format has no place for: nothing it could send changes
    if mutation.must is Must.REFUSE and capture(tools, fmt) == capture(admitted, fmt):
        reject()
    return MutatedRequest(mutation, tuple(admitted), tuple(tools), tuple(messages), tuple(facts))
