"""A LangChain agent whose admission is a step of its own: a tool selector and middleware with tools
of their own run for real, and the request is held to what each model call selected."""

from __future__ import annotations

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from tests.fixtures.frameworks import run_cases
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._types import VerdictKind

#: Its module fixture runs many cases: one worker takes all its tests (`--dist loadgroup`), so the
#: fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("langchain-admission")

APP = "langchain:tests.fixtures.agents.langchain_selecting_app:{}"
#: A recording with a tool loop (three model calls, each selected afresh), one with a context fit
#: that drops the user's turn, and one of 140 tools, over its provider's limit of 128.
SELECT = [
    "etf-compare-main-tool-loop/main/hooks/*/delete.*",
    "etf-compare-main-tool-loop/main/hooks/after:L*/description.*",
    "etf-compare-main-tool-loop/main/hooks/*/legit.*",
    "desk-research-main-openai-over-tool-limit/main/*/after:admission/legit.*",
]


@pytest.fixture(scope="module")
def selecting():
    return run_cases(APP.format("build"), SELECT)


def test_the_selecting_agent_passes_with_the_guard_placed_after_admission(selecting):
    kinds = {r.verdict.kind for r in selecting}
    assert kinds <= {VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT}, [
        (r.case.id, r.verdict.reason) for r in selecting if not r.verdict.kind.ok
    ][:3]
    # Each model call went out with the (at most five) tools selected for it, and the selection was recorded.
    passed = [r for r in selecting if r.verdict.kind is VerdictKind.PASSED and r.evidence.dispatches]
    assert passed and all(1 <= a.tools <= 5 and a.selection for r in passed for a in r.evidence.admitted)


def test_changes_before_admission_are_selection_and_after_it_are_refused(selecting):
    by_point = {}
    for r in selecting:
        if r.case.mutation.kind.value == "delete" and r.verdict.kind is not VerdictKind.EQUIVALENT:
            by_point.setdefault(r.case.point.split("@")[0], set()).add(r.verdict.kind)
    # A tool dropped before the selector ran is the selector's business; after admission, a violation.
    assert by_point["before:TodoListMiddleware"] == {VerdictKind.PASSED}
    assert by_point["after:admission"] == {VerdictKind.KILLED}
    # An edit before admission that reaches the selection is refused at admission.
    edits = [r for r in selecting if r.case.mutation.kind.value == "description" and r.case.point.startswith("after:L")]
    assert {r.verdict.kind for r in edits} - {VerdictKind.EQUIVALENT} == {VerdictKind.KILLED}


def test_a_change_to_a_tool_the_selector_left_out_is_equivalent(selecting):
    left_out = [r for r in selecting if r.verdict.code is ReasonCode.NOT_SELECTED]
    assert left_out and all(r.verdict.kind is VerdictKind.EQUIVALENT for r in left_out)
    assert all(r.verdict.reason.startswith("admission left out what the change acts on: ") for r in left_out)


def test_a_selection_makes_an_over_limit_recording_fit(selecting):
    over = [r for r in selecting if r.case.scenario == "desk-research-main-openai-over-tool-limit"]
    assert over and all(r.evidence.dispatches for r in over if r.verdict.kind is VerdictKind.PASSED)
    assert not any(r.evidence.admitted[0].over_capacity for r in over if r.evidence.admitted)


def test_a_flawed_middleware_after_admission_fails_at_its_own_boundary():
    results = run_cases(APP.format("build_flawed"), ["etf-compare-main-tool-loop/main/hooks/after:KeepFour*/legit.*"])
    failing = [r for r in results if not r.verdict.kind.ok]
    assert failing and all(r.case.point.startswith("after:KeepFour") for r in failing)
    assert any("removed" in r.verdict.reason for r in failing)


def test_capacity_is_counted_on_the_selection_less_what_a_late_trusted_fact_hides():
    # The selection does not fit its budget; less the two tools a trusted fact hides after admission,
    # it does (one that hides a single tool leaves it over: an explicit capacity result).
    results = run_cases(
        APP.format("build"),
        ["etf-compare-main-openai/main/no-hooks/after:admission/availability.replace:trusted_fact:*"],
    )
    assert results and all(r.verdict.kind is VerdictKind.PASSED for r in results), [
        (r.case.id, r.verdict.reason) for r in results
    ]
    # The deadline hides both web tools: what is left fits, and goes out.
    deadline = [r for r in results if r.case.id.endswith(":run_deadline_exhausted")]
    assert deadline and all(r.evidence.dispatches for r in deadline)
