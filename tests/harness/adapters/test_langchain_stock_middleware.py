"""LangChain's stock middleware under the harness: a middleware's auxiliary model call (a summary, an
emulated tool's result) is answered from the recording by the offline model and is no model call of
the request's; and a guarded agent with no `wrap_model_call` middleware of its own is checked after
its one boundary."""

from __future__ import annotations

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from tests.fixtures.frameworks import run_cases  # noqa: E402
from toolsurface.harness._types import VerdictKind  # noqa: E402

APP = "langchain:tests.fixtures.agents.stock_middleware_langchain:{}"
#: The recording of three model calls, whose tools run twice: unchanged, on the legitimate change.
LOOP = ["etf-compare-main-tool-loop/main/hooks/before:*/legit.in_place:compress:messages"]


@pytest.mark.parametrize("row", ["summarization_guarded", "tool_emulator_guarded"])
def test_an_auxiliary_call_is_answered_and_not_dispatched(row):
    results = run_cases(APP.format(row), LOOP)
    assert results and all(r.verdict.kind is VerdictKind.PASSED for r in results), [
        (r.case.id, r.verdict.reason) for r in results
    ]
    # Three model calls recorded, three dispatched: the summary and the emulated tools are not among them.
    assert {r.evidence.dispatches for r in results} == {3}


def test_a_guarded_agent_without_middleware_of_its_own_is_checked_after_its_model_boundary():
    # PIIMiddleware has no `wrap_model_call`: the agent's one boundary is `before:model`, where the
    # guard hands the request on, so the final check sees what changed there.
    results = run_cases(APP.format("pii_guarded"), ["etf-compare-main-tool-loop/main/hooks/before:model*/delete.*"])
    assert results and {r.verdict.kind for r in results} == {VerdictKind.KILLED}


@pytest.mark.parametrize("row", ["model_fallback_guarded", "model_retry_guarded"])
def test_a_retry_after_the_guard_s_refusal_sends_nothing(row):
    # The middleware catches the refusal and calls the model again (retry, fallback model): the
    # refused request stays refused, so nothing goes out, and the run is judged by that refusal.
    results = run_cases(APP.format(row), ["etf-compare-main-tool-loop/main/hooks/after:*/delete.*"])
    assert results and {r.verdict.kind for r in results} == {VerdictKind.KILLED}, [
        (r.case.id, r.verdict.reason) for r in results if r.verdict.kind is not VerdictKind.KILLED
    ][:3]
    first_call = [r for r in results if r.case.boundary.call == 1]  # a change at call 2 comes after call 1 went out
    assert first_call and all(r.evidence.dispatches == 0 for r in first_call)
