"""Read `[tool.toolsurface]` from a pyproject file: the spec a run closes and how to run it.

Paths in it are relative to the file, so a CI job started anywhere in the tree runs the same
plan. Flags given on the command line win over it; its scan names (`[tool.toolsurface.scan]`) are
read by the scan.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from jsonschema.exceptions import best_match

from toolsurface.common._errors import UsageError
from toolsurface.common._toml import key_path, tool_table

from ._options import OPTIONS, config_schema

#: The file read when no `--config` is given, if it exists.
DEFAULT_CONFIG = Path("pyproject.toml")


@dataclass(frozen=True, slots=True)
class Spec:
    """The spec a run closes: its id and title head every report."""

    id: str
    title: str | None = None


@dataclass(frozen=True)
class ProjectConfig:
    """The settings of `[tool.toolsurface]`: the value of each run option the file sets."""

    #: The file they came from, None when there was none.
    path: Path | None = None
    #: The keys the file sets.
    keys: frozenset[str] = frozenset()
    #: Each set option's value by its name, read as its declaration says (paths relative to the file).
    settings: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        """The value the file gives this option, None where it gives none."""
        return self.settings.get(name)


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(config_schema())


def load_project_config(path: Path | None) -> ProjectConfig:
    """The settings in `path` (default: ./pyproject.toml when it exists; none elsewhere)."""
    if path is None:
        if not DEFAULT_CONFIG.is_file():
            return ProjectConfig()
        path = DEFAULT_CONFIG
    table = tool_table(path, "toolsurface")
    error = best_match(_validator().iter_errors(table))
    if error is not None:
        raise UsageError(f"{path}:{key_path(('tool', 'toolsurface'), error.absolute_path)}: {error.message}")
    if "title" in table and "spec" not in table:
        raise UsageError(f'{path}:[tool.toolsurface].title: a title needs the spec id beside it (spec = "…")')
    settings = {option.name: option.read(table, path.parent) for option in OPTIONS if option.name in table}
    return ProjectConfig(path=path, keys=frozenset(table), settings=settings)
