"""TS111 edits-caller-schema: a schema reachable from a parameter or a tool list is edited in place."""

from __future__ import annotations

from collections.abc import Iterator

from .._module import editors, trace_all
from .._outline import Outline, Unit
from .._places import value_source
from .._rule import Invalid, Match, Mentions, Needs, Rule, Tree, shown
from .._trace import Mutation, Passed
from .._types import ScanConfig
from .._values import Share
from .hook_edits_schema_in_place import reported


class EditsCallerSchema(Rule):
    """A function that writes into a schema it did not make: one that arrived as a parameter, or that
    a tool list holds — directly, through a local alias (`props = schema["properties"]`), or by
    handing it to a function of the module that does (recursion included). Every other holder of
    that dict — the caller, a cached tool, a shallow baseline — changes with it.

    One finding per function, at its first direct edit (else its first call that edits). A hook that TS109 already
    reports is left to
    TS109; this rule covers every other function and the edits TS109 cannot see through aliases.
    """

    id = "TS111"
    name = "edits-caller-schema"
    message = (
        "deep-copy the schema (copy.deepcopy) and edit and return the copy; never write into a schema the "
        "caller still holds"
    )
    module_level = False  # it reports in functions; the module's registries, it reads by name
    valid = (
        # The reducer edits a deep copy of the caller's schema.
        """
import copy
from functools import reduce

def _mark_required(acc, name):
    acc.setdefault("required", []).append(name)
    return acc

def require_all(args_schema):
    return reduce(_mark_required, list(args_schema.get("properties", {})), copy.deepcopy(args_schema))
""",
        """
import copy

def ensure_strict(schema):
    schema = copy.deepcopy(schema)
    schema["additionalProperties"] = False
    for sub in schema.get("properties", {}).values():
        sub.pop("default", None)
    return schema
""",
        """
def with_limit(schema):
    widened = dict(schema)
    widened["maxItems"] = 8
    return {**widened, "title": "x"}
""",
        """
def strict_copy(tools):
    out = []
    for tool in tools:
        parameters = json.loads(json.dumps(tool.parameters))
        parameters["additionalProperties"] = False
        out.append(parameters)
    return out
""",
        """
def before_dispatch_hook(request):
    request.tools[0]["input_schema"]["properties"].clear()
""",
        """
def describe(outputs):
    schemas = []
    for output in outputs:
        processor = ObjectProcessor(output=output)
        parameters = processor.object_def.parameters
        parameters["title"] = processor.name
        schemas.append(parameters)
    return schemas
""",
        """
import copy

def to_function(function, strict: bool | None = None):
    if strict and isinstance(function, dict):
        function = copy.deepcopy(function)
    if isinstance(function, dict) and "name" in function:
        described = {k: v for k, v in function.items() if k in {"name", "parameters"}}
    else:
        described = convert(function)
    if strict:
        described["parameters"]["additionalProperties"] = False
    return described
""",
        """
class Annotator:
    def with_units(self, input_schema, units):
        props = {key: dict(prop) for key, prop in input_schema.get("properties", {}).items()}
        for key, unit in units.items():
            if key in props:
                props[key]["description"] = unit
        return {**input_schema, "properties": props}
""",
        """
import copy

async def untitled(json_schema):
    props = [copy.copy(prop) for prop in json_schema["properties"].values()]
    for prop in props:
        prop.pop("title", None)
    firsts = list(map(dict, json_schema["properties"].values()))
    firsts[0]["title"] = "first"
    return props, firsts
""",
    )
    invalid = (
        # `reduce` hands its initial value to the reducer, which edits it.
        Invalid(
            """
import functools

def _mark_required(acc, name):
    acc.setdefault("required", []).append(name)
    return acc

def require_all(args_schema):
    return functools.reduce(_mark_required, list(args_schema.get("properties", {})), args_schema)
""",
            line=9,
        ),
        Invalid(
            """
def ensure_strict(json_schema, path):
    defs = json_schema.get("$defs")
    if defs:
        for name, sub in defs.items():
            ensure_strict(sub, (*path, name))
    json_schema["additionalProperties"] = False
""",
            line=7,
            flow=(
                (2, "parameter `json_schema`"),
                (7, 'edited in place by `json_schema["additionalProperties"] = False`'),
            ),
        ),
        Invalid(
            """
from copy import deepcopy as dc

def strict(schema, cached):
    if cached:
        return cached
    props = schema["properties"]
    copied = dc(schema)
    props.pop("debug", None)
    return copied
""",
            line=9,
        ),
        Invalid(
            """
def _strip(node):
    node.pop("title", None)

def strip_titles(input_schema):
    _strip(input_schema)
    for sub in input_schema.get("properties", {}).values():
        _strip(sub)
""",
            line=6,
            flow=(
                (5, "parameter `input_schema`"),
                (6, "handed to `_strip(...)`, which edits it"),
            ),
        ),
        Invalid(
            """
class Fitter:
    def shrink(self):
        for tool in self.tools:
            props = tool.parameters["properties"]
            def drop(key):
                del props[key]
            drop("verbose")
""",
            line=7,
            flow=(
                (4, "tool list `self.tools`"),
                (7, "edited in place by `del props[key]`"),
            ),
        ),
        Invalid(
            """
def relax(schema):
    shallow = {**schema}
    shallow["properties"]["query"]["maxLength"] = 10
    return shallow
""",
            line=4,
        ),
        Invalid(
            """
def titled(schema, name):
    processor = ObjectProcessor(parameters=schema)
    processor.parameters["title"] = name
    return processor
""",
            line=4,
        ),
        Invalid(
            """
import copy

def to_function(function, strict: bool | None = None):
    if strict and isinstance(function, dict):
        function = copy.deepcopy(function)
    described = {k: v for k, v in function.items()}
    described["parameters"]["additionalProperties"] = False
    return described
""",
            line=8,
        ),
        Invalid(
            """
def itemless(json_schema):
    props = {key: dict(prop) for key, prop in json_schema["properties"].items()}
    for key, prop in props.items():
        prop["items"]["title"] = key
    return props
""",
            line=5,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (Mentions(words=(*config.schema_keys, *config.tool_words), endings=config.schema_words),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # Only a value named by a schema key or word is a schema, and only a subscript written, an
        # editing method, or a function of the module that does either and is handed it edits one.
        elsewhere = [spelled for spelled, _, _ in config.editors]
        # Another module's editor called, or handed on as a reducer (`reduce(merge, items, schema)`).
        handed = unit.gives & {spelled.rsplit(".", 1)[-1] for spelled in elsewhere}
        edits = unit.edits or bool(unit.gives & outline.editors) or unit.calls(elsewhere) or bool(handed)
        return edits and unit.mentions(config.schema_keys, endings=config.schema_words)

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A function edits what it hands a helper only through one that edits: the rest cannot matter.
        return unit.name in outline.editors

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        traced = trace_all(tree, config)
        edits = editors(traced, config)
        hooks = {id(hook) for hook, _, _ in reported(tree, config)}
        for function, events in traced:
            if id(function) in hooks:
                continue
            shared = [event for event in events if event.value.schema and event.value.share is Share.ALIAS]
            direct = [event for event in shared if isinstance(event, Mutation)]
            through = [event for event in shared if isinstance(event, Passed) and edits.edit(event)]
            # A direct write reads best; a call that edits through another function comes second.
            if direct:
                yield Match(
                    direct[0].node, f"edited in place by {shown(direct[0].node)}", value_source(direct[0].value)
                )
            elif through:
                call = through[0].call
                yield Match(call, f"handed to {shown(call)}, which edits it", value_source(through[0].value))
