"""Provider conversions: an input schema rewritten on its way to the wire, after the host's check.

Hosts hand their tools to a provider adapter that rewrites schemas as the provider wants them:
OpenAI's strict mode closes every object and requires every property (the optional ones made
nullable), LangChain's `convert_to_openai_tool` inlines `$ref`s, drops `$defs` and strips `title`s.
Each rewrite changes what the model is told about a tool's arguments, so one that runs between
the host's final check and the gateway sends a surface nobody checked. Each variant aims only at
tools whose schema the rewrite actually changes; the aim is the tool, the edit is the whole rewrite.
"""

from __future__ import annotations

import copy
import random
from abc import abstractmethod
from collections.abc import Iterable
from typing import Any

from toolsurface.contract._json import dumps
from toolsurface.scenarios import Scenario

from ._aims import Tool
from ._base import Edit, Example, Kind, Mutator, one_of, shown_admitted
from ._fixtures import HOLDINGS, SEARCH, TITLED_HOLDINGS, WEB_READ
from ._pointer import schema_nodes

#: The keywords a schema keeps its shared definitions under.
_DEFINITIONS = ("$defs", "definitions")


class _Conversion(Mutator):
    """Rewrite one admitted tool's whole input schema as a provider conversion does."""

    kind = Kind.WIRE

    @staticmethod
    @abstractmethod
    def rewrite(schema: dict[str, Any]) -> None:
        """Rewrite the live `schema` in place."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[Tool]:
        return one_of(rng, [Tool(tool.name) for tool in shown_admitted(scenario) if self._changes(tool.input_schema)])

    def _changes(self, schema: dict[str, Any]) -> bool:
        rewritten = copy.deepcopy(schema)
        self.rewrite(rewritten)
        return dumps(rewritten, sort_keys=True) != dumps(schema, sort_keys=True)

    def apply(self, edit: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(edit, Tool)
        return edit.edit_tool(aim.name, lambda tool: self.rewrite(edit.fmt.get_schema(tool)))


def _is_object(node: dict[str, Any]) -> bool:
    return node.get("type") == "object" or isinstance(node.get("properties"), dict)


def _nullable(schema: Any) -> Any:
    """`schema` also accepting null, the way strict mode spells an optional argument."""
    if isinstance(schema, dict) and isinstance(schema.get("type"), str):
        return {**schema, "type": [schema["type"], "null"]}
    if isinstance(schema, dict) and isinstance(schema.get("type"), list):
        return schema if "null" in schema["type"] else {**schema, "type": [*schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


class StrictSchema(_Conversion):
    """OpenAI strict mode: every object closed (`additionalProperties: false`) and every property
    required, the ones that were optional made nullable."""

    variant = "strict_schema"
    examples = (
        Example(
            aim=Tool("market__search_instruments"),
            before=(SEARCH, WEB_READ),
            after=(
                {
                    **SEARCH,
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "description": "Name, ticker or ISIN to look for."},
                            "asset_class": {"type": ["string", "null"], "enum": ["etf", "stock", "bond", "fund"]},
                            "limit": {"type": ["integer", "null"], "minimum": 1, "maximum": 50},
                        },
                        "required": ["query", "asset_class", "limit"],
                        "additionalProperties": False,
                    },
                },
                WEB_READ,
            ),
        ),
        # Nothing optional: only the object is closed.
        Example(
            aim=Tool("market__web_read"),
            before=(WEB_READ,),
            after=({**WEB_READ, "input_schema": {**WEB_READ["input_schema"], "additionalProperties": False}},),
        ),
    )

    @staticmethod
    def rewrite(schema: dict[str, Any]) -> None:
        for node in [node for _, node in schema_nodes(schema) if _is_object(node)]:
            properties = node.get("properties")
            if isinstance(properties, dict):
                required = node["required"] if isinstance(node.get("required"), list) else []
                for name in properties:
                    if name not in required:
                        properties[name] = _nullable(properties[name])
                node["required"] = list(properties)
            node["additionalProperties"] = False


class InlineRefs(_Conversion):
    """Every local `$ref` replaced by the definition it names (its sibling keywords kept), and the
    definitions dropped; a recursive definition stays a reference, and its definitions stay."""

    variant = "inline_refs"
    examples = (
        Example(
            aim=Tool("portfolio__get_holdings"),
            before=(SEARCH, HOLDINGS),
            after=(
                SEARCH,
                {
                    **HOLDINGS,
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "account": {
                                "type": "string",
                                "description": "Account id as shown in the portfolio.",
                                "pattern": "^acc_[0-9a-z]{8}$",
                            },
                            "as_of": {"type": "string", "format": "date"},
                        },
                        "required": ["account"],
                    },
                },
            ),
        ),
    )

    @staticmethod
    def rewrite(schema: dict[str, Any]) -> None:
        definitions = {
            f"#/{keyword}/{name}": value
            for keyword in _DEFINITIONS
            if isinstance(schema.get(keyword), dict)
            for name, value in schema[keyword].items()
        }
        # The root itself may be a reference: inline into a copy of its keys, then put them back.
        rest = {key: value for key, value in schema.items() if key not in _DEFINITIONS}
        recursive = _inline(rest, definitions, ())
        kept = {key: schema[key] for key in _DEFINITIONS if key in schema} if recursive else {}
        schema.clear()
        schema.update(rest, **kept)


def _inline(node: Any, definitions: dict[str, Any], expanding: tuple[str, ...]) -> bool:
    """Inline the references under `node` in place; whether a recursive one had to stay."""
    recursive = False
    if isinstance(node, dict):
        reference = node.get("$ref")
        if isinstance(reference, str) and reference in definitions:
            if reference in expanding:
                return True
            del node["$ref"]
            for key, value in copy.deepcopy(definitions[reference]).items():
                node.setdefault(key, value)  # the referring node's own keywords win, as converters merge them
            expanding = (*expanding, reference)
        for value in node.values():
            recursive |= _inline(value, definitions, expanding)
    elif isinstance(node, list):
        for item in node:
            recursive |= _inline(item, definitions, expanding)
    return recursive


class StripTitles(_Conversion):
    """Every `title` keyword dropped from the schema (a property *named* `title` stays)."""

    variant = "strip_titles"
    examples = (
        Example(
            aim=Tool("portfolio__get_holdings"),
            before=(TITLED_HOLDINGS,),
            after=(
                {
                    **TITLED_HOLDINGS,
                    "input_schema": {
                        "type": "object",
                        "properties": {
                            "account": {"type": "string", "description": "Account id as shown in the portfolio."},
                            "as_of": {"type": "string", "format": "date", "default": "today"},
                        },
                        "required": ["account"],
                    },
                },
            ),
        ),
    )

    @staticmethod
    def rewrite(schema: dict[str, Any]) -> None:
        for node in [node for _, node in schema_nodes(schema)]:
            if isinstance(node.get("title"), str):
                del node["title"]


MUTATORS: tuple[Mutator, ...] = (StrictSchema(), InlineRefs(), StripTitles())
