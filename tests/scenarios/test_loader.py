"""The loader: every malformed input gives exact one-line problems, and nothing else escapes it."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsurface import scenarios
from toolsurface.scenarios import (
    RECORDED_KINDS,
    Binding,
    Lane,
    Scenario,
    ScenarioError,
    StageKind,
)

BASE_FILE = scenarios.bundled_dir() / "etf-compare-main-hooked.json"
STAGE_ORDER = "order: recover, hook, revalidate, context_fit, evidence, publication, async_prep, seal"
#: Every stage but `recover`, which only a resumed request records.
LIVE_STAGES = [kind.value for kind in RECORDED_KINDS if kind is not StageKind.RECOVER]


def base() -> dict[str, Any]:
    """A fresh valid document that records every live stage (stage i is the i-th of LIVE_STAGES)."""
    document = orjson.loads(BASE_FILE.read_bytes())
    assert [s["stage"] for s in document["stages"]] == LIVE_STAGES
    return document


def write(folder: Path, document: Any, name: str = "scenario.json") -> Path:
    path = folder / name
    path.write_bytes(document if isinstance(document, bytes) else orjson.dumps(document))
    return path


def problems(paths: list[Path]) -> tuple[str, ...]:
    with pytest.raises(ScenarioError) as raised:
        scenarios.load(paths)
    assert str(raised.value) == "\n".join(raised.value.problems)
    return raised.value.problems


def edited(edit: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    document = base()
    edit(document)
    return document


def duplicate_admitted(d: dict[str, Any]) -> None:
    d["contract"]["admitted"].append(copy.deepcopy(d["contract"]["admitted"][0]))


def remove_stage(kind: str) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        d["stages"] = [s for s in d["stages"] if s["stage"] != kind]

    return edit


def swap_stages(i: int, j: int) -> Callable[[dict[str, Any]], None]:
    def edit(d: dict[str, Any]) -> None:
        d["stages"][i], d["stages"][j] = d["stages"][j], d["stages"][i]

    return edit


def symbol(d: dict[str, Any]) -> dict[str, Any]:
    profile = d["contract"]["admitted"][1]
    assert profile["name"] == "market__get_instrument_profile"
    return profile["input_schema"]["properties"]["symbol"]


STAGE_NAMES = "['recover', 'hook', 'revalidate', 'context_fit', 'evidence', 'publication', 'async_prep', 'seal', 'own']"


def budget_fact(d: dict[str, Any], **changes: Any) -> dict[str, Any]:
    identity = {k: v for k, v in d["identity"].items() if k != "request"}
    return {"fact": "search_budget_exhausted", "owner": "web_gateway", "bound_to": identity, **changes}


def step(d: dict[str, Any], stages: list[dict[str, Any]], name: str | None = None) -> dict[str, Any]:
    """A later model call after one tool call, to `name` (default: the first admitted tool)."""
    called = name or d["contract"]["admitted"][0]["name"]
    return {"calls": [{"name": called, "arguments": {}, "result": "ok"}], "stages": stages}


def entry(d: dict[str, Any]) -> None:
    d["mode"] = "entry"
    d["contract"]["admitted"] = []
    d["contract"].pop("web_tools", None)


#: (edit of a valid document, the problems it must give, as `path: message`)
MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], object], list[str]]] = {
    "missing lane": (lambda d: d.pop("lane"), ["$: 'lane' is a required property"]),
    "missing several keys": (
        lambda d: (d.pop("lane"), d.pop("mode")),
        ["$: 'mode' is a required property", "$: 'lane' is a required property"],
    ),
    "unknown top-level key": (
        lambda d: d.update(extra=1),
        ["$: Additional properties are not allowed ('extra' was unexpected)"],
    ),
    "wrong format": (
        lambda d: d.update(format="toolsurface.scenario/2"),
        ["$.format: 'toolsurface.scenario/1' was expected"],
    ),
    "wrong lane": (lambda d: d.update(lane="sidecar"), ["$.lane: 'sidecar' is not one of ['main', 'child']"]),
    "bad id": (
        lambda d: d.update(id="ETF compare"),
        ["$.id: 'ETF compare' does not match '^[a-z0-9][a-z0-9-]*$'"],
    ),
    "wrong stage enum": (
        lambda d: d["stages"][2].update(stage="compress"),
        [f"$.stages[2].stage: 'compress' is not one of {STAGE_NAMES}"],
    ),
    "context_fit without keep_messages": (
        lambda d: d["stages"][2].pop("keep_messages"),
        ["$.stages[2]: 'keep_messages' is a required property"],
    ),
    "context_fit with a foreign key": (
        lambda d: d["stages"][2].update(metadata={}),
        ["$.stages[2]: 'metadata' is not one of ['stage', 'keep_messages', 'budget_tokens', 'max_tools']"],
    ),
    "keep_messages below two": (
        lambda d: d["stages"][2].update(keep_messages=1),
        ["$.stages[2].keep_messages: 1 is less than the minimum of 2"],
    ),
    "evidence without messages": (
        lambda d: d["stages"][3].pop("add_messages"),
        ["$.stages[3]: 'add_messages' is a required property"],
    ),
    "message with unknown role": (
        lambda d: d["messages"][3].update(role="function"),
        ["$.messages[3].role: 'function' is not one of ['system', 'user', 'assistant', 'tool']"],
    ),
    "input schema not an object schema": (
        lambda d: d["contract"]["admitted"][1].update(input_schema={"type": "array"}),
        ["$.contract.admitted[1].input_schema.type: 'object' was expected"],
    ),
    "duplicate admitted tool": (
        duplicate_admitted,
        [
            "$.contract.admitted[5].name: duplicate tool name 'market__search_instruments' "
            "(first at $.contract.admitted[0])"
        ],
    ),
    "control named like an admitted tool": (
        lambda d: d["contract"]["controls"][0].update(name="market__web_read"),
        [
            "$.contract.controls[0].name: duplicate tool name 'market__web_read' (first at $.contract.admitted[3])",
            "$.contract.eligible_controls[0]: 'read_tool_result' is not one of contract.controls",
        ],
    ),
    "eligible control not in the catalogue": (
        lambda d: d["contract"]["eligible_controls"].append("summarise_context"),
        ["$.contract.eligible_controls[1]: 'summarise_context' is not one of contract.controls"],
    ),
    "eligible control listed twice": (
        lambda d: d["contract"]["eligible_controls"].append("read_tool_result"),
        ["$.contract.eligible_controls: ['read_tool_result', 'read_tool_result'] has non-unique elements"],
    ),
    "stage out of order": (
        swap_stages(2, 3),
        ["$.stages[3].stage: 'context_fit' cannot follow 'evidence' (" + STAGE_ORDER + ")"],
    ),
    "stage recorded twice": (
        lambda d: d["stages"].insert(2, {"stage": "revalidate"}),
        ["$.stages[2].stage: 'revalidate' cannot follow 'revalidate' (" + STAGE_ORDER + ")"],
    ),
    "seal not last": (remove_stage("seal"), ["$.stages[5].stage: the last stage must be 'seal'"]),
    "hooks without a hook stage": (
        remove_stage("hook"),
        ["$.hooks: must be true exactly when a 'hook' stage is recorded"],
    ),
    "hook stage without hooks": (
        lambda d: d.update(hooks=False),
        ["$.hooks: must be true exactly when a 'hook' stage is recorded"],
    ),
    "invalid input schema": (
        lambda d: symbol(d).update(type=5),
        [
            "$.contract.admitted[1].input_schema.properties.symbol.type: "
            "not a valid JSON Schema: 5 is not valid under any of the given schemas"
        ],
    ),
    "invalid schema of a tool admitted elsewhere": (
        lambda d: d["contract"]["admitted_elsewhere"][0]["input_schema"].update(required="account_id"),
        [
            "$.contract.admitted_elsewhere[0].input_schema.required: "
            "not a valid JSON Schema: 'account_id' is not of type 'array'"
        ],
    ),
    "invalid regex in an input schema": (
        lambda d: symbol(d).update(pattern="^[A-Z"),
        [
            "$.contract.admitted[1].input_schema.properties.symbol.pattern: "
            "not a valid JSON Schema: '^[A-Z' is not a 'regex'"
        ],
    ),
    "facts without the web tools they govern": (
        lambda d: (d["contract"].pop("web_tools"), d["contract"].update(facts=[budget_fact(d)])),
        ["$.contract: 'web_tools' is required when there are facts: name the tools they govern"],
    ),
    "web tool that is not admitted": (
        lambda d: d["contract"]["web_tools"].update(read="market__web_fetch"),
        ["$.contract.web_tools.read: 'market__web_fetch' is not one of contract.admitted"],
    ),
    "fact of an unknown kind": (
        lambda d: d["contract"].update(facts=[budget_fact(d, fact="quota_exhausted")]),
        [
            "$.contract.facts[0].fact: 'quota_exhausted' is not one of ['search_budget_exhausted', "
            "'run_deadline_exhausted']"
        ],
    ),
    "fact bound to a partial identity": (
        lambda d: d["contract"].update(facts=[budget_fact(d, bound_to={"run": "run_1"})]),
        [
            f"$.contract.facts[0].bound_to: {key!r} is a required property"
            for key in ("scope", "invocation", "connection")
        ],
    ),
    "deadline fact with source refs": (
        lambda d: d["contract"].update(
            facts=[budget_fact(d, fact="run_deadline_exhausted", owner="host", source_refs=["src_1"])]
        ),
        ["$.contract.facts[0]: 'source_refs' is not one of ['fact', 'owner', 'bound_to', 'arrives']"],
    ),
    "fact arriving at a point the pipeline never offers": (
        lambda d: d["contract"].update(facts=[budget_fact(d, arrives="post_recovery")]),
        [
            "$.contract.facts[0].arrives: 'post_recovery' is not a point this pipeline offers "
            "(hook, post_revalidation, context_fit, evidence, publication, async_prep, post_seal)"
        ],
    ),
    "fact arriving at no injection point": (
        lambda d: d["contract"].update(facts=[budget_fact(d, arrives="seal")]),
        [
            "$.contract.facts[0].arrives: 'seal' is not a point this pipeline offers "
            "(hook, post_revalidation, context_fit, evidence, publication, async_prep, post_seal)"
        ],
    ),
    "later model call resuming from a receipt": (
        lambda d: d.update(steps=[step(d, [{"stage": "recover", "receipt": "rcpt_01"}, {"stage": "seal"}])]),
        ["$.steps[0].stages[0].stage: only the first model call resumes from a receipt"],
    ),
    "later model call's stages out of order": (
        lambda d: d.update(steps=[step(d, [{"stage": "seal"}, {"stage": "hook"}])]),
        ["$.steps[0].stages[1].stage: 'hook' cannot follow 'seal'"],
    ),
    "tool call to a tool the request does not admit": (
        lambda d: d.update(steps=[step(d, [{"stage": "seal"}], name="portfolio__place_rebalance_order")]),
        ["$.steps[0].calls[0].name: 'portfolio__place_rebalance_order' is not a tool this request admits"],
    ),
    "later model call after a capacity result": (
        lambda d: d.update(outcome="capacity", steps=[step(d, [{"stage": "seal"}])]),
        ["$.steps: a request that ends in a capacity result makes no model call, let alone a later one"],
    ),
    "fact arriving before a model call the request never makes": (
        lambda d: (
            d.update(steps=[step(d, [{"stage": "hook"}, {"stage": "seal"}])]),
            d["contract"].update(facts=[budget_fact(d, arrives="hook@3")]),
        ),
        [
            "$.contract.facts[0].arrives: 'hook@3' is not a point this pipeline offers "
            "(hook, post_revalidation, context_fit, evidence, publication, async_prep, post_seal, hook@2, post_seal@2)"
        ],
    ),
    "parent of a main request": (
        lambda d: d["identity"].update(
            parent={k: d["identity"][k] for k in ("run", "scope", "invocation", "connection")}
        ),
        ["$.identity.parent: only a child request has a parent; this one's lane is 'main'"],
    ),
    "capacity outcome without context fitting": (
        lambda d: (d.update(outcome="capacity"), remove_stage("context_fit")(d)),
        ["$.outcome: a 'capacity' outcome needs a 'context_fit' stage, where the request stops"],
    ),
    "recover without its receipt": (
        lambda d: d["stages"].insert(0, {"stage": "recover"}),
        ["$.stages[0]: 'receipt' is a required property"],
    ),
    "rebuild outside revalidation": (
        lambda d: d["stages"][0].update(rebuild=True),
        ["$.stages[0]: 'rebuild' is not one of ['stage']"],
    ),
    "capabilities in a research request": (
        lambda d: d["contract"].update(
            capabilities=[{"id": "portfolio", "subject": "portfolio", "access": "accessible"}]
        ),
        ["$.contract.capabilities: only entry requests carry a capability summary; this one's mode is 'research'"],
    ),
    "entry request without capabilities": (entry, ["$.contract: 'capabilities' is a required property"]),
    "capability that claims a result": (
        lambda d: (
            entry(d),
            d["contract"].update(capabilities=[{"id": "portfolio", "subject": "portfolio", "access": "holdings read"}]),
        ),
        [
            "$.contract.capabilities[0].access: 'holdings read' is not one of ['accessible', 'reference "
            "approved', 'not granted']"
        ],
    ),
    "duplicate capability id": (
        lambda d: (
            entry(d),
            d["contract"].update(
                capabilities=[{"id": "doc", "subject": f"document {n}", "access": "reference approved"} for n in (1, 2)]
            ),
        ),
        ["$.contract.capabilities[1].id: duplicate capability id 'doc'"],
    ),
    "research request without tools": (
        lambda d: (d["contract"].update(admitted=[]), d["contract"].pop("web_tools")),
        ["$.contract.admitted: [] should be non-empty"],
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_document_gives_exact_problems(tmp_path: Path, name: str):
    edit, expected = MALFORMED[name]
    path = write(tmp_path, edited(edit))
    assert problems([path]) == tuple(f"{path}:{line}" for line in expected)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            b'{\n  "id": "x",\n  "lane": main\n}',
            "3:11: invalid JSON: unexpected character, expected a JSON value",
        ),
        (b'{"id": "x",}', "1:11: invalid JSON: trailing comma is not allowed"),
        (b"", "1:1: invalid JSON: Input is a zero-length, empty document"),
        (b"\xff\xfe{}", "1:1: invalid JSON: str is not valid UTF-8: surrogates not allowed"),
    ],
)
def test_invalid_json_names_line_and_column(tmp_path: Path, text: bytes, where: str):
    path = write(tmp_path, text)
    assert problems([path]) == (f"{path}:{where}",)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "$: [] is not of type 'object'"),
        ("scenario", "$: 'scenario' is not of type 'object'"),
        ({"id": {1, 2}}, "$: not representable as JSON: Type is not JSON serializable: set"),
    ],
)
def test_parse_rejects_non_scenarios(value: Any, message: str):
    with pytest.raises(ScenarioError) as raised:
        scenarios.parse(value, source="memo")
    assert raised.value.problems == (f"memo:{message}",)


def test_same_id_in_two_files(tmp_path: Path):
    first = write(tmp_path, base(), "a.json")
    second = write(tmp_path, base(), "b.json")
    assert problems([tmp_path]) == (
        f"{second}:$.id: duplicate scenario id 'etf-compare-main-hooked' (also in {first})",
    )


def test_every_problem_of_every_file_is_reported(tmp_path: Path):
    files = {
        "a.json": edited(lambda d: (d.pop("lane"), d["stages"][2].pop("keep_messages"))),
        "b.json": b'{"id": ',
        "c.json": base(),  # valid: must not hide or add anything
        "d.json": edited(lambda d: (duplicate_admitted(d), d.update(id="other"))),
        "e.json": edited(lambda d: (remove_stage("hook")(d), d.update(id="third"))),
    }
    paths = {name: write(tmp_path, document, name) for name, document in files.items()}
    assert problems([tmp_path]) == (
        f"{paths['a.json']}:$: 'lane' is a required property",
        f"{paths['a.json']}:$.stages[2]: 'keep_messages' is a required property",
        f"{paths['b.json']}:1:8: invalid JSON: unexpected end of data",
        f"{paths['d.json']}:$.contract.admitted[5].name: duplicate tool name 'market__search_instruments' "
        "(first at $.contract.admitted[0])",
        f"{paths['e.json']}:$.hooks: must be true exactly when a 'hook' stage is recorded",
    )


def test_missing_paths_and_empty_folders_are_named(tmp_path: Path):
    missing = tmp_path / "nope.json"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert problems([missing]) == (f"{missing}: no such scenario file or folder",)
    assert problems([empty]) == (f"{empty}: no scenario files (*.json) found",)
    # A one-shot iterable must still name what it was given.
    assert problems(iter([empty])) == (f"{empty}: no scenario files (*.json) found",)


def test_files_and_folders_combine_in_given_order(tmp_path: Path):
    folder = tmp_path / "more"
    folder.mkdir()
    write(folder, edited(lambda d: d.update(id="zz-second")), "b.json")
    write(folder, edited(lambda d: d.update(id="aa-first")), "a.json")
    (folder / "notes.txt").write_text("not a scenario")
    single = write(tmp_path, edited(lambda d: d.update(id="mm-single")), "single.json")
    assert [s.id for s in scenarios.load([single, folder])] == ["mm-single", "aa-first", "zz-second"]


# -- what a valid document builds ----------------------------------------------------------------


def test_valid_document_builds_its_values(tmp_path: Path):
    document = base()
    path = write(tmp_path, document)
    (scenario,) = scenarios.load([path])
    assert scenario.source == str(path)
    assert scenario.id == document["id"]
    assert scenario.lane is Lane.MAIN
    assert scenario.identity.request == document["identity"]["request"]
    assert [t.as_logical() for t in scenario.contract.admitted] == document["contract"]["admitted"]
    assert scenario.contract.eligible_controls == frozenset(document["contract"]["eligible_controls"])
    assert [s.kind.value for s in scenario.stages] == [s["stage"] for s in document["stages"]]
    assert scenario.stage(StageKind.CONTEXT_FIT).keep_messages == document["stages"][2]["keep_messages"]
    evidence = scenario.stage(StageKind.EVIDENCE).add_messages
    assert [m.as_dict() for m in evidence] == document["stages"][3]["add_messages"]
    assert scenario.stage(StageKind.ASYNC_PREP).metadata == document["stages"][5]["metadata"]
    assert scenario.publication.body == document["publication"]["body"]
    assert scenario == scenarios.parse(document, source="elsewhere")  # the source is not part of the value


def test_a_child_records_its_parent_and_a_fact_when_it_arrived():
    document = base()
    parent = {k: document["identity"][k] for k in ("run", "scope", "invocation", "connection")}
    child = {**parent, "scope": parent["scope"] + "/child/news", "invocation": parent["invocation"] + ".child_1"}
    document.update(lane="child", identity={**child, "request": "req_child_1", "parent": parent})
    document["contract"]["facts"] = [
        budget_fact(document, bound_to=child),
        budget_fact(document, fact="run_deadline_exhausted", owner="host", bound_to=child, arrives="async_prep"),
    ]
    scenario = scenarios.parse(document)
    assert scenario.identity.parent == Binding(**parent) != scenario.binding
    assert [fact.arrives for fact in scenario.contract.facts] == [None, "async_prep"]
    # Both have arrived by dispatch: the expected surface obeys the late one too.
    assert not {"market__web_search", "market__web_read"} & {tool.name for tool in scenario.surface}


def test_optional_fields_take_their_defaults():
    document = edited(lambda d: (d.pop("tool_format"), d.pop("publication"), d.pop("$schema")))
    del document["contract"]["controls"], document["contract"]["eligible_controls"]
    del document["contract"]["admitted_elsewhere"]
    scenario = scenarios.parse(document)
    assert scenario.tool_format == "logical"
    assert scenario.publication is None
    assert scenario.contract.controls == () and scenario.contract.eligible_controls == frozenset()
    assert scenario.contract.surface == scenario.contract.admitted


def test_integral_floats_become_ints():
    # JSON Schema counts 6.0 as an integer; the stage must still hold a usable int.
    document = edited(lambda d: d["stages"][2].update(keep_messages=6.0, budget_tokens=24000.0))
    fit = scenarios.parse(document).stage(StageKind.CONTEXT_FIT)
    assert (fit.keep_messages, fit.budget_tokens) == (6, 24000)
    assert type(fit.keep_messages) is int and type(fit.budget_tokens) is int


def test_loaded_values_cannot_be_edited_through_the_document():
    document = base()
    scenario = scenarios.parse(document)
    symbol(document)["type"] = "integer"
    document["stages"][5]["metadata"]["prefetch"] = {}
    assert scenario.contract.admitted[1].input_schema["properties"]["symbol"]["type"] == "string"
    assert scenario.stage(StageKind.ASYNC_PREP).metadata["prefetch"] == {"quotes": ["VWRL.L", "SSAC.L"]}


# -- problems stay one line, whatever the input --------------------------------------------------


def test_odd_property_names_keep_the_problem_on_one_line():
    document = base()
    document["contract"]["admitted"][1]["input_schema"]["properties"]["line\nbreak"] = {"type": 5}
    with pytest.raises(ScenarioError) as raised:
        scenarios.parse(document, source="memo")
    assert raised.value.problems == (
        'memo:$.contract.admitted[1].input_schema.properties["line\\nbreak"].type: '
        "not a valid JSON Schema: 5 is not valid under any of the given schemas",
    )


def test_deeply_nested_input_schema_is_a_problem_not_a_crash(tmp_path: Path):
    nested: dict[str, Any] = {"type": "string"}
    for _ in range(100):  # 200 JSON levels: within what orjson writes and reads back
        nested = {"type": "object", "properties": {"inner": nested}}
    document = edited(lambda d: symbol(d).update(nested))
    path = write(tmp_path, document)
    assert problems([path]) == (
        f"{path}:$.contract.admitted[1].input_schema: not a valid JSON Schema: nested too deeply to check",
    )


# -- properties: any input gives a Scenario or a ScenarioError, never another exception ----------

BUNDLED_FILES = sorted(scenarios.bundled_dir().glob("*.json"))
BUNDLED_DOCUMENTS = [orjson.loads(path.read_bytes()) for path in BUNDLED_FILES]
#: Validation takes milliseconds per example; tmp_path is reused on purpose (each example rewrites it).
#: Deadlines and derandomization come from the profiles in tests/conftest.py.
SLOW = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=12,
)


def locations(node: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """The path of every key and item in a document, at every depth."""
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    return [loc for key, child in children for loc in [(*path, key), *locations(child, (*path, key))]]


BUNDLED_LOCATIONS = [(document, locations(document)) for document in BUNDLED_DOCUMENTS]


@st.composite
def mutated_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A bundled document with one key or item, anywhere in it, deleted or replaced by any JSON."""
    original, places = draw(st.sampled_from(BUNDLED_LOCATIONS))
    document = copy.deepcopy(original)
    *steps, last = draw(st.sampled_from(places))
    parent = document
    for step in steps:
        parent = parent[step]
    if draw(st.booleans()):
        del parent[last]
    else:
        parent[last] = draw(json_values)
    return document


def assert_outcome(outcome: Callable[[], object], source: str, json_error_ok: bool = False) -> None:
    """`outcome()` returns, or raises a `ScenarioError` whose every problem is one line about `source`."""
    try:
        outcome()
    except ScenarioError as error:
        assert error.problems
        for problem in error.problems:
            assert len(problem.splitlines()) == 1, problem
            at_path = problem.startswith(f"{source}:$")
            at_position = json_error_ok and re.match(rf"{re.escape(source)}:\d+:\d+: invalid JSON: ", problem)
            assert at_path or at_position, problem


def loaded_one(path: Path) -> None:
    (scenario,) = scenarios.load([path])
    assert isinstance(scenario, Scenario)
    assert scenario.source == str(path)


@SLOW
@given(json_values)
def test_parse_of_any_json_value(value: Any):
    assert_outcome(lambda: scenarios.parse(value, source="fuzz"), "fuzz")


@SLOW
@given(mutated_scenarios())
def test_parse_of_a_mutated_scenario(document: dict[str, Any]):
    def outcome() -> None:
        scenario = scenarios.parse(document, source="fuzz")
        assert isinstance(scenario, Scenario)
        assert scenario.id == document["id"]

    assert_outcome(outcome, "fuzz")


@SLOW
@given(st.binary(max_size=200))
def test_load_of_any_bytes(tmp_path: Path, data: bytes):
    path = write(tmp_path, data)
    assert_outcome(lambda: loaded_one(path), str(path), json_error_ok=True)


@SLOW
@given(st.sampled_from(BUNDLED_FILES), st.data())
def test_load_of_a_damaged_file(tmp_path: Path, original: Path, data: st.DataObject):
    raw = bytearray(original.read_bytes())
    start = data.draw(st.integers(0, len(raw) - 1), label="start")
    end = data.draw(st.integers(start, min(len(raw), start + 8)), label="end")
    raw[start:end] = data.draw(st.binary(max_size=8), label="replacement")
    path = write(tmp_path, bytes(raw))
    assert_outcome(lambda: loaded_one(path), str(path), json_error_ok=True)
