"""Errors raised while reading recorded scenarios."""

from __future__ import annotations


class ScenarioError(Exception):
    """One or more scenario files are unreadable or invalid; each problem is one line."""

    def __init__(self, problems: list[str] | tuple[str, ...]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))
