"""Keyword edits: every keyword of the JSON Schema vocabulary, edited the ways hosts edit them.

For each edit (`Op`: remove, add, loosen, tighten, change, retype) and each keyword of the
vocabulary of the draft a recorded schema declares (`_vocabulary`), one place in the scenario's
admitted schemas where that edit applies, picked by the rng: a host whose comparison looks at
some keywords only lets through an edit of the others, and the case names the keyword at its
place (`…/schema.replace:keyword_loosen:market__search_instruments:/properties/limit/maximum`).
A keyword is added only where its value could bear on what the node accepts, or where it only
annotates (`_bears_on`); the keywords no case adds are `NOT_ADDED`, each with its reason.

These edits are tried once per place, replaced rather than also in place (the schema mutators
that edit every boundary in place prove how a host holds its baseline), at the last boundary
before each model call (`Reach.LAST`).
"""

from __future__ import annotations

import functools
import random
from abc import abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any

from toolsurface.contract._canonical import canonical_json
from toolsurface.contract._json import loads
from toolsurface.scenarios import Scenario

from ._aims import SchemaPath
from ._base import Delivery, Edit, Example, Kind, MutationNotApplicable, Mutator, Reach, one_of, shown_admitted
from ._fixtures import SEARCH
from ._pointer import join, resolve, split_last
from ._vocabulary import NOT_ADDED, Op, Shape, draft_of, edit, subschemas, vocabulary

_S = SEARCH["input_schema"]

#: One instance of each JSON type, a few of each, to tell which types a keyword's value constrains.
_SAMPLES: dict[str, tuple[Any, ...]] = {
    "string": ("", "abc", "ABC-1 x"),
    "integer": (0, 3, 1_000_000),
    "number": (0.5, -2.5),
    "boolean": (True, False),
    "null": (None,),
    "array": ([], [1, 1], ["a"]),
    "object": ({}, {"a": 1, "added": "x"}),
}


@functools.cache
def _bears_on(keyword: str, value_json: bytes, draft: str) -> frozenset[str]:
    """The JSON types whose instances `{keyword: value}` judges otherwise than `{}`, by asking
    jsonschema itself; every type when it judges none otherwise (an annotation)."""
    from jsonschema.validators import validator_for

    value = loads(value_json)
    validator = validator_for({"$schema": draft})({keyword: value})
    bears = frozenset(
        kind for kind, samples in _SAMPLES.items() if any(not validator.is_valid(sample) for sample in samples)
    )
    return bears or frozenset(_SAMPLES)


def _node_types(node: dict[str, Any]) -> frozenset[str]:
    declared = node.get("type")
    types = {declared} if isinstance(declared, str) else set(declared) if isinstance(declared, list) else set()
    if "integer" in types:
        types.add("number")
    return frozenset(t for t in types if isinstance(t, str)) or frozenset(_SAMPLES)


def places(schema: dict[str, Any]) -> Mapping[Op, tuple[tuple[str, str], ...]]:
    """`(keyword, pointer)` of every place each edit applies in `schema`, in document order."""
    return _places(canonical_json(schema))


@functools.lru_cache(maxsize=1024)
def _places(schema_json: bytes) -> Mapping[Op, tuple[tuple[str, str], ...]]:
    # Recordings share their tools' schemas, and a plan asks for each scenario's: work each out once.
    schema = loads(schema_json)
    draft = draft_of(schema)
    shapes = vocabulary(draft)
    found: dict[Op, list[tuple[str, str]]] = {op: [] for op in Op}
    for at, node in subschemas(schema, shapes):
        for keyword, shape in shapes.items():
            for op in Op:
                if _applies(op, shape, keyword, node, draft):
                    found[op].append((keyword, join(at, keyword)))
    return {op: tuple(each) for op, each in found.items()}


class _KeywordEdit(Mutator):
    """One edit of one keyword, at one place per keyword the rng picks."""

    kind = Kind.SCHEMA
    deliveries = (Delivery.REPLACE,)
    reach = Reach.LAST

    @property
    @abstractmethod
    def op(self) -> Op:
        """The edit this mutator makes."""

    def aims(self, scenario: Scenario, rng: random.Random) -> Iterable[SchemaPath]:
        by_keyword: dict[str, list[SchemaPath]] = {}
        for tool in shown_admitted(scenario):
            for keyword, pointer in places(tool.input_schema)[self.op]:
                by_keyword.setdefault(keyword, []).append(SchemaPath(tool.name, pointer))
        return tuple(aim for keyword in by_keyword for aim in one_of(rng, by_keyword[keyword]))

    def apply(self, live: Edit) -> tuple[list[Any], list[dict[str, Any]]]:
        aim = self.aim_of(live, SchemaPath)
        return live.edit_tool(aim.tool, lambda tool: self.change(live.fmt.get_schema(tool), aim.pointer))

    def change(self, schema: dict[str, Any], pointer: str) -> None:
        at, keyword = split_last(pointer)
        node = resolve(schema, at, dict)
        shape = vocabulary(draft_of(schema)).get(keyword)
        if shape is None or not _applies(self.op, shape, keyword, node, draft_of(schema)):
            raise MutationNotApplicable(f"{self.op} does not apply at {pointer!r} in the live input schema")
        if self.op is Op.REMOVE:
            del node[keyword]
        else:
            node[keyword] = edit(shape, self.op, keyword, node.get(keyword), node)


def _applies(op: Op, shape: Shape, keyword: str, node: dict[str, Any], draft: str) -> bool:
    present = keyword in node
    if op is Op.REMOVE:
        return present
    if op is Op.ADD:
        if present or keyword in NOT_ADDED:
            return False
        added = edit(shape, op, keyword, None, node)
        if added is None:
            return False
        return bool(_bears_on(keyword, canonical_json(added), draft) & _node_types(node))
    return present and edit(shape, op, keyword, node[keyword], node) is not None


def _limit(**limit: Any) -> dict[str, Any]:
    """SEARCH with its `limit` property's schema replaced."""
    return {**SEARCH, "input_schema": {**_S, "properties": {**_S["properties"], "limit": limit}}}


def _query(**query: Any) -> dict[str, Any]:
    """SEARCH with its `query` property's schema replaced."""
    return {**SEARCH, "input_schema": {**_S, "properties": {**_S["properties"], "query": query}}}


_LIMIT = SchemaPath("market__search_instruments", "/properties/limit/maximum")


class KeywordRemove(_KeywordEdit):
    """A keyword dropped, as an adapter that keeps only the keywords its provider supports does."""

    variant = "keyword_remove"
    op = Op.REMOVE
    examples = (Example(aim=_LIMIT, before=(SEARCH,), after=(_limit(type="integer", minimum=1),)),)


class KeywordAdd(_KeywordEdit):
    """A keyword added where it was absent, as a normaliser that fills in constraints does."""

    variant = "keyword_add"
    op = Op.ADD
    examples = (
        Example(
            aim=SchemaPath("market__search_instruments", "/properties/query/maxLength"),
            before=(SEARCH,),
            after=(_query(type="string", description="Name, ticker or ISIN to look for.", maxLength=1),),
        ),
    )


class KeywordLoosen(_KeywordEdit):
    """A keyword made to allow more: a bound moved out, a value or a type accepted besides, a
    subschema made `true`, a requirement or a branch dropped."""

    variant = "keyword_loosen"
    op = Op.LOOSEN
    examples = (Example(aim=_LIMIT, before=(SEARCH,), after=(_limit(type="integer", minimum=1, maximum=51),)),)


class KeywordTighten(_KeywordEdit):
    """A keyword made to allow less: a bound moved in, a value dropped, a subschema made `false`,
    one more property required."""

    variant = "keyword_tighten"
    op = Op.TIGHTEN
    examples = (Example(aim=_LIMIT, before=(SEARCH,), after=(_limit(type="integer", minimum=1, maximum=49),)),)


class KeywordChange(_KeywordEdit):
    """A keyword given another value of its kind: a flag flipped, a format or a pattern rewritten,
    a description, a default or a constant replaced."""

    variant = "keyword_change"
    op = Op.CHANGE
    examples = (
        Example(
            aim=SchemaPath("market__search_instruments", "/properties/query/description"),
            before=(SEARCH,),
            after=(_query(type="string", description="Name, ticker or ISIN to look for. (revised)"),),
        ),
    )


class KeywordRetype(_KeywordEdit):
    """A keyword's value of another JSON type that a loose comparison takes for the same: `1` →
    `1.0`, `true` → `1`, `"string"` → `["string"]`, `{}` → `true`."""

    variant = "keyword_retype"
    op = Op.RETYPE
    examples = (
        Example(
            aim=SchemaPath("market__search_instruments", "/properties/limit/minimum"),
            before=(SEARCH,),
            after=(_limit(type="integer", minimum=1.0, maximum=50),),
        ),
    )


MUTATORS: tuple[Mutator, ...] = (
    KeywordRemove(),
    KeywordAdd(),
    KeywordLoosen(),
    KeywordTighten(),
    KeywordChange(),
    KeywordRetype(),
)
