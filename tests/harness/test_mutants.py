"""Source mutants run against the cases: every seam of a good guard is killed, and a seam the
selected cases do not exercise survives."""

import hashlib
from pathlib import Path

from toolsurface.harness._api import RunOptions
from toolsurface.harness._mutants import run_mutants
from toolsurface.scan import ScanConfig, load_config

SMALL_GUARD = "tests.fixtures.small_guard:factory"
ROOT = Path(__file__).resolve().parents[2]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_seam_of_a_user_guard_is_killed_and_its_file_is_untouched():
    path = ROOT / "tests" / "fixtures" / "small_guard.py"
    before = digest(path)
    run = run_mutants(RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*"]))
    assert [(r.mutant.mutator, r.status) for r in run.results] == [
        ("SnapshotToObject", "Killed"),
        ("RemoveCheck", "Killed"),
        ("RemoveSettlement", "Killed"),
    ]
    assert run.ok and run.score == 100.0 and all(r.killed_by for r in run.results)
    assert digest(path) == before


def test_a_seam_no_selected_case_exercises_survives():
    # Legitimate changes only: removing the check or the settlement changes nothing they see.
    run = run_mutants(RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*/legit.*"]))
    status = {r.mutant.mutator: r.status for r in run.results}
    assert status == {"SnapshotToObject": "Killed", "RemoveCheck": "Survived", "RemoveSettlement": "Survived"}
    assert not run.ok and round(run.score) == 33


# The shipped guard's mutants over the whole matrix, through the command, with its report: in
# tests/test_cli.py::test_mutants_of_the_shipped_guard_survive_only_where_the_recorded_pipeline_never_goes.


def test_the_mutants_of_a_reference_defect_are_of_its_flaw():
    run = run_mutants(RunOptions(target="reference:defect/no-settle", select=["web-read-child-single-tool/*"]))
    assert run.path.endswith("_reference/_defects.py")


def test_the_seams_are_the_ones_the_config_names(tmp_path, monkeypatch):
    # The guard's parity check goes by a name of its own: only a configured one is a seam.
    source = (ROOT / "tests" / "fixtures" / "small_guard.py").read_text().replace("check_parity", "verify_tools")
    (tmp_path / "own_guard.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    options = RunOptions(target="own_guard:factory", select=["web-read-child-single-tool/*"])
    default = run_mutants(options)
    configured = run_mutants(options, config=ScanConfig(check=("verify_tools",)))
    assert [r.mutant.mutator for r in default.results] == ["SnapshotToObject", "RemoveSettlement"]
    assert [(r.mutant.mutator, r.status) for r in configured.results] == [
        ("SnapshotToObject", "Killed"),
        ("RemoveCheck", "Killed"),
        ("RemoveSettlement", "Killed"),
    ]


def test_an_equivalent_mutant_is_ignored_not_run(tmp_path, monkeypatch):
    # With a request-baseline template of `tools`, both baseline mutants write the same source.
    (tmp_path / "twin_guard.py").write_text((ROOT / "tests" / "fixtures" / "small_guard.py").read_text())
    monkeypatch.syspath_prepend(str(tmp_path))
    templated = tmp_path / "pyproject.toml"
    templated.write_text('[tool.toolsurface.scan]\nrequest_baseline = ["tools"]\n')
    options = RunOptions(target="twin_guard:factory", select=["web-read-child-single-tool/*"])
    run = run_mutants(options, config=load_config(templated))
    status = [(r.mutant.mutator, r.status) for r in run.results]
    assert status == [
        ("SnapshotToObject", "Killed"),
        ("BaselineFromRequest", "Ignored"),
        ("RemoveCheck", "Killed"),
        ("RemoveSettlement", "Killed"),
    ]
    assert run.results[1].reason == f"equivalent: the same source as mutant {run.results[0].mutant.id}"
    assert run.ok and run.counted == 3 and run.score == 100.0
