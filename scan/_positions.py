"""Every node's line and column, for a module with something to report.

libcst's `MetadataWrapper` first walks the whole module for the batchable providers, of which
positions are not one, and its position state splits every token on newlines. Generating the code
once with a state that splits only tokens holding a newline gives the same ranges in about 40%
of the time. Both lean on libcst internals (`_codegen`, the provider's `_computed`), so a libcst
that changes them falls back to the public wrapper.

A report needs the ranges of a few nodes only, in one or two statements: of the module, or
methods and fields of its classes. CPython's tree says on which line each statement starts, so
those statements alone are generated, each from its own first line at its own indentation. Where
libcst's statements and CPython's do not line up one to one, or a generated statement does not
start where CPython says, the whole module is.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping, Sequence
from typing import cast

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider
from libcst.metadata.position_provider import NEWLINE_RE, PositionProvidingCodegenState


class _Positions(PositionProvidingCodegenState):
    def _update_position(self, value: str) -> None:
        if "\n" not in value and "\r" not in value:
            self.column += len(value)
            return
        segments = NEWLINE_RE.split(value)
        self.line += len(segments) - 1
        self.column = len(segments[-1])


def positions(
    module: cst.Module, parsed: ast.Module | None = None, holding: Collection[cst.BaseStatement] = ()
) -> Mapping[cst.CSTNode, CodeRange]:
    """Each node's range, as libcst's `PositionProvider` gives it: of every node, or, given
    CPython's tree of the same lines, at least of the nodes in the `holding` statements."""
    try:
        if parsed is not None and holding:
            some = _within(module, parsed, {id(statement) for statement in holding})
            if some is not None:
                return some
        provider = PositionProvider()
        module._codegen(_state(module, provider))
        return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)
    except (AttributeError, TypeError):  # libcst's internals moved: take the public way
        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def _state(module: cst.Module, provider: PositionProvider) -> _Positions:
    return _Positions(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)


def _within(module: cst.Module, parsed: ast.Module, holding: set[int]) -> Mapping[cst.CSTNode, CodeRange] | None:
    provider = PositionProvider()
    if not _generate(module, provider, module.body, parsed.body, holding, []):
        return None
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)


def _generate(
    module: cst.Module,
    provider: PositionProvider,
    statements: Sequence[cst.BaseStatement],
    parsed: list[ast.stmt],
    holding: set[int],
    indents: list[str],
) -> bool:
    """Generate the `holding` statements among these, each from its own first line at the
    indentation it is under, and look for more in the body of a class that holds some; False where
    libcst's statements and CPython's do not line up."""
    starts = _starts(parsed)
    if len(starts) != len(statements):
        return False
    for statement, (first, own, node) in zip(statements, starts, strict=True):
        if id(statement) in holding:
            state = _state(module, provider)
            state.indent_tokens = list(indents)
            state.line = first - len(statement.leading_lines)  # type: ignore[attr-defined]
            statement._codegen(state)
            start = cast(CodeRange, provider._computed[statement]).start
            if (start.line, start.column) != (own, node.col_offset):
                return False  # a comment libcst counts elsewhere than the line before it
        elif _holds(statement, holding) and isinstance(node, ast.ClassDef):
            assert isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock)
            indent = module.default_indent if statement.body.indent is None else statement.body.indent
            if not _generate(module, provider, statement.body.body, node.body, holding, [*indents, indent]):
                return False
    return True


def _holds(statement: cst.BaseStatement, holding: set[int]) -> bool:
    """Whether the statement is a class with a `holding` statement in its body, at any depth."""
    if not (isinstance(statement, cst.ClassDef) and isinstance(statement.body, cst.IndentedBlock)):
        return False
    return any(id(member) in holding or _holds(member, holding) for member in statement.body.body)


def _starts(parsed: list[ast.stmt]) -> list[tuple[int, int, ast.stmt]]:
    """For each statement as libcst groups them (`a = 1; b = 2` is one), the line its code starts
    on after the comments and blank lines before it, decorators included, the line libcst's range
    for it starts on (a function's or class's `def` or `class` line), and CPython's statement."""
    starts: list[tuple[int, int, ast.stmt]] = []
    end = 0
    for statement in parsed:
        if statement.lineno == end:
            continue  # after a `;`, in the statement before
        decorators = getattr(statement, "decorator_list", None) or ()
        starts.append((min([statement.lineno, *(d.lineno for d in decorators)]), statement.lineno, statement))
        end = statement.end_lineno or statement.lineno
    return starts
