"""A composed change: two or three registered edits made one after another at one boundary.

Only the explorer makes them (`harness/_explore.py`, from `edit_sequences`): a legitimate edit
beside an illegitimate one, a fact recorded and a tool renamed, two reorders that cancel out. The
composed change must be refused when any of its edits must be refused and changed the surface when
it was made; otherwise it must go through (`compose`). A composed change that leaves the surface as
it was is `equivalent`, as any other.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ._aims import _BY_TAG, Aim, Steps, Tool
from ._base import Delivery, Edit, Example, Kind, Must, Mutation, Mutator, one_of, shown_admitted
from ._fixtures import SEARCH, WEB_READ

if TYPE_CHECKING:
    from toolsurface.contract._facts import OwnerFact
    from toolsurface.scenarios import Scenario


def edits_of(aim: Steps) -> tuple[tuple[str, Delivery, Aim], ...]:
    """The edits a `Steps` aim holds: each mutator's key, delivery and aim."""
    found = []
    for edit in json.loads(aim.edits):
        fields = dict(edit["aim"])
        found.append((edit["mutator"], Delivery(edit["delivery"]), _BY_TAG[fields.pop("type")](**fields)))
    return tuple(found)


def steps_of(mutations: Sequence[Mutation]) -> Steps:
    """The `Steps` aim of these mutations, made in this order."""
    return Steps(
        json.dumps(
            [{"mutator": m.mutator, "delivery": m.delivery.value, "aim": _plain(m.aim)} for m in mutations],
            ensure_ascii=False,
            separators=(",", ":"),
        )
    )


def _plain(aim: Aim) -> dict[str, Any]:
    # Every aim field is a str, an int or a StrEnum: JSON as it stands (see `_aims`).
    return {"type": aim.tag, **{field.name: getattr(aim, field.name) for field in dataclasses.fields(aim)}}


class Composed(Mutator):
    """Edits made one after another at one boundary, each by its own mutator and delivery."""

    kind = Kind.COMPOSED
    variant = "steps"
    #: Each edit carries its own delivery: a composed change is `in_place` where any of its edits is
    #: (`compose`), and its examples are all `replace`.
    deliveries = (Delivery.REPLACE,)
    examples = (
        Example(
            aim=Steps(
                '[{"mutator":"legit.key_order","delivery":"replace",'
                '"aim":{"type":"tool","name":"market__search_instruments"}},'
                '{"mutator":"rename.case","delivery":"replace","aim":{"type":"tool","name":"market__web_read"}}]'
            ),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, {**WEB_READ, "name": "Market__web_read"}),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Steps]:
        # A legitimate edit that changes no parity, then one that must be refused: the shape of
        # a change a comparison blind to the second lets through behind the first.
        names = [Tool(tool.name) for tool in shown_admitted(scenario)]
        first, second = one_of(rng, names), one_of(rng, names)
        return [
            Steps(
                json.dumps(
                    [
                        {"mutator": "legit.key_order", "delivery": "replace", "aim": _plain(a)},
                        {"mutator": "rename.case", "delivery": "replace", "aim": _plain(b)},
                    ],
                    separators=(",", ":"),
                )
            )
            for a, b in zip(first, second, strict=True)
        ]

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        from ._registry import by_key  # the registry holds this mutator

        tools, messages = edit.tools, edit.messages
        for key, delivery, aim in edits_of(self.aim_of(edit, Steps)):
            step = Edit(tools, messages, edit.fmt, delivery, aim, edit.scenario, edit.facts, edit.server)
            tools, messages = by_key(key).apply(step)
        return tools, messages

    def records(self, scenario: Scenario, aim: Aim) -> tuple[OwnerFact, ...]:
        from ._registry import by_key

        assert isinstance(aim, Steps)
        return tuple(fact for key, _, step in edits_of(aim) for fact in by_key(key).records(scenario, step))


def compose(scenario: Scenario, mutations: Sequence[Mutation], call: int = 1) -> Mutation:
    """One change of these mutations made in turn on the `call`-th model call's expected surface:
    it must be refused where any of them must be and changed the surface as it was made."""
    from toolsurface.contract._canonical import capture
    from toolsurface.contract._formats import LOGICAL

    from ._registry import by_key

    tools: list[Any] = [LOGICAL.build(tool) for tool in scenario.surface_at(call)]
    messages = [message.as_dict() for message in scenario.request_messages]
    must = Must.DISPATCH
    for mutation in mutations:
        before = capture(tools, LOGICAL)
        step = Edit(tools, messages, LOGICAL, Delivery.REPLACE, mutation.aim, scenario, [])
        tools, messages = by_key(mutation.mutator).apply(step)
        if mutation.must is Must.REFUSE and capture(tools, LOGICAL) != before:
            must = Must.REFUSE
    delivery = Delivery.IN_PLACE if any(m.delivery is Delivery.IN_PLACE for m in mutations) else Delivery.REPLACE
    return Mutation(Composed.key(), Kind.COMPOSED, Composed.variant, delivery, steps_of(mutations), must)


MUTATORS: tuple[Mutator, ...] = (Composed(),)
