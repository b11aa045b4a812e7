"""Seams and their source mutants: one weakened seam per copy, the original never touched."""

from pathlib import Path

import libcst as cst
import pytest

from toolsurface.scan import ScanConfig
from toolsurface.scan._seams import source_mutants

ROOT = Path(__file__).resolve().parents[2]
#: The reference pipeline, which asks the guard at each boundary, and the guard it asks.
GUARDED = ROOT / "harness" / "_reference" / "_guarded.py"
GUARD = ROOT / "contract" / "_guard.py"


@pytest.mark.parametrize(
    ("path", "seams"),
    [
        (
            GUARDED,
            [
                # The retry of a refused model call, then the checks of each model call.
                ("RemoveCheck", "self.final_check"),
                ("ConditionalOnHooks", "self.final_check"),
                ("RemoveCheck", "self.early_check"),
                ("RemoveCheck", "self.final_check"),
                ("ConditionalOnHooks", "self.final_check"),
                ("RemoveCheck", "self.check"),
                ("RemoveCheck", "self.check"),
                ("RemoveCheck", "run.request.check"),
            ],
        ),
        (
            GUARD,
            [
                ("SnapshotToObject", "capture"),
                ("RemoveCheck", "self.check_summary"),
                ("RemoveSettlement", "self.settle"),
                ("RemoveSettlement", "self.owner.settle"),
                ("RemoveSettlement", "self.settle_refusal"),
                ("RemoveSettlement", "self.settle"),
                ("RemoveSettlement", "self.settle"),
            ],
        ),
    ],
    ids=["pipeline", "guard"],
)
def test_the_guard_has_a_seam_at_each_check_and_settlement(path, seams):
    source = path.read_text()
    mutants = source_mutants(source, str(path), ScanConfig())
    assert [(m.mutator, m.original.split("(")[0]) for m in mutants] == seams
    assert len({m.id for m in mutants}) == len(mutants)
    for mutant in mutants:
        cst.parse_module(mutant.source)  # every mutant is valid Python
    # A removed call of one line is that line made `pass` (one over several lines, its lines made one).
    for mutant in (m for m in mutants if m.mutator.startswith("Remove") and "\n" not in m.original):
        before, after = source.splitlines(), mutant.source.splitlines()
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed == [mutant.line - 1] and after[mutant.line - 1].strip() == "pass"
        assert f"-{before[mutant.line - 1]}" in mutant.diff and f"+{after[mutant.line - 1]}" in mutant.diff


def test_a_snapshot_in_a_baseline_step_becomes_the_object_itself():
    source = "def take_baseline(tools, fmt):\n    return capture(tools, fmt)\n"
    (mutant,) = source_mutants(source, "guard.py", ScanConfig())
    assert (mutant.mutator, mutant.original, mutant.replacement) == ("SnapshotToObject", "capture(tools, fmt)", "tools")
    assert mutant.source == "def take_baseline(tools, fmt):\n    return tools\n"


def test_only_settlements_on_refusal_paths_are_seams():
    source = (
        "def send(ledger, reservation, gateway):\n"
        "    gateway.dispatch(reservation)\n"
        "    ledger.settle(reservation, 'dispatched')\n"
    )
    assert source_mutants(source, "host.py", ScanConfig()) == ()


def test_the_final_check_made_conditional_and_the_baseline_read_from_the_request():
    mutants = {m.mutator: m for m in source_mutants(GUARDED.read_text(), str(GUARDED), ScanConfig())}
    conditional = mutants["ConditionalOnHooks"].source.splitlines()
    line = mutants["ConditionalOnHooks"].line
    assert conditional[line - 1 : line + 1] == ["        if run.scenario.hooks:", "            self.final_check(run)"]
    # The shipped guard's baseline step, read back from the live tools it was handed.
    live = ScanConfig(request_baseline=("lambda: capture(list(admitted), self.fmt)",))
    mutants = {m.mutator: m for m in source_mutants(GUARD.read_text(), str(GUARD), live)}
    assert "        return lambda: capture(list(admitted), self.fmt)\n" in mutants["BaselineFromRequest"].source


def test_a_template_the_guard_has_no_names_for_is_skipped():
    source = "def take_baseline(tools, fmt):\n    return capture(tools, fmt)\n"
    # `run` is neither a parameter nor a module name here, so no BaselineFromRequest mutant.
    assert [m.mutator for m in source_mutants(source, "g.py", ScanConfig())] == ["SnapshotToObject"]
    templated = ScanConfig(request_baseline=("lambda: capture(tools, fmt)",))
    assert [m.mutator for m in source_mutants(source, "g.py", templated)] == ["SnapshotToObject"]  # no `capture` here
    imported = "from toolsurface import capture\n\n" + source
    assert [m.mutator for m in source_mutants(imported, "g.py", templated)] == [
        "SnapshotToObject",
        "BaselineFromRequest",
    ]
