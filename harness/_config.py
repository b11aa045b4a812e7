"""Read `[tool.toolsurface]` from a pyproject file: the spec a run closes and how to run it.

Paths in it are relative to the file, so a CI job started anywhere in the tree runs the same
plan. Flags given on the command line win over it; its scan names (`[tool.toolsurface.scan]`) are
read by the scan.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import jsonschema
import orjson
from jsonschema.exceptions import best_match

from toolsurface.common._errors import UsageError
from toolsurface.common._toml import key_path, tool_table

from ._gate import Thresholds

#: The file read when no `--config` is given, if it exists.
DEFAULT_CONFIG = Path("pyproject.toml")


@dataclass(frozen=True, slots=True)
class Spec:
    """The spec a run closes: its id and title head every report."""

    id: str
    title: str | None = None


@dataclass(frozen=True)
class ProjectConfig:
    """The settings of `[tool.toolsurface]`; None (or empty) where the file says nothing."""

    #: The file they came from, None when there was none.
    path: Path | None = None
    #: The keys the file sets, as against the defaults filled in for the rest.
    keys: frozenset[str] = frozenset()
    spec: Spec | None = None
    target: str | None = None
    red_target: str | None = None
    scenarios: tuple[Path, ...] = ()
    select: tuple[str, ...] = ()
    seed: int | None = None
    timeout: float | None = None
    jobs: int | None = None
    grace: float | None = None
    out: Path | None = None
    formats: tuple[str, ...] = ()
    expectations: Path | None = None
    defects: bool = False
    thresholds: Thresholds = field(default_factory=Thresholds)


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = orjson.loads(resources.files(__package__).joinpath("config.schema.json").read_bytes())
    return jsonschema.Draft202012Validator(schema)


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
    base = path.parent

    def relative(value: str | None) -> Path | None:
        return None if value is None else base / value

    spec = Spec(table["spec"], table.get("title")) if "spec" in table else None
    if spec is None and "title" in table:
        raise UsageError(f'{path}:[tool.toolsurface].title: a title needs the spec id beside it (spec = "…")')
    return ProjectConfig(
        path=path,
        keys=frozenset(table),
        spec=spec,
        target=table.get("target"),
        red_target=table.get("red_target"),
        scenarios=tuple(base / item for item in table.get("scenarios", ())),
        select=tuple(table.get("select", ())),
        seed=table.get("seed"),
        timeout=table.get("timeout"),
        jobs=table.get("jobs"),
        grace=table.get("grace"),
        out=relative(table.get("out")),
        formats=tuple(table.get("formats", ())),
        expectations=relative(table.get("expectations")),
        defects=table.get("defects", False),
        thresholds=Thresholds(**table.get("thresholds", {})),
    )
