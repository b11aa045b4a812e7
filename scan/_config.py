"""Read `[tool.toolsurface.scan]` from a pyproject file into a `ScanConfig`."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import libcst as cst

from toolsurface.common._errors import UsageError
from toolsurface.common._toml import tool_table

from ._presets import PRESETS, with_presets
from ._registry import registered_rules
from ._types import WORD_SETTINGS, ScanConfig

#: Fields the scan fills in from the rest of the program, never read from a file.
_FOUND = frozenset(
    {
        "editors",
        "readers",
        "settling_managers",
        "hook_conditions",
        "returners",
        "refusal_lineage",
        "tool_getters",
        "comparers",
        "settle_steps",
        "tool_fields",
        "foreign_inits",
        "origins",
    }
)

#: Settings that name rules by id.
_RULE_LISTS = frozenset({"select", "ignore"})

#: Settings that are Python expressions the source mutants are written from.
_TEMPLATES = frozenset({"hook_condition", "request_baseline"})


def load_config(path: Path | None) -> ScanConfig:
    """The scan names of `path` (default: ./pyproject.toml, when it exists); defaults elsewhere."""
    if path is None:
        path = Path("pyproject.toml")
        if not path.is_file():
            return ScanConfig()
    table = dict(tool_table(path, "toolsurface", "scan"))
    presets = _presets(table.pop("preset", ()), f"{path}:[tool.toolsurface.scan].preset")
    defaults = {field.name: field.default for field in dataclasses.fields(ScanConfig)}
    known = set(defaults) - _FOUND
    values: dict[str, Any] = with_presets(defaults, presets)
    for key, value in table.items():
        where = f"{path}:[tool.toolsurface.scan].{key}"
        if key not in known:
            raise UsageError(f"{where}: unknown setting (known: {', '.join(sorted(known | {'preset'}))})")
        if key == "time_limit":
            values[key] = time_limit(value, where)
            continue
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            raise UsageError(f"{where}: expected a list of non-empty strings")
        if key in _RULE_LISTS:
            unknown_rules(value, where)
        if key in _TEMPLATES:
            for item in value:
                try:
                    cst.parse_expression(item)
                except cst.ParserSyntaxError:
                    raise UsageError(f"{where}: {item!r} is not a Python expression") from None
        # Words are added to the defaults: a team naming its own events (`before_model`) still
        # has hooks called `hooks`, and one naming its `specs` still has `tools`.
        values[key] = tuple(dict.fromkeys((*values[key], *value))) if key in WORD_SETTINGS else tuple(value)
    return ScanConfig(**values)


def _presets(value: object, where: str) -> tuple[str, ...]:
    """The framework presets named by `preset`: one name, or a list of them."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list | tuple) or not all(isinstance(name, str) for name in names):
        raise UsageError(f"{where}: expected a preset name or a list of them ({', '.join(PRESETS)})")
    for name in names:
        if name not in PRESETS:
            raise UsageError(f"{where}: unknown preset {name!r} (known: {', '.join(PRESETS)})")
    return tuple(names)


#: The longest a file may take, in seconds: a day. A worker's deadline must fit the clock that
#: arms it (a 64-bit count of nanoseconds); no file takes anything near it.
TIME_LIMIT_MAX = 86_400


def time_limit(value: object, where: str) -> float:
    """Seconds one file may take: a positive number (TOML's `30` or `2.5`), at most a day."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= TIME_LIMIT_MAX:
        raise UsageError(
            f"{where}: expected a positive number of seconds, at most {TIME_LIMIT_MAX} (a day), got {value!r}"
        )
    return float(value)


def unknown_rules(ids: Sequence[str], where: str | None = None, option: str | None = None) -> None:
    """Refuse a rule id no rule has: `select = ["TS-107"]` would otherwise run nothing, silently."""
    known = [rule.id for rule in registered_rules()]
    for rule_id in ids:
        if rule_id not in known:
            problem = f"{rule_id!r} is not a rule (known: {', '.join(known)})"
            raise UsageError(f"{where}: {problem}" if where else problem, option=option)
