"""A node's children in source order, without its layout: what the scan's index is built from.

libcst's own `children` runs a visitor over every field and yields whitespace, brackets and commas
too, which is most of the nodes of a module and most of the cost of indexing one. The rules never
ask for layout, so the index reads the fields that can hold code and skips the rest. Comments are
layout too; `every_child` keeps them, for the one rule that reads suppressions.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable
from typing import Any

import libcst as cst

#: Node types that only lay code out. Exact types: `isinstance` on libcst's abstract bases costs
#: more than the lookup it would save.
LAYOUT: frozenset[type[cst.CSTNode]] = frozenset(
    {
        cst.SimpleWhitespace,
        cst.ParenthesizedWhitespace,
        cst.EmptyLine,
        cst.TrailingWhitespace,
        cst.Newline,
        cst.Comment,
        cst.Comma,
        cst.Dot,
        cst.LeftParen,
        cst.RightParen,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
        cst.Semicolon,
        cst.Colon,
        cst.AssignEqual,
    }
)

#: Fields that hold only layout, by name, on every node type that has them.
_LAYOUT_FIELDS = frozenset(
    {
        "leading_lines",
        "lines_after_decorators",
        "lpar",
        "rpar",
        "lbracket",
        "rbracket",
        "lbrace",
        "rbrace",
        "comma",
        "equal",
        "semicolon",
        "colon",
        "dot",
        "header",
        "footer",
        "newline",
        "trailing_whitespace",
        "whitespace",
    }
)

#: Node types whose fields are declared in another order than their code is written.
_SOURCE_ORDER: dict[type[cst.CSTNode], tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "asynchronous", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.Arg: ("keyword", "value"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.With: ("asynchronous", "items", "body"),
    cst.For: ("asynchronous", "target", "iter", "body", "orelse"),
    cst.CompFor: ("asynchronous", "target", "iter", "ifs", "inner_for_in"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
}


@functools.cache
def code_fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node type that can hold code, in the order the code is written."""
    if kind in _SOURCE_ORDER:
        return _SOURCE_ORDER[kind]
    return tuple(
        field.name
        for field in dataclasses.fields(kind)
        if field.name not in _LAYOUT_FIELDS and not field.name.startswith("whitespace_")
    )


@functools.cache
def _read(kind: type[cst.CSTNode]) -> Callable[[cst.CSTNode], tuple[Any, ...]]:
    """One C call that reads every code field of a node of this type, as a tuple."""
    names = code_fields(kind)
    if len(names) == 1:
        single = operator.attrgetter(names[0])
        return lambda node: (single(node),)
    return operator.attrgetter(*names) if names else lambda node: ()


#: Whether a value of each type met so far is a node of code: asked once per type, since
#: `isinstance` on libcst's abstract node class is slow.
_CODE: dict[type, bool] = {}


def _is_code(kind: type) -> bool:
    known = _CODE.get(kind)
    if known is None:
        known = _CODE[kind] = issubclass(kind, cst.CSTNode) and kind not in LAYOUT
    return known


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's children that are code, in source order."""
    found: list[cst.CSTNode] = []
    for value in _read(type(node))(node):
        kind = type(value)
        if kind is list or kind is tuple:
            found.extend(item for item in value if _is_code(type(item)))
        elif _is_code(kind):
            found.append(value)
    return found


def comments(module: cst.Module) -> list[cst.Comment]:
    """Every comment of the module, in source order: libcst's full walk, layout included."""
    found: list[cst.Comment] = []
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Comment):
            found.append(node)
        stack.extend(reversed(node.children))
    return found
