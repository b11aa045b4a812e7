"""An OpenAI Agents SDK agent whose tools' `is_enabled` selects each model call's tools: the guard
takes what it enables as the call's admission, and the harness holds the call to it."""

from __future__ import annotations

import pytest

pytest.importorskip("agents", reason="needs the openai-agents extra: pip install 'toolsurface[openai-agents]'")

from tests.fixtures.frameworks import run_cases
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._types import VerdictKind

APP = "openai-agents:tests.fixtures.agents.openai_agents_selecting_app:{}"
#: A tool loop of three model calls, each selected afresh: every kind, and the legitimate changes.
SELECT = [
    f"etf-compare-main-tool-loop/main/hooks/*/{kind}.*" for kind in ("delete", "reorder", "legit", "availability")
]


def test_the_selecting_agent_passes_and_each_call_goes_out_with_its_selection():
    results = run_cases(APP.format("build"), SELECT)
    failing = [(r.case.id, r.verdict.reason) for r in results if not r.verdict.kind.ok]
    assert results and not failing, failing[:3]
    passed = [r for r in results if r.verdict.kind is VerdictKind.PASSED and r.evidence.dispatches]
    # The market tools only: four of the recording's five, selected on every model call.
    assert passed and all(a.tools == 4 and a.selection for r in passed for a in r.evidence.admitted)
    assert any(r.verdict.code is ReasonCode.NOT_SELECTED for r in results)


def test_a_wrapper_that_drops_a_selected_tool_fails_and_names_the_refusal():
    results = run_cases(APP.format("build_flawed"), ["etf-compare-main-tool-loop/main/hooks/*/legit.*"])
    judged = [r for r in results if r.verdict.kind is not VerdictKind.EQUIVALENT]
    assert judged and not any(r.verdict.kind.ok for r in judged)
    later = [r for r in judged if r.case.boundary.call > 1]
    # The unchanged request was refused at its first model call: the cases of later calls say so, in its words.
    assert later and all(r.verdict.code is ReasonCode.REFUSED_BEFORE_POINT for r in later)
    assert all("final check: tool surface differs from the expected one: removed" in r.verdict.reason for r in later)


def test_capacity_is_decided_on_the_selection_less_what_a_fact_arriving_after_admission_hides():
    # Over its budget with every tool; its selection, less the two tools a trusted fact hides once
    # admission is over, fits: the request must go out, and the guard lets it.
    results = run_cases(APP.format("build"), ["holdings-review-main-over-capacity/main/hooks/*/availability.*"])
    failing = [(r.case.id, r.verdict.reason) for r in results if not r.verdict.kind.ok]
    assert results and not failing, failing[:3]
    assert any(r.evidence.dispatches for r in results) and any(r.evidence.ending == "capacity" for r in results)
