"""The errors toolsurface raises on bad input.

Input errors are one line each, name the file, spec or input at fault, and say what was expected;
the CLI prints them and exits 2, the pytest plugin makes them a usage error. The engine names an
input by its option (`seed`, `red_target`, `out`), never by a flag: each front end spells it as its
own flag, and a value that came from `[tool.toolsurface]` is named by its file and key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


class ToolsurfaceError(Exception):
    """Bad input to toolsurface: a flag, a target spec, a case id."""

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        #: The input whose value is at fault, by its option name; the message then starts with that
        #: value, so that a front end puts its own name for the input in front.
        self.option = option
        #: The pyproject file whose `[tool.toolsurface]` gave that value, when no flag did.
        self.config: Path | None = None

    @property
    def problems(self) -> tuple[str, ...]:
        """What is wrong, one problem each: the message, whole. (Not its lines: a path a problem
        names may hold a newline, which the front end escapes rather than breaks the line at.)"""
        return (str(self),)

    def lines(self, flag: Callable[[str], str]) -> list[str]:
        """One line per problem, the input at fault named by `flag(option)` or by its config key."""
        lines = list(self.problems)
        if self.option is None:
            return lines
        if self.config is not None:
            return [f"{self.config}:[tool.toolsurface].{self.option}: {line}" for line in lines]
        return [f"{flag(self.option)} {line}" for line in lines]


class TargetError(ToolsurfaceError):
    """A target spec that cannot be loaded into a target."""


class PluginError(ToolsurfaceError):
    """An installed extension (a target family or a rule pack) whose entry point cannot be used."""


class UsageError(ToolsurfaceError):
    """A flag or argument with a value that cannot work."""


class ExpectationsError(ToolsurfaceError):
    """An expectations or equivalents file that cannot be read or is invalid; each problem is one line."""

    def __init__(self, problems: list[str] | tuple[str, ...], *, option: str | None = None) -> None:
        self._problems = tuple(problems)
        super().__init__("\n".join(self._problems), option=option)

    @property
    def problems(self) -> tuple[str, ...]:
        return self._problems
