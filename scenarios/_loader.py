"""Read scenario files, validate them against their JSON Schema, and build `Scenario` values.

Validation collects every problem in every file before failing, so one run shows all that is
wrong; each problem is one line, `file:$.json.path: message`.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from jsonschema.exceptions import best_match

from toolsurface.contract._facts import Binding, FactKind, OwnerFact, WebTools
from toolsurface.contract._formats import WIRE_FIELDS, WIRE_FIELDS_OF, ToolDescriptor
from toolsurface.contract._json import dumps, loads

from . import _validated
from ._boundary import OWN_POINT_PATTERN, Boundary
from ._errors import ScenarioError
from ._model import (
    RECORDED_KINDS,
    Access,
    Capability,
    Contract,
    Identity,
    Lane,
    ListChange,
    ListChangeKind,
    McpListing,
    Message,
    Mode,
    Publication,
    RequestOutcome,
    Scenario,
    Stage,
    StageKind,
    Step,
    ToolCall,
    own_point_problem,
)

_STAGE_ORDER = {kind: index for index, kind in enumerate(RECORDED_KINDS)}
_PLAIN_KEY = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = orjson.loads(resources.files(__package__).joinpath("scenario.schema.json").read_bytes())
    return jsonschema.Draft202012Validator(schema)


def bundled_dir() -> Path:
    """The folder of scenarios shipped with the package."""
    return Path(str(resources.files(__package__).joinpath("bundled")))


def scenario_files(paths: Iterable[Path | str]) -> tuple[list[Path], list[str]]:
    """Expand files and folders (a folder gives its `*.json`, sorted) and name the missing ones."""
    files: list[Path] = []
    problems: list[str] = []
    for raw in paths:
        path = Path(raw)
        try:
            if path.is_dir():
                files.extend(sorted(path.glob("*.json")))
            elif path.is_file():
                files.append(path)
            else:
                problems.append(f"{path}: no such scenario file or folder")
        except OSError as error:  # a name too long for the system, a folder that cannot be listed
            problems.append(f"{path}: cannot read: {error.strerror or error}")
    return files, problems


def load(paths: Iterable[Path | str] | None = None) -> tuple[Scenario, ...]:
    """Load and validate scenarios (default: the bundled ones); raise `ScenarioError` listing all problems."""
    # Materialised once: a one-shot iterable must still be nameable in the "nothing found" problem.
    paths = [bundled_dir()] if paths is None else list(paths)
    files, problems = scenario_files(paths)
    if not files and not problems:
        problems.append(f"{', '.join(map(str, paths))}: no scenario files (*.json) found")
    scenarios: list[Scenario] = []
    first_seen: dict[str, str] = {}
    for file in files:
        try:
            scenario = load_file(file)
        except ScenarioError as error:
            problems.extend(error.problems)
            continue
        if scenario.id in first_seen:
            problems.append(f"{file}:$.id: duplicate scenario id {scenario.id!r} (also in {first_seen[scenario.id]})")
            continue
        first_seen[scenario.id] = str(file)
        scenarios.append(scenario)
    if problems:
        raise ScenarioError(problems)
    return tuple(scenarios)


def load_file(path: Path) -> Scenario:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ScenarioError([f"{path}: cannot read: {error.strerror}"]) from None
    try:
        document = loads(raw)
    except json.JSONDecodeError as error:
        raise ScenarioError([f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"]) from None
    # The same bytes were found valid before, under the same version, schema and checks.
    known = _validated.key(raw)
    if _validated.known_valid(known):
        return _build(document, str(path))
    scenario = parse(document, source=str(path))
    _validated.remember(known)
    return scenario


def parse(document: Any, source: str = "<scenario>") -> Scenario:
    """Validate one decoded document and build its `Scenario`."""
    problems = [f"{source}:{path}: {message}" for path, message in _problems(document)]
    if problems:
        raise ScenarioError(problems)
    return _build(document, source)


def _problems(document: Any) -> Iterator[tuple[str, str]]:
    try:
        dumps(document)
    except TypeError as error:
        yield "$", f"not representable as JSON: {error}"
        return
    schema_errors = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    for schema_error in schema_errors:
        # Within anyOf/if-then branches, the most specific sub-error is the one a person can act on.
        best = best_match([schema_error])
        if best.validator == "pattern" and best.validator_value == OWN_POINT_PATTERN:
            # The pattern itself says little to a person: name what a boundary may not hold.
            yield _json_path(best.absolute_path), own_point_problem(best.instance) or best.message
            continue
        yield _json_path(best.absolute_path), best.message
    if not schema_errors:
        yield from _semantic_problems(document)


def _semantic_problems(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """What the JSON Schema cannot say: unique names, known controls and web tools, stage order,
    valid input schemas."""
    contract = document["contract"]
    seen: dict[str, str] = {}
    for group in ("admitted", "controls"):
        for index, tool in enumerate(contract.get(group, ())):
            where = f"$.contract.{group}[{index}]"
            if tool["name"] in seen:
                yield f"{where}.name", f"duplicate tool name {tool['name']!r} (first at {seen[tool['name']]})"
            seen.setdefault(tool["name"], where)
    fmt = document.get("tool_format", "logical")
    for group in ("admitted", "controls", "admitted_elsewhere"):
        for index, tool in enumerate(contract.get(group, ())):
            yield from _tool_problems(tool, f"$.contract.{group}[{index}]", fmt)
    catalogue = {tool["name"] for tool in contract.get("controls", ())}
    for index, name in enumerate(contract.get("eligible_controls", ())):
        if name not in catalogue:
            yield f"$.contract.eligible_controls[{index}]", f"{name!r} is not one of contract.controls"
    admitted = {tool["name"] for tool in contract["admitted"]}
    web = contract.get("web_tools")
    if contract.get("facts") and web is None:
        yield "$.contract", "'web_tools' is required when there are facts: name the tools they govern"
    if contract.get("capabilities") and document["mode"] != Mode.ENTRY:
        yield (
            "$.contract.capabilities",
            f"only entry requests carry a capability summary; this one's mode is {document['mode']!r}",
        )
    capability_ids: set[str] = set()
    for index, capability in enumerate(contract.get("capabilities", ())):
        if capability["id"] in capability_ids:
            yield f"$.contract.capabilities[{index}].id", f"duplicate capability id {capability['id']!r}"
        capability_ids.add(capability["id"])
    for role, name in (web or {}).items():
        if name not in admitted:
            yield f"$.contract.web_tools.{role}", f"{name!r} is not one of contract.admitted"
    kinds = [StageKind(stage["stage"]) for stage in document["stages"]]
    own = StageKind.OWN in kinds
    if document.get("outcome") == RequestOutcome.CAPACITY and not any(
        "budget_tokens" in stage for stage in document["stages"]
    ):
        fitting = "a 'context_fit' stage, or an 'own' stage with budget_tokens," if own else "a 'context_fit' stage,"
        yield "$.outcome", f"a 'capacity' outcome needs {fitting} where the request stops"
    yield from _order_problems("$.stages", kinds, first_call=True)
    yield from _own_point_problems("$.stages", document["stages"])
    # A host's own stages say nothing of whether it registered hooks: the flag is as recorded.
    if document["hooks"] != (StageKind.HOOK in kinds) and not (own and document["hooks"]):
        yield "$.hooks", "must be true exactly when a 'hook' stage is recorded"
    if "parent" in document["identity"] and document["lane"] != Lane.CHILD:
        yield "$.identity.parent", f"only a child request has a parent; this one's lane is {document['lane']!r}"
    yield from _step_problems(document)
    # A fact that arrives at a boundary the pipeline never offers would never reach the feed.
    calls = [document["stages"], *(step["stages"] for step in document.get("steps", ()))]
    offered = [str(Boundary(_point_of(stage), call)) for call, stages in enumerate(calls, 1) for stage in stages]
    for index, fact in enumerate(contract.get("facts", ())):
        if (arrives := fact.get("arrives")) is not None and arrives not in offered:
            yield (
                f"$.contract.facts[{index}].arrives",
                f"{arrives!r} is not a point this pipeline offers ({', '.join(offered)})",
            )
    if "mcp" in document:
        yield from _list_change_problems(document)


def _step_problems(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Each later model call reruns stages in pipeline order, never recovery, and follows calls to
    tools the request admits; a request that ends in a capacity result makes no later call."""
    steps = document.get("steps", ())
    if steps and document.get("outcome") == RequestOutcome.CAPACITY:
        yield "$.steps", "a request that ends in a capacity result makes no model call, let alone a later one"
    contract = document["contract"]
    surface = {tool["name"] for tool in contract["admitted"]} | set(contract.get("eligible_controls", ()))
    for index, step in enumerate(steps):
        where = f"$.steps[{index}]"
        kinds = [StageKind(stage["stage"]) for stage in step["stages"]]
        yield from _order_problems(f"{where}.stages", kinds)
        yield from _own_point_problems(f"{where}.stages", step["stages"])
        if StageKind.RECOVER in kinds:
            yield (
                f"{where}.stages[{kinds.index(StageKind.RECOVER)}].stage",
                "only the first model call resumes from a receipt",
            )
        for position, call in enumerate(step["calls"]):
            if call["name"] not in surface:
                yield f"{where}.calls[{position}].name", f"{call['name']!r} is not a tool this request admits"


def _order_problems(where: str, kinds: list[StageKind], first_call: bool = False) -> Iterator[tuple[str, str]]:
    """The recorded stage kinds run in pipeline order (a host's own stages may come anywhere among
    them); with `first_call`, the first model call's stages end in 'seal' unless the host's own do."""
    recorded = [(index, kind) for index, kind in enumerate(kinds) if kind is not StageKind.OWN]
    for (_, before), (index, after) in itertools.pairwise(recorded):
        if _STAGE_ORDER[after] <= _STAGE_ORDER[before]:
            order = f" (order: {', '.join(kind.value for kind in RECORDED_KINDS)})" if first_call else ""
            yield f"{where}[{index}].stage", f"{after.value!r} cannot follow {before.value!r}{order}"
    if first_call and StageKind.OWN not in kinds and kinds[-1] is not StageKind.SEAL:
        yield f"{where}[{len(kinds) - 1}].stage", "the last stage must be 'seal'"


def _own_point_problems(where: str, stages: list[dict[str, Any]]) -> Iterator[tuple[str, str]]:
    """An own stage's boundary is no recorded stage's point, and no other stage of the same model
    call ends at it: each boundary is offered once per call, and names its cases."""
    seen: dict[str, int] = {}
    for index, stage in enumerate(stages):
        if stage["stage"] != StageKind.OWN:
            continue
        point = stage["point"]
        if (problem := own_point_problem(point)) is not None:
            yield f"{where}[{index}].point", problem
        elif point in seen:
            yield (
                f"{where}[{index}].point",
                f"{point!r} is already the boundary of stage {seen[point]} of this model call",
            )
        seen.setdefault(point, index)


def _point_of(stage: dict[str, Any]) -> str:
    """The boundary that follows a stage as the document records it."""
    return stage["point"] if stage["stage"] == StageKind.OWN else StageKind(stage["stage"]).point.value


def _tool_problems(tool: dict[str, Any], where: str, fmt: str) -> Iterator[tuple[str, str]]:
    """Its schemas are JSON Schemas, and it records only the wire fields its tool format has."""
    yield from _schema_problems(tool["input_schema"], f"{where}.input_schema")
    if "output_schema" in tool:
        yield from _schema_problems(tool["output_schema"], f"{where}.output_schema")
    for field in WIRE_FIELDS:
        if field in tool and field not in WIRE_FIELDS_OF[fmt]:
            carried = ", ".join(WIRE_FIELDS_OF[fmt]) or "none"
            yield f"{where}.{field}", f"the {fmt} tool format has no {field!r} field (its wire fields: {carried})"


def _list_change_problems(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """A recorded list change happens at a point the pipeline offers, to a tool the server lists
    then, and never to the admitted surface: that would make the unmutated request a refusal."""
    contract = document["contract"]
    listed = {
        tool["name"] for group in ("admitted", "controls", "admitted_elsewhere") for tool in contract.get(group, ())
    }
    eligible = set(contract.get("eligible_controls", ()))
    admitted = {tool["name"] for tool in contract["admitted"]} | eligible
    points = {_point_of(stage) for stage in document["stages"]}
    for index, change in enumerate(document["mcp"].get("list_changes", ())):
        where = f"$.mcp.list_changes[{index}]"
        name = change["tool"]["name"] if "tool" in change else change["name"]
        if change["point"] not in points:
            yield (
                f"{where}.point",
                f"{change['point']!r} is not a point this pipeline offers ({', '.join(sorted(points))})",
            )
        if "tool" in change:
            yield from _schema_problems(change["tool"]["input_schema"], f"{where}.tool.input_schema")
        if name in admitted:
            yield (
                where,
                f"{name!r} is admitted: a change to the admitted surface makes the request a refusal, not a recording",
            )
        elif change["change"] == ListChangeKind.ADD and name in listed:
            yield f"{where}.tool.name", f"the server already lists {name!r}"
        elif change["change"] != ListChangeKind.ADD and name not in listed:
            yield where, f"the server does not list {name!r} at this point"
        if change["change"] == ListChangeKind.ADD:
            listed.add(name)
        elif change["change"] == ListChangeKind.REMOVE:
            listed.discard(name)


def _schema_problems(schema: dict[str, Any], where: str) -> Iterator[tuple[str, str]]:
    try:
        recorded = orjson.dumps(schema)
    except TypeError:  # past what orjson encodes (integers beyond 64 bits): checked as it is
        problem = _schema_problem(schema)
    else:
        problem = _recorded_schema_problem(recorded)
    if problem is not None:
        path, message = problem
        yield (where if path is None else _json_path(path, where)), message


@functools.lru_cache(maxsize=4096)
def _recorded_schema_problem(recorded: bytes) -> tuple[tuple[str | int, ...] | None, str] | None:
    # Large hosts list many tools with the same schema, and the metaschema check dominates loading.
    return _schema_problem(orjson.loads(recorded))


def _schema_problem(schema: Any) -> tuple[tuple[str | int, ...] | None, str] | None:
    """Where (relative to the schema; None: the schema itself) and why it is not a valid JSON Schema."""
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as error:
        return tuple(error.absolute_path), f"not a valid JSON Schema: {error.message}"
    except RecursionError:
        # The metaschema check recurses several frames per nesting level; a deep schema exhausts the stack.
        return None, "not a valid JSON Schema: nested too deeply to check"
    return None


def _json_path(parts: Sequence[str | int], root: str = "$") -> str:
    """`$.a[0].b`; keys that are not plain names are quoted, so a problem always stays on one line."""
    path = root
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            path += f".{part}"
        else:
            path += f"[{json.dumps(part)}]"
    return path


def _tool(raw: dict[str, Any]) -> ToolDescriptor:
    return ToolDescriptor.of(raw["name"], raw["description"], raw["input_schema"], raw)


def _message(raw: dict[str, Any]) -> Message:
    return Message(raw["role"], raw["content"])


def _stage(raw: dict[str, Any]) -> Stage:
    return Stage(
        kind=StageKind(raw["stage"]),
        # JSON Schema's "integer" admits 6.0; callers slice and compare with these.
        keep_messages=_int_or_none(raw.get("keep_messages")),
        budget_tokens=_int_or_none(raw.get("budget_tokens")),
        max_tools=_int_or_none(raw.get("max_tools")),
        add_messages=tuple(map(_message, raw.get("add_messages", ()))),
        metadata_json=dumps(raw.get("metadata", {})),
        rebuild=raw.get("rebuild", False),
        receipt=raw.get("receipt"),
        own_point=raw.get("point"),
    )


def _step(raw: dict[str, Any]) -> Step:
    calls = tuple(ToolCall(call["name"], dumps(call["arguments"]), call["result"]) for call in raw["calls"])
    return Step(calls, tuple(map(_stage, raw["stages"])))


def _fact(raw: dict[str, Any]) -> OwnerFact:
    return OwnerFact(
        kind=FactKind(raw["fact"]),
        owner=raw["owner"],
        bound_to=Binding(**raw["bound_to"]),
        source_refs=tuple(raw.get("source_refs", ())),
        arrives=raw.get("arrives"),
    )


def _identity(raw: dict[str, Any]) -> Identity:
    parent = raw.get("parent")
    return Identity(**{**raw, "parent": None if parent is None else Binding(**parent)})


def _list_change(raw: dict[str, Any]) -> ListChange:
    tool = _tool(raw["tool"]) if "tool" in raw else None
    return ListChange(
        ListChangeKind(raw["change"]), tool.name if tool else raw["name"], tool, Boundary.parse(raw["point"])
    )


def _mcp(raw: dict[str, Any] | None) -> McpListing | None:
    if raw is None:
        return None
    page_size = _int_or_none(raw.get("page_size"))
    return McpListing(page_size, tuple(map(_list_change, raw.get("list_changes", ()))))


def _int_or_none(value: int | float | None) -> int | None:
    return None if value is None else int(value)


def _build(document: dict[str, Any], source: str) -> Scenario:
    contract = document["contract"]
    publication = document.get("publication")
    return Scenario(
        id=document["id"],
        description=document["description"],
        mode=Mode(document["mode"]),
        lane=Lane(document["lane"]),
        identity=_identity(document["identity"]),
        tool_format=document.get("tool_format", "logical"),
        contract=Contract(
            admitted=tuple(map(_tool, contract["admitted"])),
            controls=tuple(map(_tool, contract.get("controls", ()))),
            eligible_controls=frozenset(contract.get("eligible_controls", ())),
            admitted_elsewhere=tuple(map(_tool, contract.get("admitted_elsewhere", ()))),
            facts=tuple(map(_fact, contract.get("facts", ()))),
            web_tools=WebTools(**contract["web_tools"]) if "web_tools" in contract else None,
            capabilities=tuple(
                Capability(c["id"], c["subject"], Access(c["access"])) for c in contract.get("capabilities", ())
            ),
        ),
        messages=tuple(map(_message, document["messages"])),
        hooks=document["hooks"],
        stages=tuple(map(_stage, document["stages"])),
        publication=Publication(publication["id"], publication["body"]) if publication else None,
        outcome=RequestOutcome(document.get("outcome", RequestOutcome.DISPATCHED)),
        mcp=_mcp(document.get("mcp")),
        steps=tuple(map(_step, document.get("steps", ()))),
        source=source,
        digest=hashlib.sha256(dumps(document, sort_keys=True)).hexdigest(),
        recorded=zlib.compress(dumps(document), 1),
    )
