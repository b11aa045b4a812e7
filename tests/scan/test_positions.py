import ast
import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from hypothesis import given
from hypothesis import strategies as st
from libcst.metadata import MetadataWrapper, PositionProvider

from toolsurface.scan._positions import _within, positions

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _public(module: cst.Module):
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


@pytest.mark.parametrize("name", ["json/decoder.py", "dataclasses.py", "asyncio/tasks.py"])
def test_every_range_is_libcsts_own(name):
    module = cst.parse_module((STDLIB / name).read_text(encoding="utf-8"))
    assert dict(positions(module)) == dict(_public(module))


_LINES = st.sampled_from(
    [
        "x = 1",
        "def f(a,\n      b):\n    return a",
        's = """one\ntwo"""',
        "y = (1 +\n     2)  # note",
        "if x:\n    pass",
        "",
    ]
)


@given(st.lists(_LINES, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]))
def test_ranges_agree_whatever_the_newlines(lines, newline):
    source = newline.join(line.replace("\n", newline) for line in lines) + newline
    module = cst.parse_module(source)
    assert dict(positions(module)) == dict(_public(module))


_STATEMENTS = st.sampled_from(
    [
        "x = 1",
        "a = 1; b = 2",
        "@decorate\n@decorate(1)\ndef f(a,\n      b):\n    return a",
        "def g():\n    pass\n    # a comment libcst keeps in the block",
        "class A:\n    y = (1 +\n         2)  # note",
        'class B(A):\n    """doc"""\n\n    # a comment\n    @property\n    def p(self):\n        return '
        "1\n    z: int = 2; w = 3\n\n    class Inner:\n        async def q(self): pass",
        "class T:\n\tdef t(self,\n\t      u):\n\t\treturn u\n\t# trailing",
        "# a comment before\n\nif x:\n    pass\nelse:\n    z = 3",
        's = """one\ntwo"""',
    ]
)


@given(st.lists(_STATEMENTS, min_size=1, max_size=6), st.sampled_from(["\n", "\r\n"]), st.data())
def test_the_ranges_of_some_statements_are_libcsts_own(statements, newline, data):
    """Generating only the statements that hold what a report names, each from the line CPython
    says it starts on at its own indentation, gives the ranges generating the whole module gives:
    statements of the module, or of the body of a class, at any depth."""
    source = newline.join(statement.replace("\n", newline) for statement in statements) + newline
    module = cst.parse_module(source)
    chosen = data.draw(st.lists(st.sampled_from(list(_statements(module.body))), min_size=1, unique_by=id))
    ranges = _within(module, ast.parse(source), {id(statement) for statement in chosen})
    assert ranges is not None  # the statements alone were generated, not the module
    public = _public(module)
    for statement in chosen:
        for node in _nodes(statement):
            assert ranges[node] == public[node]


def _nodes(root: cst.CSTNode):
    todo = [root]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(node.children)


def _statements(statements):
    for statement in statements:
        yield statement
        if isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock):
            yield from _statements(statement.body.body)
