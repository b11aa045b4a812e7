"""Every node's line and column, for a module with something to report.

libcst's `MetadataWrapper` first walks the whole module for the batchable providers, of which
positions are not one, and its position state splits every token on newlines. Generating the code
once with a state that splits only tokens holding a newline gives the same ranges in about 40%
of the time. Both lean on libcst internals (`_codegen`, the provider's `_computed`), so a libcst
that changes them falls back to the public wrapper.

A report needs the ranges of a few nodes only, in one or two of the module's statements. CPython's
tree says on which line each statement of the module starts, so those statements alone are
generated, each from its own first line. Where libcst's statements and CPython's do not line up
one to one, or a generated statement does not start where CPython says, the whole module is.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
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
    starts = _starts(parsed)
    if len(starts) != len(module.body):
        return None
    provider = PositionProvider()
    for statement, (first, own) in zip(module.body, starts, strict=True):
        if id(statement) not in holding:
            continue
        state = _state(module, provider)
        state.line = first - len(statement.leading_lines)
        statement._codegen(state)
        if cast(CodeRange, provider._computed[statement]).start.line != own:
            return None  # a comment libcst counts elsewhere than the line before it
    return cast(Mapping[cst.CSTNode, CodeRange], provider._computed)


def _starts(parsed: ast.Module) -> list[tuple[int, int]]:
    """For each statement of the module as libcst groups them (`a = 1; b = 2` is one), the line its
    code starts on after the comments and blank lines before it, decorators included, and the line
    libcst's range for it starts on (a function's or class's `def` or `class` line)."""
    starts: list[tuple[int, int]] = []
    end = 0
    for statement in parsed.body:
        if statement.lineno == end:
            continue  # after a `;`, in the statement before
        decorators = getattr(statement, "decorator_list", None) or ()
        starts.append((min([statement.lineno, *(d.lineno for d in decorators)]), statement.lineno))
        end = statement.end_lineno or statement.lineno
    return starts
