"""Flags a function tests more than once, followed one setting at a time.

`if strict and isinstance(schema, dict): schema = copy.deepcopy(schema)` early in a function and
`if strict: schema["additionalProperties"] = False` late in it are on the same path or on none:
joining the arms of the first `if` before the second would pair the edit with the uncopied schema.
A boolean parameter that the function never rebinds keeps its value for the whole call, so the
trace runs once with it true and once with it false, and an `if` whose test that setting decides
runs only the arm it takes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping

import libcst as cst

from ._rule import Tree, dotted
from ._values import bound, parameters

#: Annotations of a parameter that is a flag (`strict: bool | None = None`).
_FLAG_TYPES = frozenset({"bool", "bool | None", "None | bool", "Optional[bool]"})
#: Flags followed apart per function: each doubles the work of tracing it.
_MOST = 2

Setting = Mapping[str, bool]


def settings(tree: Tree, function: cst.FunctionDef) -> list[Setting]:
    """Every setting of the function's flags (one empty setting when it has none)."""
    names = flags(tree, function)
    return [dict(zip(names, values, strict=True)) for values in itertools.product((True, False), repeat=len(names))]


def flags(tree: Tree, function: cst.FunctionDef) -> tuple[str, ...]:
    """Boolean parameters, never rebound, that two `if` tests or more read bare (`if strict`,
    `if not strict`, `if strict and …`)."""
    candidates = {param.name.value for param in parameters(function) if _boolean(param)}
    if not candidates:
        # Most functions take no flag: they are traced once, and cost no more than that.
        return ()
    tested: dict[str, int] = {}
    for statement in tree.findall(function.body, cst.If):
        for name in {flag for flag, _ in _bare(statement.test)} & candidates:
            tested[name] = tested.get(name, 0) + 1
    twice = {name for name, count in tested.items() if count > 1}
    return tuple(sorted(twice - _rebound(tree, function)))[:_MOST] if twice else ()


def decided(test: cst.BaseExpression, setting: Setting) -> bool | None:
    """The value of an `if` test under a setting: False when a conjunct it decides is false, True
    when every conjunct is decided true, None when the test depends on something else too."""
    parts = _conjuncts(test)
    verdicts = [setting[flag] == value for part in parts for flag, value in _bare(part) if flag in setting]
    if not verdicts:
        return None
    if not all(verdicts):
        return False
    return True if len(verdicts) == len(parts) else None


def type_tested(test: cst.BaseExpression, setting: Setting) -> str:
    """`x` when the test is `isinstance(x, …)` and conjuncts the setting decides true: where the
    test is false, `x` is not of that type."""
    parts = _conjuncts(test)
    rest = [part for part in parts if not any(flag in setting for flag, _ in _bare(part))]
    if len(rest) != 1 or len(parts) == 1 or decided(test, setting) is False:
        return ""
    (part,) = rest
    if (
        isinstance(part, cst.Call)
        and dotted(part.func) == "isinstance"
        and part.args
        and isinstance(part.args[0].value, cst.Name)
    ):
        return part.args[0].value.value
    return ""


def _conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return [*_conjuncts(test.left), *_conjuncts(test.right)]
    return [test]


def _bare(test: cst.BaseExpression) -> Iterator[tuple[str, bool]]:
    """`strict` → (strict, True); `not strict` → (strict, False); `strict and x` → (strict, True)."""
    for part in _conjuncts(test):
        if isinstance(part, cst.Name):
            yield part.value, True
        elif (
            isinstance(part, cst.UnaryOperation)
            and isinstance(part.operator, cst.Not)
            and isinstance(part.expression, cst.Name)
        ):
            yield part.expression.value, False


def _boolean(param: cst.Param) -> bool:
    annotation = cst.Module([]).code_for_node(param.annotation.annotation) if param.annotation else ""
    default = dotted(param.default) if param.default else ""
    return annotation in _FLAG_TYPES or (not annotation and default in {"True", "False"})


def _rebound(tree: Tree, function: cst.FunctionDef) -> set[str]:
    """Names the function (or a closure of it) assigns, loops over, binds with `as`, or declares nonlocal."""
    names: set[str] = set()
    for node in tree.findall(
        function.body,
        cst.Assign,
        cst.AnnAssign,
        cst.AugAssign,
        cst.For,
        cst.NamedExpr,
        cst.AsName,
        cst.Nonlocal,
        cst.Global,
    ):
        if isinstance(node, cst.Assign):
            targets: list[cst.CSTNode] = [target.target for target in node.targets]
        elif isinstance(node, cst.Nonlocal | cst.Global):
            names.update(item.name.value for item in node.names)
            continue
        else:
            targets = [node.target if not isinstance(node, cst.AsName) else node.name]
        for target in targets:
            names.update(bound(target))
    return names
