"""The pytest plugin's entry point: `pytest --toolsurface` runs every planned case as a test item.

Every pytest session of an environment where toolsurface is installed loads this module, so it
imports nothing but pytest and adds nothing but its options: installing toolsurface must never
slow down, change or break a suite beside it (the options' declaration, `_options`, imports only
the standard library). Only when `--toolsurface` is given does it import
the engine and register the cases (`_pytest_cases`).
"""

from __future__ import annotations

from typing import Any, get_args

import pytest

from ._options import OPTIONS, RunOption


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolsurface", "toolsurface cases as test items")
    group.addoption("--toolsurface", action="store_true", help="Collect every planned toolsurface case as a test item.")
    for option in OPTIONS:
        if option.pytest_flag is not None:
            group.addoption(option.pytest_flag, **_argparse(option))


def _argparse(option: RunOption) -> dict[str, Any]:
    """How argparse reads the option: its value's type (each value's, for a repeatable one), where it keeps it."""
    kind = get_args(option.type)[0] if option.repeatable else option.type
    return {
        "dest": option.dest,
        "metavar": option.metavar,
        "help": option.pytest_help or option.help,
        **({"action": "append"} if option.repeatable else {}),
        **({} if kind is str else {"type": kind}),
    }


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("toolsurface"):
        from ._pytest_cases import (
            register,  # the engine, only for a run that asks for it
        )

        register(config)
        return
    # A setting for a run that is not happening is a mistake to report, not to ignore.
    given = sorted(
        option.pytest_flag
        for option in OPTIONS
        if option.pytest_flag is not None and config.getoption(option.dest) is not None
    )
    if given:
        raise pytest.UsageError(
            f"toolsurface: {', '.join(given)} given without --toolsurface, which collects the cases"
        )
