import functools
import tempfile
from pathlib import Path

import pytest

from tests.fixtures.user_targets import Adapter, Crashing, Idle, NoInjection
from toolsurface import scenarios
from toolsurface.common._errors import UsageError
from toolsurface.contract._json import dumps
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._capacity import compress
from toolsurface.harness._own_recording import Frame, own_recording
from toolsurface.harness._plan import plan
from toolsurface.harness._ports import Publications
from toolsurface.harness._recorder import record
from toolsurface.harness._reference._stages import replay_messages
from toolsurface.harness._targets import load_target
from toolsurface.scenarios import Boundary, RequestOutcome, StageKind

BUNDLED = scenarios.load()
BUNDLED_BY_ID = {scenario.id: scenario for scenario in BUNDLED}


@pytest.mark.parametrize("scenario", BUNDLED, ids=lambda s: s.id)
def test_a_live_run_of_the_guard_records_the_scenario_it_ran(scenario):
    document = record(load_target("reference:guarded"), scenario)
    assert {key: value for key, value in document.items() if key != "description"} == {
        key: value for key, value in scenario.document.items() if key != "description"
    }
    recorded = scenarios.parse(document)
    assert [case.id for case in plan([recorded], 0)] == [case.id for case in plan([scenario], 0)]


def test_the_recording_replays_to_the_verdicts_of_the_live_run(tmp_path):
    scenario = next(s for s in BUNDLED if s.id == "note-refresh-main-mcp-hooked")
    (tmp_path / "recorded.json").write_bytes(dumps(record(load_target("reference:guarded"), scenario)))
    select = [f"{scenario.id}/*"]
    live = {
        r.case.id: r.verdict.kind for r in prepare(RunOptions(select=select, red_target="reference:legacy")).results()
    }
    replayed = prepare(RunOptions(scenarios=[tmp_path], select=select, red_target="reference:legacy")).results()
    assert {r.case.id: r.verdict.kind for r in replayed} == live


def test_what_the_host_did_to_the_messages_is_what_is_recorded():
    # This adapter offers every point but compresses nothing: its recording keeps every message.
    scenario = next(s for s in BUNDLED if s.id == "holdings-review-main-no-evidence")
    document = record(Adapter(), scenario)
    (fit,) = [stage for stage in document["stages"] if stage["stage"] == "context_fit"]
    (original,) = [stage for stage in scenario.document["stages"] if stage["stage"] == "context_fit"]
    assert fit["keep_messages"] == len(scenario.request_messages) > original["keep_messages"]
    assert fit["budget_tokens"] == original["budget_tokens"]  # a budget is not on the request: taken as recorded


def test_an_evidence_stage_that_appends_nothing_cannot_be_recorded():
    # The same adapter offers the evidence point of a recording with evidence, and appends nothing.
    scenario = next(s for s in BUNDLED if s.id == "price-history-child-hooked")
    with pytest.raises(UsageError, match="the evidence stage did not append messages"):
        record(Adapter(), scenario)


def test_a_host_that_drops_an_admitted_tool_before_any_stage_cannot_be_recorded():
    scenario = next(s for s in BUNDLED if s.id == "etf-compare-main-recovery")
    with pytest.raises(UsageError, match=r"first boundary lacks 'market__web_search', which the contract admits"):
        record(load_target("reference:legacy"), scenario)


@pytest.mark.parametrize(
    ("target", "problem"),
    [
        (Crashing(), "the target crashed"),
        (NoInjection(), "offered no injection point"),
        (Idle(), "ended without a dispatch, a refusal or a capacity result"),
    ],
)
def test_a_run_that_shows_nothing_is_an_error_not_a_recording(target, problem):
    with pytest.raises(UsageError, match=problem):
        record(target, BUNDLED[0])


def test_a_run_that_never_answers_the_models_tool_calls_is_not_a_recording_of_them():
    loop = next(s for s in BUNDLED if s.steps)
    with pytest.raises(UsageError, match=f"the run made 1 of the {loop.model_calls} model calls the recording makes"):
        record(load_target("tests.fixtures.step_hosts:OneShot"), loop)


# -- a target whose boundaries are its own: a user's agent --------------------------------------

LANGCHAIN = "langchain:tests.fixtures.agents.langchain_app:build_guarded"
PYDANTIC_AI = "pydantic-ai:tests.fixtures.agents.pydantic_ai_app:build_guarded"
#: Boundaries of every shape: a later model call's, a request's over capacity (one that stops
#: before the agent's first boundary, one after its last), where a fact arrives mid-run, an entry request's.
WHERE = {
    "etf-compare-main-tool-loop": "after:*@2",
    "holdings-review-main-over-capacity": "after:ProviderLimit",
    "desk-research-main-openai-over-tool-limit": "before:*",
    "etf-compare-main-late-budget": "before:*",
    "entry-main-portfolio-document": "before:*",
}
#: Of each, mutations that must be refused and legitimate changes that must go through.
KINDS = ("add", "delete", "availability", "legit")


@functools.cache
def recorded(spec: str) -> Path:
    """The bundled scenarios as `spec` runs them, recorded to a folder of their own."""
    pytest.importorskip({"langchain": "langchain", "pydantic-ai": "pydantic_ai"}[spec.partition(":")[0]])
    folder = Path(tempfile.mkdtemp(prefix="toolsurface-recorded-"))
    target = load_target(spec)
    for scenario in BUNDLED:
        (folder / f"{scenario.id}.json").write_bytes(dumps(record(target, scenario)))
    return folder


def verdicts(
    target: str, folder: Path, red_target: str = "none", kinds: tuple[str, ...] = KINDS
) -> dict[str, tuple[str, str | None]]:
    """The verdicts on the cases of these kinds at `WHERE`, of the scenarios in `folder`."""
    chosen = [folder / f"{scenario}.json" for scenario in WHERE]
    select = [f"{scenario}/*/{point}/{kind}.*" for scenario, point in WHERE.items() for kind in kinds]
    session = prepare(RunOptions(target=target, red_target=red_target, scenarios=chosen, select=select))
    return {r.case.id: (r.verdict.kind.value, r.red_verdict and r.red_verdict.kind.value) for r in session.records()}


@pytest.mark.parametrize("spec", [LANGCHAIN, PYDANTIC_AI])
def test_an_agent_is_recorded_as_its_own_stages(spec):
    recordings = {s.id: s for s in scenarios.load([recorded(spec)])}
    target = load_target(spec)
    for scenario in BUNDLED:
        again = recordings[scenario.id]
        assert all(
            stage.kind is StageKind.OWN for call in range(1, again.model_calls + 1) for stage in again.stages_of(call)
        )
        # Each model call's stages are the boundaries the agent offers before it, in its order.
        assert again.checkpoints == target.checkpoints(scenario) or again.outcome is RequestOutcome.CAPACITY
        assert again.model_calls == scenario.model_calls and again.hooks == scenario.hooks
        assert again.fit is not None and again.fit.budget_tokens == scenario.fit.budget_tokens
        offered = {str(at) for at in again.checkpoints}
        assert {fact.arrives for fact in again.contract.facts} <= offered | {None}
        assert [fact.arrives is None for fact in again.contract.facts] == [
            fact.arrives is None for fact in scenario.contract.facts
        ]
    loop = recordings["etf-compare-main-tool-loop"]
    points = [stage.point for stage in loop.stages_of(2)]
    assert points[0].startswith("before:") and [str(Boundary(points[0], 2)), str(Boundary(points[0], 3))] == sorted(
        fact.arrives for fact in loop.contract.facts
    )


def test_a_langchain_agent_s_stages_are_its_middleware():
    recording = scenarios.load([recorded(LANGCHAIN) / "etf-compare-main-hooked.json"])[0]
    assert recording.points == ("before:tracing", "after:tracing", "after:ProviderLimit")
    # The conversation is the one the agent was handed: the source's, as its stages left it.
    assert recording.request_messages != BUNDLED_BY_ID["etf-compare-main-hooked"].request_messages


@pytest.mark.parametrize(("spec", "kinds"), [(LANGCHAIN, KINDS), (PYDANTIC_AI, ("delete", "legit"))])
def test_a_recording_of_an_agent_replays_on_it_to_the_same_cases_and_verdicts(spec, kinds):
    live = verdicts(spec, scenarios.bundled_dir(), kinds=kinds)
    replayed = verdicts(spec, recorded(spec), kinds=kinds)
    assert len(live) > 50 and replayed == live


def test_a_recording_of_an_agent_runs_on_the_reference_pipelines():
    ran = verdicts("reference:guarded", recorded(LANGCHAIN), red_target="reference:legacy")
    assert ran and {verdict for verdict, _ in ran.values()} <= {"killed", "passed", "equivalent"}
    # The old path fails them by sending a changed surface: it refuses no legitimate change.
    assert {red for _, red in ran.values()} - {"killed", "passed", "equivalent"} == {"survived"}


def test_a_stage_of_an_agent_s_own_records_what_it_did_to_the_messages():
    scenario = BUNDLED_BY_ID["etf-compare-main-hooked"]
    handed = [message.as_dict() for message in scenario.request_messages]
    evidence = {"role": "system", "content": "evidence"}
    frames = [
        Frame(Boundary("before:a"), (), tuple(handed)),
        Frame(Boundary("after:a"), (), (*handed, evidence)),
        Frame(Boundary("after:b"), (), tuple(compress([*handed, evidence], 4))),
        Frame(Boundary("after:c"), (), tuple(compress([*handed, evidence], 4))),
    ]
    document = own_recording(scenario, frames, scenario.document["contract"], (), stopped=False)
    assert document["stages"] == [
        {"stage": "own", "point": "before:a"},
        {"stage": "own", "point": "after:a", "add_messages": [evidence]},
        {"stage": "own", "point": "after:b", "keep_messages": 4},
        {"stage": "own", "point": "after:c", "budget_tokens": scenario.fit.budget_tokens},
    ]
    # The reference pipelines replay those effects; the agent's own middleware do them themselves.
    replayed = scenarios.parse(document)
    views = handed
    for stage in replayed.stages:
        views = replay_messages(stage, views, replayed, Publications({}))
    assert views == list(frames[-1].messages)
    with pytest.raises(
        UsageError, match=r"the stage before 'after:b' changed the messages in a way a recording cannot hold"
    ):
        own_recording(
            scenario,
            [*frames[:2], Frame(Boundary("after:b"), (), tuple(reversed(handed)))],
            scenario.document["contract"],
            (),
            False,
        )
