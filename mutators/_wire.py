"""Wire fields: what a tool carries besides name, description and input schema, changed.

OpenAI's and Anthropic's `strict` decides whether the provider holds the model to the schema;
MCP's `title` is what a client shows, its `annotations` are the hints a host's confirmation policy
reads (`readOnlyHint`, `destructiveHint`…), its `outputSchema` is what a result promises. A change
to any of them after the check is a surface change. Each variant aims only where the scenario's
tool format has the field; a target whose own format has no place for it gets `NotCarried`, so the
case is equivalent on that target (the change cannot reach what it sends).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from toolsurface.contract._formats import WIRE_FIELDS_OF
from toolsurface.scenarios import Scenario

from ._aims import WireField
from ._base import (
    Edit,
    Example,
    Kind,
    MutationNotApplicable,
    Mutator,
    NotCarried,
    Reach,
    one_of,
    shown_admitted,
)
from ._fixtures import MCP_HOLDINGS, SEARCH, WEB_READ
from ._pointer import join, split_last

#: The behaviour hints of MCP `ToolAnnotations`, and what a client assumes when one is missing.
HINT_DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
#: What `title` appends to a display title: a tool presented as something it was not admitted as.
TITLE_NOTE = "(admin)"

_OUT = MCP_HOLDINGS["output_schema"]


class _WireEdit(Mutator):
    """Change one wire field of one admitted tool."""

    kind = Kind.WIRE
    field: str

    def places(self, tool: dict[str, Any]) -> Iterable[str]:
        """Pointers inside the field this variant can change ("" for the field as a whole)."""
        return ("",)

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[WireField]:
        if self.field not in WIRE_FIELDS_OF[scenario.tool_format]:
            return ()
        tools = [tool.as_logical() for tool in shown_admitted(scenario)]
        return one_of(
            rng, [WireField(tool["name"], self.field, place) for tool in tools for place in self.places(tool)]
        )

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, WireField)
        if not edit.fmt.carries(aim.field):
            raise NotCarried(f"the target's tool format has no {aim.field!r}, so a change to it cannot reach its wire")
        return edit.edit_tool(aim.tool, self.change(edit, aim))

    @abstractmethod
    def change(self, edit: Edit, aim: WireField) -> Callable[[Any], None]:
        """The edit of one live tool."""


class Strict(_WireEdit):
    """`strict` flipped: a tool sent with strict mode on that was checked with it off, or the reverse."""

    variant = "strict"
    field = "strict"
    examples = (
        Example(
            aim=WireField("market__web_read", "strict"),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, {**WEB_READ, "strict": True}),
        ),
        Example(
            aim=WireField("market__search_instruments", "strict"),
            before=({**SEARCH, "strict": True},),
            after=({**SEARCH, "strict": False},),
        ),
    )

    def change(self, edit: Edit, aim: WireField) -> Callable[[Any], None]:
        def flip(tool: Any) -> None:
            edit.fmt.set_wire(tool, "strict", edit.fmt.get_wire(tool).get("strict") is not True)

        return flip


class Title(_WireEdit):
    """An MCP tool's display `title` reworded (or one given where there was none)."""

    variant = "title"
    field = "title"
    examples = (
        Example(
            aim=WireField("portfolio__get_holdings", "title"),
            before=(MCP_HOLDINGS,),
            after=({**MCP_HOLDINGS, "title": f"Portfolio holdings {TITLE_NOTE}"},),
        ),
    )

    def change(self, edit: Edit, aim: WireField) -> Callable[[Any], None]:
        def retitle(tool: Any) -> None:
            old = edit.fmt.get_wire(tool).get("title")
            edit.fmt.set_wire(
                tool, "title", f"{old} {TITLE_NOTE}" if isinstance(old, str) and old else f"{aim.tool} {TITLE_NOTE}"
            )

        return retitle


class Annotation(_WireEdit):
    """One recorded behaviour hint of an MCP tool flipped, e.g. a tool that may destroy data
    presented as read-only, which a host's confirmation policy then waves through."""

    variant = "annotation"
    field = "annotations"
    examples = (
        Example(
            aim=WireField("portfolio__get_holdings", "annotations", "/readOnlyHint"),
            before=(MCP_HOLDINGS,),
            after=({**MCP_HOLDINGS, "annotations": {**MCP_HOLDINGS["annotations"], "readOnlyHint": False}},),
        ),
    )

    def places(self, tool: dict[str, Any]) -> Iterable[str]:
        annotations = tool.get("annotations") or {}
        return [join("", hint) for hint in HINT_DEFAULTS if isinstance(annotations.get(hint), bool)]

    def change(self, edit: Edit, aim: WireField) -> Callable[[Any], None]:
        hint = split_last(aim.pointer)[1]

        def flip(tool: Any) -> None:
            annotations = edit.fmt.get_wire(tool).get("annotations")
            if not isinstance(annotations, dict):
                raise MutationNotApplicable(f"{aim.tool!r} has no annotations in the live request")
            annotations[hint] = not annotations.get(
                hint, HINT_DEFAULTS[hint]
            )  # the live dict: in place reaches its holders

        return flip


class OutputSchema(_WireEdit):
    """A property gone from an MCP tool's `outputSchema` (and from its `required`): a result field
    the tool no longer promises."""

    variant = "output_schema"
    field = "output_schema"
    examples = (
        Example(
            aim=WireField("portfolio__get_holdings", "output_schema", "/properties/holdings"),
            before=(MCP_HOLDINGS,),
            after=(
                {
                    **MCP_HOLDINGS,
                    "output_schema": {
                        "type": "object",
                        "properties": {"currency": _OUT["properties"]["currency"]},
                        "required": [],
                    },
                },
            ),
        ),
    )

    def places(self, tool: dict[str, Any]) -> Iterable[str]:
        properties = (tool.get("output_schema") or {}).get("properties")
        return [join("", "properties", name) for name in properties] if isinstance(properties, dict) else []

    def change(self, edit: Edit, aim: WireField) -> Callable[[Any], None]:
        name = split_last(aim.pointer)[1]

        def drop(tool: Any) -> None:
            schema = edit.fmt.get_wire(tool).get("output_schema")
            properties = schema.get("properties") if isinstance(schema, dict) else None
            if not isinstance(schema, dict) or not isinstance(properties, dict) or name not in properties:
                raise MutationNotApplicable(f"nothing at {aim.pointer!r} in the live output schema of {aim.tool!r}")
            del properties[name]
            required = schema.get("required")
            if isinstance(required, list) and name in required:
                required.remove(name)

        return drop


#: Each wire field's false or empty value: what a host reads as "not there" when it tests a field's truth.
FALSY = {"strict": False, "title": "", "annotations": {}, "output_schema": {}}


class Falsy(Mutator):
    """A wire field a tool was admitted without, put on it with a false or empty value
    (`strict: false`, an empty `title`): a host that takes a falsy field for an absent one
    (`if tool.get("strict")`) compares the two as the same. The aim reads `tool:field`."""

    kind = Kind.WIRE
    variant = "falsy"
    reach = Reach.LAST
    examples = (
        Example(
            aim=WireField("market__web_read", "strict"),
            before=(SEARCH, WEB_READ),
            after=(SEARCH, {**WEB_READ, "strict": False}),
        ),
    )

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[WireField]:
        tools = [tool.as_logical() for tool in shown_admitted(scenario)]
        return tuple(
            aim
            for field in WIRE_FIELDS_OF[scenario.tool_format]
            for aim in one_of(rng, [WireField(tool["name"], field) for tool in tools if field not in tool])
        )

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, WireField)
        if not edit.fmt.carries(aim.field):
            raise NotCarried(f"the target's tool format has no {aim.field!r}, so a change to it cannot reach its wire")

        def put(tool: Any) -> None:
            if aim.field in edit.fmt.get_wire(tool):
                raise MutationNotApplicable(f"{aim.tool!r} already has {aim.field!r} in the live request")
            edit.fmt.set_wire(tool, aim.field, FALSY[aim.field])

        return edit.edit_tool(aim.tool, put)


MUTATORS: tuple[Mutator, ...] = (Strict(), Title(), Annotation(), OutputSchema(), Falsy())
