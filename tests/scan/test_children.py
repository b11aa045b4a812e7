import sysconfig
from pathlib import Path

import libcst as cst
import pytest

from toolsurface.scan._children import LAYOUT, children, comments
from toolsurface.scan._rule import Tree

STDLIB = Path(sysconfig.get_paths()["stdlib"])

#: One of each construct whose fields libcst declares in another order than the code is written.
EVERY_CONSTRUCT = """
@decorator(arg=1)
async def f(a, /, b: int = 2, *args, c, **kwargs) -> list[int]:
    async with open(a) as x, other() as y:
        pass
    async for item in items:
        pass
    else:
        pass
    value = [z async for z in source if z for w in z]
    return body if test else orelse

@decorator
class C(Base, metaclass=Meta):
    def g(self, *, key=lambda q: q):
        try:
            call(key=value, *rest, **more)
        except (ValueError, TypeError) as error:
            raise Other() from error
        finally:
            del self.x[1:2:3]
        try:
            pass
        except* KeyError as group:
            pass
        match self.subject:
            case Point(x=0, y=found) if found > 1:
                pass
            case {"k": v, **rest} | [1, *_]:
                pass
        print(f"{self.x!r:>{width}}", (n := 3), not a or b and c, -x ** 2)
"""


def _libcst_order(module: cst.Module) -> list[cst.CSTNode]:
    """libcst's own pre-order, layout left out."""
    order, stack = [], [module]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed([child for child in node.children if type(child) not in LAYOUT]))
    return order


@pytest.mark.parametrize("name", ["EVERY_CONSTRUCT", "dataclasses.py", "asyncio/base_events.py", "typing.py"])
def test_the_index_holds_every_node_of_code_in_libcsts_source_order(name):
    source = EVERY_CONSTRUCT if name == "EVERY_CONSTRUCT" else (STDLIB / name).read_text(encoding="utf-8")
    module = cst.parse_module(source)
    tree = Tree(module)
    assert [id(node) for node in tree.findall(module, cst.CSTNode)] == [id(node) for node in _libcst_order(module)]


def test_layout_is_not_a_child_but_comments_are_found():
    module = cst.parse_module("x = [1, (2)]  # one\n# two\n")
    assert not any(type(node) in LAYOUT for node in Tree(module).findall(module, cst.CSTNode))
    assert [comment.value for comment in comments(module)] == ["# one", "# two"]


def test_findall_answers_by_kind_within_a_node_in_source_order():
    module = cst.parse_module("def f():\n    a(b(c()))\n    d()\ne()\n")
    tree = Tree(module)
    function = tree.functions()[0]
    assert [cst.Module([]).code_for_node(call.func) for call in tree.calls(function)] == ["a", "b", "c", "d"]
    names_and_calls = tree.findall(function.body, cst.Call, cst.Name)
    assert [type(node).__name__ for node in names_and_calls][:4] == ["Call", "Name", "Call", "Name"]
    assert all(tree.within(call, function) for call in tree.calls(function))
    assert not tree.within(tree.calls(module)[-1], function)
    assert children(function)[0] is function.name
