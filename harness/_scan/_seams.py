"""The seams of guard code, and one source mutant per seam.

A seam is a statement the guarantee rests on: a parity check, a settlement on a refusal path, or
a snapshot that keeps the baseline independent. Each mutant weakens exactly one of them in a copy
of the source (the file itself is never touched); if the cases still pass on that copy, the seam
is not load-bearing, or the cases do not test it.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ._flow import SIMPLE
from ._rule import Tree, dotted, named
from ._types import ScanConfig


@dataclass(frozen=True, slots=True)
class SourceMutant:
    """One seam weakened: where, how, and the whole mutated source."""

    #: Stable within a file: `kind@line:column`.
    id: str
    #: `RemoveCheck`, `RemoveSettlement` or `SnapshotToObject`.
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


def source_mutants(source: str, path: str, config: ScanConfig) -> tuple[SourceMutant, ...]:
    """Every seam of one module's source, each weakened in its own copy."""
    module = cst.parse_module(source)
    tree = Tree(module)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = []
    for mutator, description, node, replacement in _seams(tree, config):
        where = positions[node]
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


def _seams(tree: Tree, config: ScanConfig) -> Iterator[tuple[str, str, cst.CSTNode, cst.CSTNode]]:
    settle_steps = [f for f in tree.functions() if named(f.name.value, config.settle)]
    handlers = tree.findall(tree.module, cst.ExceptHandler)
    for line in tree.findall(tree.module, *SIMPLE):
        call = _lone_call(line)
        if call is None:
            continue
        name = dotted(call.func)
        # Configured checks only: removing a step that merely contains one removes the pipeline.
        if named(name, config.check):
            yield "RemoveCheck", f"removed the check `{name}(…)`", line, _passed(line)
        elif named(name, config.settle) and any(_within(tree, line, f) for f in (*settle_steps, *handlers)):
            yield "RemoveSettlement", f"removed the settlement `{name}(…)` on a refusal path", line, _passed(line)
    for function in tree.functions():
        if "baseline" not in function.name.value:
            continue
        for call in tree.calls(function.body):
            if named(dotted(call.func), config.snapshot) and call.args:
                yield "SnapshotToObject", f"the baseline is the object itself, not `{dotted(call.func)}(…)` of it", call, call.args[0].value


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
    return any(found is node for found in tree.findall(outer, type(node)))
