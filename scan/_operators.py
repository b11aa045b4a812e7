"""Classic source-mutation operators: one small change to a decision inside a function's body.

Where a seam mutant asks "is this check or settlement load-bearing?", these ask "does every
branch of the rule decide a case?": a condition negated, a comparison or a boolean operator
flipped, a constant or a returned tuple replaced, a statement removed, a loop's body skipped.
Only code that runs is mutated: never a docstring, a decorator, an annotation or a parameter's
default, which are read once when the module is made.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import libcst as cst

#: A mutation as `source_mutants` applies it: operator, description, node, its replacement.
Mutation = tuple[str, str, cst.CSTNode, cst.CSTNode]

#: Each comparison operator and the one it becomes: its negation where one exists (`==`, `is`,
#: `in`), else the operator that moves the boundary by one (`<` to `<=`).
_FLIPPED: dict[type[cst.BaseCompOp], type[cst.BaseCompOp]] = {
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
    cst.LessThan: cst.LessThanEqual,
    cst.LessThanEqual: cst.LessThan,
    cst.GreaterThan: cst.GreaterThanEqual,
    cst.GreaterThanEqual: cst.GreaterThan,
    cst.Is: cst.IsNot,
    cst.IsNot: cst.Is,
    cst.In: cst.NotIn,
    cst.NotIn: cst.In,
}
#: The comparisons whose flip is their negation: a condition made of one of them is negated by
#: `FlipComparison` alone, so `NegateCondition` would write the same mutant in other words.
_NEGATED_BY_FLIP = (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot, cst.In, cst.NotIn)
#: Expressions that bind looser than `not`, and need brackets under it.
_LOOSE = (cst.BooleanOperation, cst.IfExp, cst.Lambda, cst.NamedExpr)
#: Operator names, in the order `--operators` and the docs list them.
CLASSIC = (
    "NegateCondition",
    "FlipComparison",
    "SwapBoolean",
    "SwapTrueFalse",
    "IncrementNumber",
    "DecrementNumber",
    "EmptyString",
    "EmptyTuple",
    "RemoveStatement",
    "SkipLoopBody",
)


def classic_mutations(module: cst.Module) -> Iterator[Mutation]:
    """Every classic mutation of the code in the module's function bodies, in no particular order."""
    finder = _Finder(module)
    module.visit(finder)
    return iter(finder.found)


class _Finder(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self.found: list[Mutation] = []
        self.depth = 0  # functions we are in: module and class level code runs once, at import
        self.returning = 0
        self.docstrings: set[int] = set()

    def code(self, node: cst.CSTNode, limit: int = 60) -> str:
        text = " ".join(self.module.code_for_node(node).split())
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def add(self, operator: str, description: str, node: cst.CSTNode, replacement: cst.CSTNode) -> None:
        if self.depth:
            self.found.append((operator, description, node, replacement))

    # -- where not to look ---------------------------------------------------------------------

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth += 1
        body = node.body.body
        if body and isinstance(body[0], cst.SimpleStatementLine) and isinstance(body[0].body[0], cst.Expr):
            self.docstrings.add(id(body[0].body[0].value))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        return False

    def visit_Annotation(self, node: cst.Annotation) -> bool:
        return False

    def visit_Parameters(self, node: cst.Parameters) -> bool:
        return False

    # -- conditions ----------------------------------------------------------------------------

    def visit_If(self, node: cst.If) -> None:
        self.negate(node.test)

    def visit_While(self, node: cst.While) -> None:
        self.negate(node.test)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.negate(node.test)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        self.negate(node.test)

    def negate(self, test: cst.BaseExpression) -> None:
        lone = isinstance(test, cst.Comparison) and len(test.comparisons) == 1
        if lone and isinstance(test.comparisons[0].operator, _NEGATED_BY_FLIP):  # type: ignore[attr-defined]
            return
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            negated: cst.BaseExpression = test.expression
        else:
            bracketed = isinstance(test, _LOOSE) and not test.lpar
            inner = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if bracketed else test
            negated = cst.UnaryOperation(cst.Not(), inner)
        self.add("NegateCondition", f"negated the condition `{self.code(test)}`", test, negated)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        for target in node.comparisons:
            operator: Any = target.operator  # every comparison operator has whitespace on both sides
            spaced = {"whitespace_before": operator.whitespace_before, "whitespace_after": operator.whitespace_after}
            flipped = _FLIPPED[type(operator)](**spaced)
            before, after = self.code(operator).strip(), self.code(flipped).strip()
            self.add("FlipComparison", f"`{before}` made `{after}` in `{self.code(node)}`", operator, flipped)

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        operator = node.operator
        swapped = cst.Or if isinstance(operator, cst.And) else cst.And
        replacement = swapped(whitespace_before=operator.whitespace_before, whitespace_after=operator.whitespace_after)
        before, after = self.code(operator).strip(), self.code(replacement).strip()
        self.add("SwapBoolean", f"`{before}` made `{after}` in `{self.code(node)}`", operator, replacement)

    # -- constants -----------------------------------------------------------------------------

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in ("True", "False"):
            other = "False" if node.value == "True" else "True"
            self.add("SwapTrueFalse", f"`{node.value}` made `{other}`", node, node.with_changes(value=other))

    def visit_Integer(self, node: cst.Integer) -> None:
        value = int(node.value, 0)
        for operator, changed in (("IncrementNumber", value + 1), ("DecrementNumber", value - 1)):
            replacement: cst.BaseExpression = cst.Integer(str(abs(changed)))
            if changed < 0:
                replacement = cst.UnaryOperation(cst.Minus(), replacement)
            self.add(operator, f"`{node.value}` made `{changed}`", node, replacement)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if id(node) in self.docstrings or not node.raw_value:
            return
        emptied = node.with_changes(value=f"{node.prefix}{node.quote}{node.quote}")
        self.add("EmptyString", f"emptied the string `{self.code(node, 40)}`", node, emptied)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.add("EmptyString", f"emptied the string `{self.code(node, 40)}`", node, cst.SimpleString('""'))
        return False  # a string emptied inside an f-string's expression would end the f-string

    def visit_Return(self, node: cst.Return) -> None:
        self.returning += 1

    def leave_Return(self, original_node: cst.Return) -> None:
        self.returning -= 1

    def visit_Tuple(self, node: cst.Tuple) -> None:
        if self.returning and node.elements:
            emptied = cst.Tuple([], lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            self.add("EmptyTuple", f"the returned tuple `{self.code(node)}` made `()`", node, emptied)

    # -- statements ----------------------------------------------------------------------------

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if len(node.body) != 1:
            return
        statement = node.body[0]
        value = statement.value if isinstance(statement, cst.Expr) else None
        if isinstance(value, cst.Await):
            value = value.expression
        removable = isinstance(statement, cst.Assign | cst.AugAssign | cst.Raise | cst.Continue | cst.Break)
        removable |= isinstance(statement, cst.AnnAssign) and statement.value is not None
        if removable or isinstance(value, cst.Call):
            self.add("RemoveStatement", f"removed `{self.code(statement)}`", node, node.with_changes(body=[cst.Pass()]))

    def visit_For(self, node: cst.For) -> None:
        skipped = node.with_changes(body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])]))
        header = f"for {self.code(node.target)} in {self.code(node.iter)}"
        self.add("SkipLoopBody", f"skipped the body of `{header}`", node, skipped)
