"""Value tracking through one function: aliases, copies by depth, slots, closures and early returns."""

import libcst as cst
import pytest

from toolsurface.scan import ScanConfig, Tree
from toolsurface.scan._module import editors, trace_all
from toolsurface.scan._trace import Kept, Mutation, Passed
from toolsurface.scan._values import Share

CONFIG = ScanConfig()


def events(source: str) -> list:
    tree = Tree(cst.parse_module(source))
    return [event for _, found in trace_all(tree, CONFIG) for event in found]


def edited_lines(source: str) -> list[int]:
    """The source lines of the schema edits that reach the caller."""
    module = cst.parse_module(source)
    tree = Tree(module)
    found = [e for _, traced in trace_all(tree, CONFIG) for e in traced if isinstance(e, Mutation) and e.value.schema]
    return [
        next(i for i, line in enumerate(source.splitlines(), 1) if module.code_for_node(e.node).strip() in line)
        for e in found
    ]


@pytest.mark.parametrize(
    "copy",
    [
        "copy.deepcopy(schema)",
        "dc(schema)",
        "c.deepcopy(schema)",
        "json.loads(json.dumps(schema))",
        "orjson.loads(orjson.dumps(schema))",
        "pickle.loads(pickle.dumps(schema))",
    ],
)
def test_a_deep_copy_through_any_alias_shares_nothing(copy: str) -> None:
    source = (
        "import copy\nimport copy as c\nfrom copy import deepcopy as dc\n\ndef f(schema):\n    own = "
        f"{copy}\n    own['properties']['x'] = 1\n"
    )
    assert edited_lines(source) == []


@pytest.mark.parametrize(
    "copy", ["dict(schema)", "schema.copy()", "copy.copy(schema)", "{**schema}", "shallow(schema)"]
)
def test_a_shallow_copy_shares_its_parts_but_not_its_top_level(copy: str) -> None:
    source = (
        f"import copy\nfrom copy import copy as shallow\n\ndef f(schema):\n    own = {copy}\n    own['title'] "
        "= 'x'\n    own['properties']['x'] = 1\n"
    )
    assert edited_lines(source) == [7]


def test_aliases_follow_loops_unpacking_and_get() -> None:
    source = (
        "def f(schema):\n"
        "    for key, sub in schema['properties'].items():\n"
        "        sub['title'] = key\n"
        "    items = schema.get('items')\n"
        "    first, second = items, {}\n"
        "    first.pop('default')\n"
        "    second['x'] = 1\n"
    )
    assert edited_lines(source) == [3, 6]


def test_a_slot_rewritten_with_a_copy_is_the_functions_own() -> None:
    source = (
        "def f(schema):\n"
        "    out = dict(schema)\n"
        "    out['properties'] = dict(schema['properties'])\n"
        "    out['properties']['x'] = {}\n"
        "    out = schema\n"
        "    out['properties']['y'] = {}\n"
    )
    assert edited_lines(source) == [6]


def test_an_early_return_does_not_leak_its_copy() -> None:
    source = (
        "import copy\n"
        "def f(schema, fresh):\n"
        "    if fresh:\n"
        "        schema = copy.deepcopy(schema)\n"
        "    schema['a'] = 1\n"
        "def g(schema, cached):\n"
        "    if cached:\n"
        "        return cached\n"
        "    schema = copy.deepcopy(schema)\n"
        "    schema['a'] = 1\n"
    )
    # One arm of an `if` that copies still leaves the other arm's alias; an arm that returns leaves nothing.
    assert edited_lines(source) == [5]


def test_a_closure_reads_the_enclosing_alias() -> None:
    source = (
        "def f(schema):\n    props = schema['properties']\n    def drop(key):\n        del props[key]\n    drop('x')\n"
    )
    assert edited_lines(source) == [4]


def test_keeping_and_handing_on_are_events_too() -> None:
    source = (
        "REGISTRY = {}\n"
        "class A:\n"
        "    def add(self, tools, schema):\n"
        "        self.tools = list(tools)\n"
        "        REGISTRY['x'] = schema\n"
        "        helper(schema['items'])\n"
        "        return Tool(parameters=schema)\n"
    )
    found = events(source)
    kept = [(e.place, e.value.share) for e in found if isinstance(e, Kept)]
    assert kept == [("attribute", Share.SHALLOW), ("registry", Share.ALIAS), ("return", Share.SHALLOW)]
    (passed,) = [e for e in found if isinstance(e, Passed) and e.call.func.value == "helper"]
    assert passed.parameter == 0 and passed.value.schema and passed.value.origin == {"schema"}


def test_editors_spread_through_calls_and_recursion() -> None:
    source = (
        "def strip(node):\n"
        "    node.pop('title', None)\n"
        "def walk(schema):\n"
        "    for sub in schema.get('properties', {}).values():\n"
        "        walk(sub)\n"
        "    strip(schema)\n"
        "def read(schema):\n"
        "    return len(schema)\n"
        "class T:\n"
        "    def run(self, schema):\n"
        "        self.helper(0, target=schema)\n"
        "    def helper(self, depth, target):\n"
        "        walk(target)\n"
    )
    tree = Tree(cst.parse_module(source))
    found = editors(list(trace_all(tree, CONFIG)))
    assert {name for name, edited in found.edits.items() if edited} == {"strip", "walk", "run", "helper"}


def _sources(value) -> list[str]:
    """A value's sources as code: a parameter's name, an attribute's dotted name."""
    return [
        node.name.value if isinstance(node, cst.Param) else cst.Module([]).code_for_node(node) for node in value.sources
    ]


def test_a_value_remembers_where_it_entered_through_aliases_parts_and_copies() -> None:
    source = (
        "class A:\n"
        "    def add(self, schema, extra):\n"
        "        props = dict(schema)['properties']\n"
        "        for key, sub in props.items():\n"
        "            first, second = sub, key\n"
        "            first.pop('x')\n"
    )
    (mutation,) = [e for e in events(source) if isinstance(e, Mutation)]
    assert _sources(mutation.value) == ["schema"] and isinstance(mutation.value.sources[0], cst.Param)


def test_a_join_keeps_every_source_once_in_the_order_reached() -> None:
    source = (
        "class A:\n"
        "    def add(self, schema, fallback, flag):\n"
        "        chosen = schema if flag else fallback\n"
        "        if flag:\n"
        "            chosen = self.tools or schema\n"
        "        chosen.clear()\n"
    )
    (mutation,) = [e for e in events(source) if isinstance(e, Mutation)]
    # The two paths meet: the `if` arm's sources first, then the other path's, `schema` once.
    assert _sources(mutation.value) == ["self.tools", "schema", "fallback"]
    assert mutation.value.origin == {"schema", "fallback"}


def test_a_tool_list_read_from_self_enters_there() -> None:
    source = (
        "class A:\n    def shrink(self):\n        for tool in self.tools:\n            "
        "tool.parameters['properties'].clear()\n"
    )
    (mutation,) = [e for e in events(source) if isinstance(e, Mutation)]
    assert _sources(mutation.value) == ["self.tools"] and mutation.value.origin == frozenset()


def test_a_tools_field_named_like_a_schema_is_its_schema_and_another_objects_is_not() -> None:
    """`td.parameters_json_schema` of a tool is a schema whatever the configured keys; an object that
    is not a tool may name a schema object of its own (`ctx.output_schema`)."""
    source = (
        "def f(tools, ctx):\n"
        "    for td in tools:\n"
        "        td.parameters_json_schema.pop('title')\n"
        "    ctx.output_schema.pop('title')\n"
    )
    assert edited_lines(source) == [3]


def test_a_parameter_annotated_with_a_class_named_by_a_project_schema_word_holds_a_schema() -> None:
    # With `shape` a schema word, `Shape` names a schema as `Schema` does; `Outline` names none.
    config = ScanConfig(schema_words=("schema", "shape"))
    source = """
def close(shape: Shape, outline_shape: Outline):
    shape["additionalProperties"] = False
    outline_shape["title"] = "x"
"""
    tree = Tree(cst.parse_module(source))
    edits = [e for _, found in trace_all(tree, config) for e in found if isinstance(e, Mutation) and e.value.schema]
    assert [dotted_origin for e in edits for dotted_origin in sorted(e.value.origin)] == ["shape"]
