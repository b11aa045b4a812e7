"""A pydantic-ai agent whose `prepare_tools` selects each model call's tools: with the guard's
`guard.admitted()` after the selector, selection is admission, and the request is held to it."""

from __future__ import annotations

import pytest

pydantic_ai = pytest.importorskip(
    "pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'"
)
if not pydantic_ai.__version__.startswith("2."):
    pytest.skip(
        f"needs pydantic-ai 2.x (the pydantic-ai extra), found {pydantic_ai.__version__}", allow_module_level=True
    )

from tests.fixtures.frameworks import run_cases
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._types import VerdictKind

#: Its module fixture runs many cases: one worker takes all its tests (`--dist loadgroup`), so the
#: fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("pydantic-ai-admission")

APP = "pydantic-ai:tests.fixtures.agents.pydantic_ai_selecting_app:{}"
#: A tool loop of three model calls, each selected afresh, and a recording of 140 tools, over its
#: provider's limit of 128, which the selection brings under it.
SELECT = [
    "etf-compare-main-tool-loop/main/hooks/*/delete.*",
    "etf-compare-main-tool-loop/main/hooks/*/description.*",
    "etf-compare-main-tool-loop/main/hooks/*/legit.*",
    "desk-research-main-openai-over-tool-limit/main/*/after:admission/legit.*",
]


@pytest.fixture(scope="module")
def selecting():
    return run_cases(APP.format("build"), SELECT)


def test_the_selecting_agent_passes_with_the_guard_placed_after_admission(selecting):
    failing = [(r.case.id, r.verdict.reason) for r in selecting if not r.verdict.kind.ok]
    assert not failing, failing[:3]
    # Each model call went out with the (at most eight) tools selected for it, and the selection was recorded.
    passed = [r for r in selecting if r.verdict.kind is VerdictKind.PASSED and r.evidence.dispatches]
    assert passed and all(1 <= a.tools <= 8 and a.selection for r in passed for a in r.evidence.admitted)


def test_changes_before_admission_are_selection_and_after_it_are_refused(selecting):
    by_point: dict[str, set[VerdictKind]] = {}
    for r in selecting:
        if r.case.mutation.kind.value == "delete" and r.verdict.kind is not VerdictKind.EQUIVALENT:
            by_point.setdefault(r.case.point.split("@")[0], set()).add(r.verdict.kind)
    # A tool dropped before the selector ran is the selector's business; after admission, a violation.
    assert by_point["before:select"] == {VerdictKind.PASSED}
    assert by_point["after:admission"] == {VerdictKind.KILLED}
    # An edit the selection keeps is refused at admission.
    edits = [
        r for r in selecting if r.case.mutation.kind.value == "description" and r.case.point.startswith("after:select")
    ]
    assert {r.verdict.kind for r in edits} - {VerdictKind.EQUIVALENT} == {VerdictKind.KILLED}
    assert any(r.verdict.code is ReasonCode.NOT_SELECTED for r in selecting)


def test_a_selection_makes_an_over_limit_recording_fit(selecting):
    over = [r for r in selecting if r.case.scenario == "desk-research-main-openai-over-tool-limit"]
    assert over and all(r.evidence.dispatches and not r.evidence.admitted[0].over_capacity for r in over)
    assert {r.verdict.kind for r in over} == {VerdictKind.PASSED, VerdictKind.EQUIVALENT}


def test_a_flawed_hook_after_admission_fails_at_its_own_boundary():
    results = run_cases(APP.format("build_flawed"), ["etf-compare-main-tool-loop/main/hooks/after:keep_four/legit.*"])
    failing = [r for r in results if not r.verdict.kind.ok]
    assert failing and all(r.case.point.startswith("after:keep_four") for r in failing)
    assert all("removed" in r.verdict.reason for r in failing)
