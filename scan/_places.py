"""Where a finding's flow starts: the places rules name as sources, and their labels.

A tracked value entered its function as a parameter or was read from `self.<field>` (or another
object's tool list); a plain name was bound by a parameter or an assignment before it is used.
Only matched nodes ask, so none of this runs for a file with nothing to report.
"""

from __future__ import annotations

import libcst as cst

from ._rule import Place, Tree, assigned, shown
from ._values import Value, bound, parameters


def value_source(value: Value, caller: bool = False) -> tuple[Place, ...]:
    """Where a tracked value entered its function; with `caller`, a parameter when there is one."""
    params = [node for node in value.sources if isinstance(node, cst.Param)]
    node = params[0] if caller and params else value.sources[0] if value.sources else None
    if node is None:
        return ()
    if isinstance(node, cst.Param):
        return ((node, f"parameter `{node.name.value}`"),)
    return ((node, f"tool list {shown(node)}"),)


def name_source(tree: Tree, at: cst.CSTNode, expression: cst.BaseExpression, noun: str) -> tuple[Place, ...]:
    """Where the name at the root of `expression` (`request` of `request.tools`) got its value before
    `at`: a parameter of the enclosing function, else the last assignment in the same scope."""
    root: cst.BaseExpression = expression
    while isinstance(root, cst.Attribute | cst.Subscript | cst.Call):
        root = root.func if isinstance(root, cst.Call) else root.value
    if not isinstance(root, cst.Name):
        return ()
    name = root.value
    function = tree.enclosing(at, cst.FunctionDef)
    if function is not None:
        for param in parameters(function):
            if param.name.value == name:
                return ((param, f"parameter `{name}`"),)
    if function is None:  # module level: its own lines, not every function's
        scope = [small for line in tree.module.body if isinstance(line, cst.SimpleStatementLine) for small in line.body]
    else:
        scope = tree.findall(function.body, cst.Assign, cst.AnnAssign)
    assignments = [
        statement
        for statement in scope
        if isinstance(statement, cst.Assign | cst.AnnAssign)
        and tree.precedes(statement, at)
        and any(name in bound(target) for target in assigned(statement))
        # A nested function's own names are not this scope's.
        and (function is None or tree.enclosing(statement, cst.FunctionDef) is function)
    ]
    if assignments:
        return ((assignments[-1], f"{noun} from {shown(assignments[-1])}"),)
    return ()
