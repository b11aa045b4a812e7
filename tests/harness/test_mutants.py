"""Source mutants run against the cases: every seam of a good guard is killed, and a seam the
selected cases do not exercise survives."""

import hashlib
import importlib
import sys
from pathlib import Path

import pytest

from toolsurface.common._errors import ExpectationsError, UsageError
from toolsurface.contract._facts import hidden_by
from toolsurface.harness._api import RunOptions
from toolsurface.harness._equivalents import load_equivalents
from toolsurface.harness._mutants import operator_names, run_mutants
from toolsurface.scan import ScanConfig, load_config
from toolsurface.scan._operators import CLASSIC
from toolsurface.scan._seams import SEAMS

SMALL_GUARD = "tests.fixtures.small_guard:factory"
ROOT = Path(__file__).resolve().parents[2]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_seam_of_a_user_guard_is_killed_and_its_file_is_untouched():
    # A module beside it that imports the shipped guard does not make it a host of the shipped guard.
    importlib.import_module("tests.fixtures.unnamed_hosts")
    path = ROOT / "tests" / "fixtures" / "small_guard.py"
    before = digest(path)
    run = run_mutants(RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*"]))
    assert [(r.mutant.mutator, r.status) for r in run.results] == [
        ("SnapshotToObject", "Killed"),
        ("RemoveCheck", "Killed"),
        ("RemoveSettlement", "Killed"),
        ("RemoveSettlement", "Killed"),
    ]
    assert run.ok and run.score == 100.0 and all(r.killed_by for r in run.results)
    # The settlement of a provider's failure is a seam of its own, and only a failure case reaches it.
    assert run.results[-1].killed_by.endswith("/failure.replace:provider:request")
    assert digest(path) == before


def test_a_seam_no_selected_case_exercises_survives():
    # Legitimate changes only: removing the check or a settlement changes nothing they see.
    run = run_mutants(RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*/legit.*"]))
    assert [(r.mutant.mutator, r.status) for r in run.results] == [
        ("SnapshotToObject", "Killed"),
        ("RemoveCheck", "Survived"),
        ("RemoveSettlement", "Survived"),
        ("RemoveSettlement", "Survived"),
    ]
    assert not run.ok and round(run.score) == 25


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
    assert [r.mutant.mutator for r in default.results] == ["SnapshotToObject", "RemoveSettlement", "RemoveSettlement"]
    assert [(r.mutant.mutator, r.status) for r in configured.results] == [
        ("SnapshotToObject", "Killed"),
        ("RemoveCheck", "Killed"),
        ("RemoveSettlement", "Killed"),
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
        ("RemoveSettlement", "Killed"),
    ]
    assert run.results[1].reason == f"equivalent: the same source as mutant {run.results[0].mutant.id}"
    assert run.ok and run.counted == 4 and run.score == 100.0


def test_classic_operators_mutate_the_decisions_too(tmp_path):
    run = run_mutants(
        RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*"]), operators=operator_names(["classic"])
    )
    flip = next(r for r in run.results if r.mutant.mutator == "FlipComparison")
    assert flip.mutant.original == "!=" and flip.status == "Killed"
    assert {r.mutant.mutator for r in run.results} <= set(CLASSIC)


def test_operators_are_named_by_group_or_by_name():
    assert operator_names([]) == frozenset(SEAMS)
    assert operator_names(["seams,classic"]) == frozenset((*SEAMS, *CLASSIC))
    assert operator_names(["NegateCondition", " SwapBoolean,"]) == {"NegateCondition", "SwapBoolean"}
    with pytest.raises(UsageError, match="'Negate': expected an operator or a group of them: seams, classic"):
        operator_names(["Negate"])


def test_a_listed_survivor_is_equivalent_and_a_listed_kill_or_unknown_id_is_stale(tmp_path):
    options = RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*/legit.*"])
    plain = run_mutants(options)
    survivor = next(r.mutant.id for r in plain.results if r.status == "Survived")
    killed = next(r for r in plain.results if r.status == "Killed")
    listed = tmp_path / "equivalents.toml"
    listed.write_text(
        f'["fixtures/small_guard.py"]\n"{survivor}" = "a test says so"\n"{killed.mutant.id}" = "wrongly"\n'
        '"RemoveCheck@1:1" = "names nothing"\n'
    )
    run = run_mutants(options, equivalents=load_equivalents(listed))
    by_id = {r.mutant.id: r for r in run.results}
    assert by_id[survivor].status == "Equivalent" and by_id[survivor].reason == "equivalent: a test says so"
    assert by_id[killed.mutant.id].status == "Killed"
    assert run.stale == (
        f"{killed.mutant.id}: listed as equivalent in {listed}, but killed by {killed.killed_by}",
        f"RemoveCheck@1:1: listed as equivalent in {listed}, but names no mutant",
    )
    assert run.equivalent == 1 and not run.ok
    assert run.score == 100.0 * (run.killed + 1) / run.counted


def test_an_equivalents_file_names_every_problem(tmp_path):
    listed = tmp_path / "equivalents.toml"
    listed.write_text('"d.py" = 2\n["a.py"]\n"Nope@1:1" = "x"\n"EmptyString@0:1" = ""\n[b]\nc = 1\n')
    with pytest.raises(ExpectationsError) as raised:
        load_equivalents(listed)
    assert [line.split(": ", 1)[1] for line in raised.value.problems] == [
        "expected a table of mutant ids, found int",
        "expected a mutant id, an operator's name at line:column (`EmptyString@101:16`)",
        "expected a mutant id, an operator's name at line:column (`EmptyString@101:16`)",
        "expected the reason it is equivalent, one line of text",
        "expected a mutant id, an operator's name at line:column (`EmptyString@101:16`)",
        "expected the reason it is equivalent, one line of text",
    ]
    assert raised.value.problems[1].startswith(f"{listed}:['a.py'].'Nope@1:1': ")


def test_a_mutant_of_the_owner_fact_rule_reaches_the_guard_and_not_the_oracle():
    # Were the oracle to judge with the mutated rule, hiding nothing would be what it expects too,
    # and the mutant could never be killed.
    facts = ROOT / "contract" / "_facts.py"
    options = RunOptions(target="reference:guarded", select=["etf-news-main-budget-exhausted/main/hooks/hook/*"])
    run = run_mutants(options, facts, operators=frozenset({"EmptyTuple"}), functions=frozenset({"rule"}))
    assert run.path == str(facts)
    status = {r.mutant.original: r.status for r in run.results}
    assert status["(web.search,)"] == "Killed"
    assert hidden_by.__module__ == "toolsurface.contract._facts"
    assert "toolsurface.contract._facts__mutant_" not in " ".join(sys.modules)


def test_only_the_module_level_functions_of_a_module_the_guard_calls_are_mutated():
    facts = ROOT / "contract" / "_facts.py"
    options = RunOptions(target=SMALL_GUARD, select=["web-read-child-single-tool/*/legit.*"])
    with pytest.raises(UsageError, match=r"Snapshot\.without: a method of"):
        run_mutants(options, ROOT / "contract" / "_canonical.py", functions=frozenset({"Snapshot.without"}))
    with pytest.raises(UsageError, match=r"nope: .* has no function of that name"):
        run_mutants(options, facts, functions=frozenset({"nope"}))
