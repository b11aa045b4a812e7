"""TOML files as toolsurface reads them: a pyproject's `[tool.toolsurface]` and an expectations file.

`tomllib` fails in more ways than `TOMLDecodeError`: an integer of more than 4300 digits is a
`ValueError` (Python's limit on reading one), arrays nested a few hundred deep a `RecursionError`.
Tables it nests as deep as a dotted key is long (`a.a.a…`), without recursing, which anything
that walks them then would. And it reads more than TOML allows: TOML's integers are 64-bit ("an
integer that cannot be represented losslessly must be an error"), but tomllib takes any, and a
hexadecimal one of thousands of digits is then too long even to print. Here every such file is
one error naming it, and `wide_integer` finds the integers a reader of TOML must refuse.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ._errors import UsageError

#: TOML's integers: 64-bit, signed.
INTEGERS = range(-(2**63), 2**63)
#: Past this many bits an integer has more digits than Python prints (4300).
_PRINTABLE_BITS = 14_000
#: How deep tables and arrays may nest: far deeper than any settings file, and shallow enough for
#: whatever walks them to recurse.
DEPTH = 100


class TomlError(ValueError):
    """A file that is not TOML; the message names it."""


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML document in `path`; an `OSError` when it cannot be read (the caller knows which
    input named it), a `TomlError` when it is not TOML."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise TomlError(f"{path}: not valid TOML: {error}") from None
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TomlError(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise TomlError(f"{path}: not valid TOML: arrays or tables nested too deeply to read") from None
    except ValueError:  # Python refuses to read an integer of more than 4300 digits
        raise TomlError(f"{path}: not valid TOML: an integer too long to read; TOML's integers are 64-bit") from None
    if _deeper(document, DEPTH):
        raise TomlError(f"{path}: tables or arrays nested more than {DEPTH} levels deep; toolsurface reads no deeper")
    return document


def _deeper(value: Any, depth: int) -> bool:
    """Whether `value` nests tables or arrays more than `depth` levels deep; a loop, not recursion."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level == depth:
                return True
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def wide_integer(value: Any, at: tuple[str | int, ...] = ()) -> tuple[tuple[str | int, ...], int] | None:
    """The first integer in `value` past TOML's 64 bits, and the keys and indices that lead to it;
    None when there is none. (Recursion is safe here: `read_toml` reads no deeper than `DEPTH`.)"""
    if isinstance(value, int) and not isinstance(value, bool):
        return None if value in INTEGERS else (at, value)
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        if (found := wide_integer(item, (*at, key))) is not None:
            return found
    return None


def wide(value: int) -> str:
    """What to say of an integer past 64 bits, which may be too long to print."""
    shown = str(value) if value.bit_length() <= _PRINTABLE_BITS else f"an integer of {value.bit_length()} bits"
    return f"{shown} is past TOML's 64-bit integers (from -2**63 to 2**63 - 1)"


def read_pyproject(path: Path) -> dict[str, Any]:
    """The TOML document in `path`; a one-line `UsageError` when it cannot be read or parsed."""
    try:
        return read_toml(path)
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror or error}", option="config") from None
    except TomlError as error:
        raise UsageError(str(error)) from None


def tool_table(path: Path, *names: str) -> dict[str, Any]:
    """`[tool.<names>]` of the pyproject file in `path`, empty when it has none; a one-line
    `UsageError` when it or a table around it is not a table, or holds an integer TOML does not."""
    table: Any = read_pyproject(path)
    for depth, name in enumerate(("tool", *names), start=1):
        table = table.get(name, {})
        if not isinstance(table, dict):
            raise UsageError(
                f"{path}:[{'.'.join(('tool', *names)[:depth])}]: expected a table, found {type(table).__name__}"
            )
    if (found := wide_integer(table)) is not None:
        at, value = found
        raise UsageError(f"{path}:{key_path(('tool', *names), at)}: {wide(value)}")
    return table


def key_path(table: tuple[str, ...], keys: Iterable[str | int]) -> str:
    """Where a value is in a pyproject file: `[tool.toolsurface].thresholds.min_cases`,
    `[tool.toolsurface].formats[0]`."""
    return f"[{'.'.join(table)}]" + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in keys)
