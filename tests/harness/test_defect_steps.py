"""The defect matrix tests the guard users install: `reference:guarded` is the shipped guard at a
recorded host's boundaries, and every defect is that guard with one step replaced."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from toolsurface.contract import GuardedRequest, SurfaceGuard
from toolsurface.harness._reference import DEFECTS, REFERENCE_TARGETS, GuardedPipeline
from toolsurface.harness._reference import _guarded as driver_module

#: Where a defect may replace a step: the shipped guard, its request guard, and the pipeline that asks them.
SHIPPED = (SurfaceGuard, GuardedRequest, GuardedPipeline)
#: What the pipeline may not do itself: decide what a surface is, what it is compared with, what
#: hides a tool, what fits, or how a request is settled.
DECISIONS = frozenset(
    {
        "capture",
        "snapshot_of",
        "canonical_json",
        "hidden_by",
        "rulings",
        "Settlement",
        "Capacity",
        "over_capacity",
        "SurfaceRefused",
        "SummaryRefused",
        "Snapshot",
        "ledger",
        "settle",
        "without",
        "estimate_tokens",
    }
)


def own_steps(cls: type) -> set[str]:
    """The methods a class defines itself."""
    return {name for name, value in vars(cls).items() if inspect.isfunction(value)}


def replaced(target: type[GuardedPipeline]) -> dict[type, set[str]]:
    """Each flaw class between `target` and the shipped classes, with the steps it defines (a
    pipeline that only puts a flawed guard in place defines none, and is no flaw of its own)."""
    flaws = [
        cls
        for root in (target, target.guard_type, target.request_type)
        for cls in root.__mro__
        if cls not in SHIPPED and issubclass(cls, SHIPPED) and own_steps(cls)
    ]
    return {cls: own_steps(cls) for cls in dict.fromkeys(flaws)}


def test_the_reference_target_is_the_shipped_guard() -> None:
    guarded = REFERENCE_TARGETS["reference:guarded"]
    assert guarded is GuardedPipeline
    assert guarded.guard_type is SurfaceGuard and guarded.request_type is GuardedRequest


def test_there_are_35_defects_each_a_reference_target() -> None:
    assert len(DEFECTS) == 35
    assert all(REFERENCE_TARGETS[f"reference:defect/{name}"] is target for name, target in DEFECTS.items())


@pytest.mark.parametrize("name", sorted(DEFECTS))
def test_a_defect_replaces_one_step_of_the_shipped_guard(name: str) -> None:
    flaws = replaced(DEFECTS[name])
    # One flaw class, or one that adds its step to another defect's (final-only-laundering is
    # final-only whose re-validation also re-bases).
    assert 1 <= len(flaws) <= 2, flaws
    for cls, steps in flaws.items():
        shipped = next(base for base in SHIPPED if issubclass(cls, base))
        # A replaced step is a step the shipped class has: nothing new beside it.
        assert steps and steps <= own_steps(shipped) - {"__init__"}, (cls, steps)
        # One step, or two where the flaw spans them: a cut taken for a narrowing fits and hides.
        assert len(steps) <= 2, (cls, steps)


def _names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    used |= {
        alias.asname or alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    return used


def test_the_pipeline_decides_nothing_itself() -> None:
    assert _names(Path(driver_module.__file__)) & DECISIONS == set()


def test_the_decision_walk_sees_a_pipeline_that_settles_on_its_own(tmp_path: Path) -> None:
    pipeline = tmp_path / "pipeline.py"
    pipeline.write_text("def run(run):\n    run.ledger.settle(run.reservation, 'dispatched')\n")
    assert _names(pipeline) & DECISIONS == {"ledger", "settle"}
