import orjson
import pytest

from tests.fixtures.user_targets import Adapter, Crashing, Idle, NoInjection
from toolsurface import scenarios
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._errors import UsageError
from toolsurface.harness._plan import plan
from toolsurface.harness._recorder import record
from toolsurface.harness._targets import load_target

BUNDLED = scenarios.load()


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
    (tmp_path / "recorded.json").write_bytes(orjson.dumps(record(load_target("reference:guarded"), scenario)))
    select = [f"{scenario.id}/*"]
    live = {r.case.id: r.verdict.kind for r in prepare(RunOptions(select=select, red_target="reference:legacy")).results()}
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
