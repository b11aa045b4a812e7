"""`Boundary`: the one value for where a mutation lands, and the label case ids spell it as."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import toolsurface
from toolsurface.scenarios import POINTS, Boundary, Point, load, own_point_problem
from toolsurface.scenarios._boundary import OWN_POINT_PATTERN

ROOT = Path(toolsurface.__file__).resolve().parent

#: A name of a host's own: what the loader lets an own stage call its boundary.
own_names = st.from_regex(OWN_POINT_PATTERN, fullmatch=True).filter(lambda name: own_point_problem(name) is None)
points = st.sampled_from(POINTS).map(str) | own_names
boundaries = st.builds(Boundary, points, st.integers(min_value=1, max_value=2**63 - 1))


def label(point: str, call: int) -> str:
    """The label as case ids spelled it before `Boundary`: `point`, or `point@call` after the first call."""
    return point if call == 1 else f"{point}@{call}"


@given(points, st.integers(min_value=1, max_value=2**63 - 1))
def test_a_boundary_prints_as_case_ids_have_always_named_it(point, call):
    assert str(Boundary(point, call)) == label(point, call)


@given(boundaries)
def test_every_label_parses_back_to_its_boundary(at):
    assert Boundary.parse(str(at)) == at
    assert pickle.loads(pickle.dumps(at)) == at


@given(st.lists(st.builds(Boundary, st.sampled_from(POINTS), st.integers(1, 5)), unique=True))
def test_recorded_boundaries_sort_as_the_plan_offers_them(ats):
    # The plan offered each model call's points in pipeline order, call by call: (call, position).
    assert sorted(ats) == sorted(ats, key=lambda at: (at.call, POINTS.index(Point(at.point))))


@given(
    st.builds(Boundary, st.sampled_from(POINTS), st.integers(1, 5)), st.builds(Boundary, own_names, st.integers(1, 5))
)
def test_a_boundary_of_the_host_s_own_sorts_after_the_recorded_ones_of_its_call(recorded, own):
    assert (recorded < own) == (recorded.call <= own.call)
    assert recorded.is_recorded and recorded.recorded == Point(recorded.point)
    assert not own.is_recorded and own.recorded is None


def test_each_bundled_pipeline_offers_its_boundaries_in_sorted_order():
    for scenario in load():
        assert list(scenario.checkpoints) == sorted(scenario.checkpoints), scenario.id


def test_a_point_member_and_its_value_are_the_same_boundary():
    assert Boundary(Point.POST_SEAL, 2) == Boundary("post_seal", 2) == Boundary.parse("post_seal@2")
    assert type(Boundary(Point.HOOK).point) is str
    assert Boundary.of((2, "hook")) == Boundary("hook", 2)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hook@1", "the first model call's is named without '@1'"),
        ("hook@0", "expected an injection point, or point@N"),
        ("hook@02", "expected an injection point, or point@N"),
        ("hook@", "expected an injection point, or point@N"),
        ("@2", "expected an injection point, or point@N"),
        ("a@b@2", "expected an injection point, or point@N"),
        ("hook@²", "expected an injection point, or point@N"),
        ("", "expected an injection point, or point@N"),
        ("two words", "is not an injection point: expected one of post_recovery"),
        ("glob*", "is not an injection point: expected one of post_recovery"),
    ],
)
def test_a_label_that_names_no_boundary_is_refused_in_one_line(text, expected):
    with pytest.raises(ValueError, match=expected.replace("*", r"\*")) as refused:
        Boundary.parse(text)
    assert "\n" not in str(refused.value) and repr(text) in str(refused.value)


@pytest.mark.parametrize("call", [0, -1, 2**63, True, 1.0, "2"])
def test_a_boundary_before_no_model_call_is_refused(call):
    with pytest.raises(ValueError, match="a boundary's call must be an integer ≥ 1"):
        Boundary("hook", call)


def test_a_fact_arriving_mid_run_names_a_boundary_the_scenario_offers():
    arriving = [fact for scenario in load() for fact in scenario.contract.facts if fact.arrives]
    # The field stays a label: the contract layer the fact belongs to sits below the scenarios.
    assert arriving and all(str(Boundary.parse(fact.arrives)) == fact.arrives for fact in arriving)


#: String methods that take a boundary label apart, and comparisons that test one for a later call.
_SPLITTING = frozenset({"split", "rsplit", "partition", "rpartition", "find", "rfind", "index", "rindex", "count"})


def _takes_labels_apart(tree: ast.AST) -> list[int]:
    """Lines that split a string on `@` or compare one with a string holding `@`."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _SPLITTING:
            if any(
                isinstance(arg, ast.Constant) and isinstance(arg.value, str) and "@" in arg.value for arg in node.args
            ):
                lines.append(node.lineno)
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(isinstance(o, ast.Constant) and isinstance(o.value, str) and "@" in o.value for o in operands):
                lines.append(node.lineno)
    return lines


def test_no_module_but_boundary_s_takes_a_label_apart():
    found = {
        f"{path.relative_to(ROOT)}:{line}"
        for path in ROOT.rglob("*.py")
        if "tests" not in path.relative_to(ROOT).parts and path.name != "_boundary.py"
        for line in _takes_labels_apart(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert found == set()


def test_the_scan_finds_what_the_old_spellings_did():
    old = 'def call_of(label):\n    _, _, call = label.partition("@")\n    return "@" in label\n'
    assert _takes_labels_apart(ast.parse(old)) == [2, 3]
