"""Stages of a host's own (`own`): a recording of an agent's middleware, named by their boundaries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from toolsurface import scenarios
from toolsurface.scenarios import Boundary, RequestOutcome, Stage, StageKind, own_point_problem

from .test_loader import base, budget_fact, problems, step, write


def own(point: str, **effect: Any) -> dict[str, Any]:
    return {"stage": "own", "point": point, **effect}


def agent(d: dict[str, Any]) -> dict[str, Any]:
    """The base document recorded as an agent's three boundaries: its stages are its own."""
    d["stages"] = [own("before:tracing"), own("after:tracing"), own("after:ProviderLimit", budget_tokens=24000)]
    return d


def test_own_stages_load_with_their_points_and_effects(tmp_path: Path):
    document = agent(base())
    document["stages"][1] = own(
        "after:tracing", keep_messages=4, add_messages=[{"role": "system", "content": "evidence"}]
    )
    (scenario,) = scenarios.load([write(tmp_path, document)])
    assert scenario.points == ("before:tracing", "after:tracing", "after:ProviderLimit")
    assert scenario.stages[1] == Stage(
        StageKind.OWN,
        keep_messages=4,
        add_messages=(scenarios.Message("system", "evidence"),),
        own_point="after:tracing",
    )
    assert scenario.fit == scenario.stages[2] and scenario.fit.budget_tokens == 24000
    assert scenario.hooks  # as recorded: an agent's own stages say nothing of whether it registered hooks


def test_a_later_model_call_names_its_own_boundaries_and_facts_may_arrive_at_them(tmp_path: Path):
    document = agent(base())
    document["steps"] = [step(document, [own("before:tracing"), own("after:tracing")])]
    document["contract"]["facts"] = [budget_fact(document, arrives="before:tracing@2")]
    (scenario,) = scenarios.load([write(tmp_path, document)])
    assert scenario.checkpoints[3:] == (Boundary("before:tracing", 2), Boundary("after:tracing", 2))
    assert scenario.surface_at(1) != scenario.surface_at(2)  # the fact hides web search from the second call on


def test_a_capacity_outcome_stops_at_the_own_stage_that_carries_the_budget(tmp_path: Path):
    document = agent(base())
    document["outcome"] = "capacity"
    (scenario,) = scenarios.load([write(tmp_path, document)])
    assert scenario.outcome is RequestOutcome.CAPACITY and scenario.points == ("before:tracing", "after:tracing")


#: (edit of an agent's recording, the problems it must give, as `path: message`)
MALFORMED = {
    "a slash in a boundary": (
        lambda d: d["stages"][2].update(point="after:a/b"),
        [
            "$.stages[2].point: 'after:a/b' must be 1 to 64 characters with no '/', '@', '*', '?', '[', "
            "']', whitespace or control "
            "characters (it becomes part of case ids)"
        ],
    ),
    "a later call's mark in a boundary": (
        lambda d: d["stages"][0].update(point="before:tracing@2"),
        [
            "$.stages[0].point: 'before:tracing@2' must be 1 to 64 characters with no '/', '@', '*', "
            "'?', '[', ']', whitespace or "
            "control characters (it becomes part of case ids)"
        ],
    ),
    "a glob in a boundary": (
        lambda d: d["stages"][0].update(point="before:*"),
        ["$.stages[0].point: 'before:*' must be"],
    ),
    "whitespace in a boundary": (
        lambda d: d["stages"][0].update(point="before: x"),
        ["$.stages[0].point: 'before: x' must be"],
    ),
    "a control character in a boundary": (
        lambda d: d["stages"][0].update(point="before:\x07"),
        ["$.stages[0].point: 'before:\\x07' must be"],
    ),
    "an empty boundary": (lambda d: d["stages"][0].update(point=""), ["$.stages[0].point: '' must be"]),
    "a recorded point's name": (
        lambda d: d["stages"][1].update(point="hook"),
        [
            "$.stages[1].point: 'hook' is the point of a recorded 'hook' stage: a stage of the host's "
            "own names a boundary of its own"
        ],
    ),
    "a boundary twice in one model call": (
        lambda d: d["stages"][2].update(point="after:tracing"),
        ["$.stages[2].point: 'after:tracing' is already the boundary of stage 1 of this model call"],
    ),
    "an own stage without its point": (
        lambda d: d["stages"][0].pop("point"),
        ["$.stages[0]: 'point' is a required property"],
    ),
    "a point on a recorded stage": (
        lambda d: d["stages"].insert(0, {"stage": "hook", "point": "before:tracing"}),
        ["$.stages[0]: 'point' is not one of ['stage']"],
    ),
    "an own stage with another stage's field": (
        lambda d: d["stages"][0].update(metadata={}),
        [
            "$.stages[0]: 'metadata' is not one of ['stage', 'point', 'keep_messages', 'add_messages', "
            "'budget_tokens', 'max_tools']"
        ],
    ),
    "a capacity outcome with no budget": (
        lambda d: (d.update(outcome="capacity"), d["stages"][2].pop("budget_tokens")),
        [
            "$.outcome: a 'capacity' outcome needs a 'context_fit' stage, or an 'own' stage with "
            "budget_tokens, where the request stops"
        ],
    ),
    "a fact arriving at a boundary the agent never offers": (
        lambda d: d["contract"].update(facts=[budget_fact(d, arrives="async_prep")]),
        [
            "$.contract.facts[0].arrives: 'async_prep' is not a point this pipeline offers "
            "(before:tracing, after:tracing, after:ProviderLimit)"
        ],
    ),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_malformed_own_stage_is_one_line_naming_its_path(tmp_path: Path, name: str):
    edit, expected = MALFORMED[name]
    document = agent(base())
    edit(document)
    path = write(tmp_path, document)
    found = problems([path])
    assert len(found) == len(expected)
    for line, start in zip(found, expected, strict=True):
        assert line.startswith(f"{path}:{start}") and "\n" not in line


def test_the_schema_and_the_loader_agree_on_a_boundary_name():
    pattern = orjson.loads((scenarios.bundled_dir().parent / "scenario.schema.json").read_bytes())["$defs"][
        "own_point"
    ]["pattern"]
    assert pattern == scenarios._model.OWN_POINT_PATTERN
    assert own_point_problem("after:ProviderLimit") is None and own_point_problem("before:model") is None
    assert own_point_problem("x" * 65) is not None and own_point_problem("post_seal") is not None
