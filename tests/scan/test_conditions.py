"""Flags a function tests more than once are followed one setting at a time."""

import libcst as cst

from toolsurface.scan._conditions import decided, flags, settings, type_tested
from toolsurface.scan._rule import Tree

CONVERT = """
def convert(function, strict: bool | None = None, rm_titles=True, mode: str = "x", tools=None):
    if strict and isinstance(function, dict):
        function = deepcopy(function)
    if rm_titles:
        drop(function)
    if not strict:
        return function
    if tools and mode:
        pass
    if tools:
        pass
    if mode:
        pass
    if not rm_titles:
        pass
"""


def _function(source: str) -> tuple[Tree, cst.FunctionDef]:
    tree = Tree(cst.parse_module(source))
    return tree, tree.functions()[0]


def test_a_boolean_parameter_tested_bare_twice_is_a_flag():
    tree, function = _function(CONVERT)
    # `tools` and `mode` are tested twice too, but are not booleans.
    assert flags(tree, function) == ("rm_titles", "strict")
    assert settings(tree, function) == [
        {"rm_titles": True, "strict": True},
        {"rm_titles": True, "strict": False},
        {"rm_titles": False, "strict": True},
        {"rm_titles": False, "strict": False},
    ]


def test_a_rebound_parameter_is_no_flag():
    tree, function = _function(CONVERT.replace("drop(function)", "strict = False"))
    assert flags(tree, function) == ("rm_titles",)


def test_a_function_without_flags_is_traced_once():
    tree, function = _function("def f(schema, strict: bool):\n    if strict:\n        schema.clear()\n")
    assert settings(tree, function) == [{}]


def _test(source: str) -> cst.BaseExpression:
    return cst.parse_expression(source)


def test_a_setting_decides_a_test_only_through_the_flags_it_names():
    on, off = {"strict": True}, {"strict": False}
    assert decided(_test("strict"), on) is True
    assert decided(_test("not strict"), on) is False
    assert decided(_test("strict and isinstance(x, dict)"), off) is False
    assert decided(_test("strict and isinstance(x, dict)"), on) is None
    assert decided(_test("strict is not None"), on) is None
    assert decided(_test("strict or x"), on) is None


def test_the_type_test_beside_a_true_flag_names_what_is_narrowed():
    assert type_tested(_test("strict and isinstance(function, dict)"), {"strict": True}) == "function"
    assert type_tested(_test("strict and isinstance(function, dict)"), {"strict": False}) == ""
    assert type_tested(_test("isinstance(function, dict)"), {"strict": True}) == ""
    assert type_tested(_test("strict and isinstance(function, dict) and other"), {"strict": True}) == ""
