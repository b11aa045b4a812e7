"""Where a finding's flow starts: a tracked value's parameter, a plain name's parameter or assignment."""

import libcst as cst

from toolsurface.scan import ScanConfig, Tree
from toolsurface.scan._module import trace_all
from toolsurface.scan._places import name_source, value_source
from toolsurface.scan._trace import Kept

CONFIG = ScanConfig()


def _source_of_dispatch(source: str) -> list[tuple[str, str]]:
    """(code, label) of where the argument of the last `dispatch(...)` call came from."""
    tree = Tree(cst.parse_module(source))
    call = [c for c in tree.calls(tree.module) if c.func.value == "dispatch"][-1]
    return [
        (cst.Module([]).code_for_node(node), label)
        for node, label in name_source(tree, call, call.args[0].value, "request")
    ]


def test_a_parameter_comes_first():
    assert _source_of_dispatch("def send(request):\n    request = wrap(request)\n    dispatch(request.body)\n") == [
        ("request", "parameter `request`")
    ]


def test_else_the_last_assignment_before_the_use_in_the_same_function():
    source = (
        "def send(run):\n"
        "    request = first(run)\n"
        "    def inner():\n"
        "        request = elsewhere()\n"
        "    request = build(run)\n"
        "    dispatch(request)\n"
        "    request = later(run)\n"
    )
    assert _source_of_dispatch(source) == [("request = build(run)", "request from `request = build(run)`")]


def test_module_level_code_reads_module_level_assignments_only():
    source = "def f():\n    request = inner()\nrequest = make()\ndispatch(request)\n"
    assert _source_of_dispatch(source) == [("request = make()", "request from `request = make()`")]
    assert _source_of_dispatch("dispatch(request)\n") == []
    assert _source_of_dispatch("dispatch('req-1')\n") == []


def test_a_kept_value_names_the_callers_parameter_before_a_self_field():
    source = (
        "class A:\n    def keep(self, tools, flag):\n        chosen = self.tools if flag else tools\n        "
        "self.saved = Box(chosen)\n"
    )
    tree = Tree(cst.parse_module(source))
    (kept,) = [e for _, events in trace_all(tree, CONFIG) for e in events if isinstance(e, Kept)]
    assert [label for _, label in value_source(kept.value)] == ["tool list `self.tools`"]
    assert [label for _, label in value_source(kept.value, caller=True)] == ["parameter `tools`"]
