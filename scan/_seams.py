"""The seams of guard code, and one source mutant per seam.

A seam is a statement the guarantee rests on: a parity check, a settlement on a refusal path, or
a snapshot that keeps the baseline independent. Each mutant weakens exactly one of them in a copy
of the source (the file itself is never touched); if the cases still pass on that copy, the seam
is not load-bearing, or the cases do not test it.
"""

from __future__ import annotations

import builtins
import difflib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._cfg import SIMPLE
from ._operators import classic_mutations
from ._rule import Tree, dotted, named
from ._types import ScanConfig

#: The seam operators; `CLASSIC` are the others.
SEAMS = ("RemoveCheck", "ConditionalOnHooks", "RemoveSettlement", "SnapshotToObject", "BaselineFromRequest")


@dataclass(frozen=True, slots=True)
class SourceMutant:
    """One seam weakened: where, how, and the whole mutated source."""

    #: Stable within a file: `kind@line:column`.
    id: str
    #: A seam operator (`SEAMS`: `RemoveCheck`, …) or a classic one (`CLASSIC`: `NegateCondition`, …).
    mutator: str
    description: str
    line: int
    column: int
    end_line: int
    end_column: int
    original: str
    replacement: str
    source: str
    diff: str


def source_mutants(
    source: str,
    path: str,
    config: ScanConfig,
    operators: frozenset[str] = frozenset(SEAMS),
    functions: frozenset[str] | None = None,
) -> tuple[SourceMutant, ...]:
    """Every seam of one module's source, each weakened in its own copy, and with `operators` naming
    classic ones, every classic mutation too. `functions` (qualified names, `Class.method`) keeps the
    mutants inside those functions; None keeps every one."""
    module = cst.parse_module(source)
    tree = Tree(module)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    spans = [span for name, span in function_spans(module, positions).items() if functions is None or name in functions]
    found = []
    for mutator, description, node, replacement in (*_seams(tree, config), *classic_mutations(module)):
        where = positions[node]
        start = (where.start.line, where.start.column)
        if mutator not in operators or not any(first <= start < last for first, last in spans):
            continue
        mutated = module.deep_replace(node, replacement)
        assert isinstance(mutated, cst.Module)
        diff = "".join(
            difflib.unified_diff(
                source.splitlines(keepends=True), mutated.code.splitlines(keepends=True), path, f"{path} (mutant)", n=2
            )
        )
        found.append(
            SourceMutant(
                id=f"{mutator}@{where.start.line}:{where.start.column + 1}",
                mutator=mutator,
                description=description,
                line=where.start.line,
                column=where.start.column + 1,
                end_line=where.end.line,
                end_column=where.end.column + 1,
                original=module.code_for_node(node).strip(),
                replacement=module.code_for_node(replacement).strip(),
                source=mutated.code,
                diff=diff,
            )
        )
    return tuple(sorted(found, key=lambda mutant: (mutant.line, mutant.column)))


def function_names(source: str) -> frozenset[str]:
    """The qualified names of a module's functions and of its classes' methods (`Capacity.exceeded`)."""
    module = cst.parse_module(source)
    return frozenset(function_spans(module, MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)))


def function_spans(module: cst.Module, positions: Any) -> dict[str, tuple[tuple[int, int], tuple[int, int]]]:
    """Where each function of the module and each method of its classes begins and ends, by
    qualified name (`rule`, `Capacity.exceeded`); a function nested in one belongs to it."""
    named: list[tuple[str, cst.FunctionDef]] = []
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            named.append((statement.name.value, statement))
        elif isinstance(statement, cst.ClassDef):
            methods = [node for node in statement.body.body if isinstance(node, cst.FunctionDef)]
            named.extend((f"{statement.name.value}.{method.name.value}", method) for method in methods)
    spans = {}
    for name, function in named:
        where = positions[function]
        spans[name] = ((where.start.line, where.start.column), (where.end.line, where.end.column))
    return spans


def _seams(tree: Tree, config: ScanConfig) -> Iterator[tuple[str, str, cst.CSTNode, cst.CSTNode]]:
    settle_steps = [f for f in tree.functions() if named(f.name.value, config.settle)]
    handlers = tree.findall(tree.module, cst.ExceptHandler)
    known = _module_names(tree)
    for function in tree.functions():
        in_scope = known | _parameters(function)
        for line in tree.findall(function.body, *SIMPLE):
            call = _lone_call(line)
            if call is None:
                continue
            name = dotted(call.func)
            # Configured checks only: removing a step that merely contains one removes the pipeline.
            if named(name, config.check):
                yield "RemoveCheck", f"removed the check `{name}(…)`", line, _passed(line)
                condition = _template(config.hook_condition, in_scope)
                if "final" in name and condition is not None:
                    guarded = cst.If(test=condition, body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]))
                    yield (
                        "ConditionalOnHooks",
                        f"`{name}(…)` runs only when hooks are registered",
                        line,
                        guarded.with_changes(leading_lines=line.leading_lines),
                    )
            elif named(name, config.settle) and any(_within(tree, line, f) for f in (*settle_steps, *handlers)):
                yield "RemoveSettlement", f"removed the settlement `{name}(…)` on a refusal path", line, _passed(line)
        if "baseline" not in function.name.value:
            continue
        for call in tree.calls(function.body):
            if named(dotted(call.func), config.snapshot) and call.args:
                yield (
                    "SnapshotToObject",
                    f"the baseline is the object itself, not `{dotted(call.func)}(…)` of it",
                    call,
                    call.args[0].value,
                )
        from_request = _template(config.request_baseline, in_scope)
        for returned in tree.findall(function.body, cst.Return):
            if returned.value is not None and from_request is not None:
                yield (
                    "BaselineFromRequest",
                    "the baseline is read from the live request when checked",
                    returned.value,
                    from_request,
                )


def _template(templates: tuple[str, ...], in_scope: set[str]) -> cst.BaseExpression | None:
    """The first template expression whose every free name the function can see."""
    for template in templates:
        expression = cst.parse_expression(template)
        if _free_names(expression) <= in_scope | set(dir(builtins)):
            return expression
    return None


def _free_names(expression: cst.BaseExpression) -> set[str]:
    """Names an expression reads that it does not bind itself (a lambda's parameters are bound)."""
    module = cst.Module(body=[cst.SimpleStatementLine([cst.Expr(expression)])])
    tree = Tree(module)
    bound = {param.name.value for lam in tree.findall(module, cst.Lambda) for param in lam.params.params}
    # `run.tools`: `run` is read, `tools` is an attribute name, not a variable.
    attributes = {id(a.attr) for a in tree.findall(module, cst.Attribute)}
    return {n.value for n in tree.findall(module, cst.Name) if id(n) not in attributes} - bound


def _parameters(function: cst.FunctionDef) -> set[str]:
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {param.name.value for param in every}


def _module_names(tree: Tree) -> set[str]:
    """Names bound at the module's top level: imports, functions, classes, assignments."""
    names: set[str] = set()
    for statement in tree.module.body:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            names.add(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Import | cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname else alias.name
                        names.add(dotted(bound).split(".")[0])
                elif isinstance(small, cst.Assign):
                    names |= {dotted(t.target) for t in small.targets if isinstance(t.target, cst.Name)}
    return names


def _lone_call(line: cst.CSTNode) -> cst.Call | None:
    """The call a simple line consists of (`self.final_check(run)`, `await check(x)`), if it does."""
    assert isinstance(line, SIMPLE)
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Expr):
        return None
    value = line.body[0].value
    if isinstance(value, cst.Await):
        value = value.expression
    return value if isinstance(value, cst.Call) else None


def _passed(line: cst.CSTNode) -> cst.CSTNode:
    """The same line with its statement replaced by `pass`, comments and blank lines kept."""
    return line.with_changes(body=[cst.Pass()])


def _within(tree: Tree, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
    return tree.within(node, outer)
