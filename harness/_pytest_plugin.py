"""The pytest plugin's entry point: `pytest --toolsurface` runs every planned case as a test item.

Every pytest session of an environment where toolsurface is installed loads this module, so it
imports nothing but pytest and adds nothing but its options: installing toolsurface must never
slow down, change or break a suite beside it. Only when `--toolsurface` is given does it import
the engine and register the cases (`_pytest_cases`).
"""

from __future__ import annotations

import pytest

#: The argparse destination of every option but `--toolsurface` starts with this.
_SETTING = "toolsurface_"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("toolsurface", "toolsurface cases as test items")
    group.addoption("--toolsurface", action="store_true", help="Collect every planned toolsurface case as a test item.")
    group.addoption(
        "--toolsurface-target", metavar="SPEC", help="Target under test: reference:<name> or package.module:factory."
    )
    group.addoption(
        "--toolsurface-red-target",
        metavar="SPEC|none",
        help="Old path to pair each case with (default: from config, else none).",
    )
    group.addoption(
        "--toolsurface-scenarios",
        metavar="PATH",
        action="append",
        help="Scenario file or folder (repeatable; default: bundled).",
    )
    group.addoption(
        "--toolsurface-select", metavar="GLOB", action="append", help="Only case ids matching this glob (repeatable)."
    )
    group.addoption(
        "--toolsurface-seed", metavar="N", type=int, help="Seed for mutation details; same seed, same items."
    )
    group.addoption(
        "--toolsurface-config",
        metavar="PYPROJECT",
        help="pyproject.toml with [tool.toolsurface] (default: the rootdir's).",
    )
    group.addoption(
        "--toolsurface-expectations", metavar="FILE", help="TOML file of [[expect]] entries: accepted deviations."
    )
    group.addoption(
        "--toolsurface-timeout", metavar="SECONDS", type=float, help="Seconds one case may run before it is an error."
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("toolsurface"):
        from ._pytest_cases import (
            register,  # the engine, only for a run that asks for it
        )

        register(config)
        return
    # A setting for a run that is not happening is a mistake to report, not to ignore.
    settings = vars(config.option)
    given = [
        f"--{dest.replace('_', '-')}"
        for dest in sorted(settings)
        if dest.startswith(_SETTING) and settings[dest] is not None
    ]
    if given:
        raise pytest.UsageError(
            f"toolsurface: {', '.join(given)} given without --toolsurface, which collects the cases"
        )
