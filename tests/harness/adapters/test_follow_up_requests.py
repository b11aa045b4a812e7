"""A framework target keeps one agent per scenario, as a host keeps its agent, so the follow-up
request after each case runs on the agent the case ran on: a stock framework's in-place edit
reaches that next run and fails the case that made it; a guarded agent keeps each request's edits
to that request."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.frameworks import run_cases
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._reasons import CUT, one_line
from toolsurface.harness._types import VerdictKind

#: Schema edits made in place on the live tool objects, at the first and the last point of a run.
IN_PLACE_SCHEMA_EDITS = [
    "etf-compare-main-hooked/*/hook/schema.in_place:*",
    "etf-compare-main-hooked/*/post_seal/schema.in_place:*",
]
OUTLIVED = "the change outlived its request: the next request differs from a clean one: "


def begins(reason, prefix):
    """Whether `reason` begins with `prefix`, or with `prefix` cut short to fit (a long tool name or
    point in it): what comes before its first `…` begins `prefix`."""
    if reason.startswith(prefix):
        return True
    kept, cut, _ = reason.partition(CUT)
    return bool(cut) and bool(kept) and one_line(prefix).startswith(kept.rstrip())


#: The import name each extra installs.
_MODULES = {"pydantic-ai": "pydantic_ai", "langchain": "langchain", "openai-agents": "agents"}


def _frameworks():
    for extra, module in _MODULES.items():
        missing = importlib.util.find_spec(module) is None
        reason = f"needs the {extra} extra: pip install 'toolsurface[{extra}]'"
        yield pytest.param(extra, marks=pytest.mark.skipif(missing, reason=reason), id=extra)


@pytest.mark.parametrize("framework", list(_frameworks()))
def test_a_stock_in_place_schema_edit_outlives_its_request_and_the_guard_keeps_it_there(framework):
    stock = run_cases(f"{framework}:stock", IN_PLACE_SCHEMA_EDITS)
    assert len(stock) >= 10 and {r.case.point for r in stock} == {"hook", "post_seal"}
    for result in stock:
        (change,) = result.case.change  # "schema of 'market__web_search' changed at /type": the tool and the pointer
        assert result.verdict.kind is VerdictKind.SURVIVED, result.verdict.reason
        # The next run of the same agent shows the edit from its first boundary on, as the case made it.
        # The reason names it as far as it fits on a line; the evidence keeps it whole.
        assert begins(result.verdict.reason, f"{OUTLIVED}at 'hook': {change}"), result.verdict.reason
        assert result.evidence.aftermath == (f"next request: at 'hook': {change}",)
    guarded = run_cases(f"{framework}:guarded", IN_PLACE_SCHEMA_EDITS)
    assert [r.case.id for r in guarded] == [r.case.id for r in stock]
    for result in guarded:
        assert result.verdict.kind is VerdictKind.KILLED, result.verdict.reason
        assert result.evidence.aftermath == ()


def _verdicts(target: str, jobs: int) -> list[tuple[str, str, str]]:
    options = RunOptions(target=target, red_target="none", select=["etf-compare-main-hooked/*/hook/*"], jobs=jobs)
    return [(r.case.id, r.verdict.kind.value, r.verdict.reason) for r in prepare(options).records()]


@pytest.mark.skipif(importlib.util.find_spec("pydantic_ai") is None, reason="needs the pydantic-ai extra")
def test_a_leaking_agent_gives_the_same_verdicts_in_process_as_in_workers():
    # In process no worker leaves after a leak: the host is loaded again from its spec instead, so
    # the cases after the leak on the same scenario start on a fresh agent there too.
    in_process, workers = _verdicts("pydantic-ai:stock", 0), _verdicts("pydantic-ai:stock", 2)
    assert in_process == workers
    assert any(reason.startswith(OUTLIVED) for _, _, reason in in_process)
    assert not any(kind == "error" for _, kind, _ in in_process)


def _reproduce(case_id: str, target: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    assert command is not None
    return subprocess.run([command, "reproduce", case_id, "--target", target], cwd=cwd, env={**os.environ},
                          capture_output=True, text=True, timeout=600)  # fmt: skip


@pytest.mark.skipif(importlib.util.find_spec("pydantic_ai") is None, reason="needs the pydantic-ai extra")
def test_reproduce_shows_the_follow_up_request_against_a_clean_run(tmp_path):
    case_id = "etf-compare-main-hooked/main/hooks/hook/schema.in_place:type:market__web_search:/type"
    change = "schema of 'market__web_search' changed at /type"
    shown = _reproduce(case_id, "pydantic-ai:stock", tmp_path)
    assert shown.returncode == 1, shown.stdout + shown.stderr
    lines = shown.stdout.splitlines()
    start = lines.index("next     an unchanged request on the same host, after this one: ended dispatched")
    follow_up = lines[start:]
    # What the mutated request sent, then what the follow-up sent against a clean run, and where they differ.
    # Each sent request, then every change in it on a line of its own.
    # (each change goes on to say the values there: `("object" → "string")`)
    assert any(
        line.startswith("  sent ") and lines[at + 1].startswith(f"    {change} ")
        for at, line in enumerate(lines[:start])
    )
    assert any(
        line.startswith("  sent ") and follow_up[at + 1].startswith(f"    {change} ")
        for at, line in enumerate(follow_up)
    )
    assert any(line.startswith(f"  differs from a clean run: at 'hook': {change} ") for line in follow_up)
    assert begins(lines[-1].removeprefix("verdict  survived — "), f"{OUTLIVED}at 'hook': {change}")
    guarded = _reproduce(case_id, "pydantic-ai:guarded", tmp_path)
    assert guarded.returncode == 0, guarded.stdout + guarded.stderr
    assert "  sent req_main_0003: 6 tools; identical to what a clean run sends" in guarded.stdout
    assert "  as a clean run: nothing outlived the request" in guarded.stdout
