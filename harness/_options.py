"""The run options, declared once: every flag, pytest option and `[tool.toolsurface]` key is one here.

The front ends are made from this declaration rather than written beside it: the typer parameters
of every command that takes a run option (`cli/_flags.py`), the pytest plugin's options
(`_pytest_plugin`), and the keys of `[tool.toolsurface]` with their JSON Schema (`config_schema`,
read by `_config`; `config.schema.json` is this schema as a file, for editors).
`RunOptions` (`_api`) holds the values, and `RunOptions.configured` joins flag, file and default
through the declared names. tests/harness/test_options.py checks that all of them agree.

Only the standard library is imported here: the pytest plugin reads this module in every pytest
session of an environment where toolsurface is installed.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_origin

#: A config value as the file holds it (already checked against its schema), read into the
#: option's value; given the whole table and the file's folder, which paths are relative to.
Reader = Callable[[Mapping[str, Any], Path], Any]


@dataclass(frozen=True, slots=True)
class RunOption:
    """One run option: its name, and how each front end spells, explains and reads it."""

    #: The engine's name for it: the `RunOptions` field, the `option` an input error names, the config key.
    name: str
    #: What it is for, as the command line's help shows it.
    help: str
    #: The type of a flag's value (`list[...]`: the flag may be repeated); None for a config key alone.
    type: Any = None
    #: What the value is, as help shows it in place of its type.
    metavar: str | None = None
    #: The command line's spelling (`--defects/--no-defects` for an on/off pair); None: no flag.
    flag: str | None = None
    #: A flag's value when it is not given: None leaves the option to the config file or its default.
    unset: Any = None
    #: The pytest plugin's spelling; None: no pytest option.
    pytest_flag: str | None = None
    #: The pytest option's help, where it differs from the command line's (pytest's defaults do).
    pytest_help: str | None = None
    #: The JSON Schema of its `[tool.toolsurface]` key (named `name`); None: not a config key.
    schema: Mapping[str, Any] | None = None
    #: Reads the key's value from the table; None: the value as it stands.
    reader: Reader | None = None
    #: Turns a flag's value into the option's (text into a date); may raise a `UsageError` naming it.
    parse: Callable[[Any], Any] | None = None
    #: Whether `RunOptions` holds it; a few are for the front end alone (`--config`, `--follow-symlinks`)
    #: or for another command (the `scan` table).
    field: bool = True

    @property
    def key(self) -> str | None:
        """Its `[tool.toolsurface]` key, if it has one."""
        return None if self.schema is None else self.name

    @property
    def flag_name(self) -> str | None:
        """The flag an error names it by: the first of an on/off pair."""
        return None if self.flag is None else self.flag.partition("/")[0]

    @property
    def repeatable(self) -> bool:
        """Whether its flag may be given more than once, each value added to the list."""
        return get_origin(self.type) is list

    @property
    def dest(self) -> str:
        """Where the pytest plugin's argparse keeps its value."""
        return f"toolsurface_{self.name}"

    def read(self, table: Mapping[str, Any], base: Path) -> Any:
        """Its value from a checked `[tool.toolsurface]` table that sets it."""
        return table[self.name] if self.reader is None else self.reader(table, base)

    def parsed(self, value: Any) -> Any:
        """A flag's value as the option holds it; None stays None (not given)."""
        return value if value is None or self.parse is None else self.parse(value)


def _path(table: Mapping[str, Any], base: Path, key: str) -> Path:
    return base / table[key]


def _spec(table: Mapping[str, Any], base: Path) -> Any:
    from ._config import Spec  # the engine's value type, once a config file is read

    return Spec(table["spec"], table.get("title"))


def _thresholds(table: Mapping[str, Any], base: Path) -> Any:
    from ._gate import Thresholds

    return Thresholds(**table["thresholds"])


def _date(text: str) -> datetime.date:
    from toolsurface.common._errors import UsageError

    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{text!r} must be a date, YYYY-MM-DD", option="today") from None


_NAME = {"type": "string", "minLength": 1}
_NAMES = {"type": "array", "items": _NAME}
#: The most a 64-bit signed integer holds: what TOML and JSON readers take.
_INT64_MAX = 9223372036854775807
_COUNT = {"type": "integer", "minimum": 0, "maximum": _INT64_MAX}

#: Every run option, in the order of `[tool.toolsurface]`'s schema (which decides the error reported
#: first when several keys are wrong) and of the pytest options; each command lists its own in its order.
OPTIONS: tuple[RunOption, ...] = (
    RunOption(
        "spec",
        "The id of the spec the run closes, shown in every report.",
        schema={**_NAME, "description": "The id of the spec the run closes, shown in every report."},
        reader=_spec,
    ),
    RunOption(
        "title",
        "The spec's title.",
        schema={**_NAME, "description": "The spec's title."},
        field=False,  # read into `spec`
    ),
    RunOption(
        "target",
        "Target under test: reference:<name>, package.module:factory, or your agent as "
        "<framework>:package.module:factory [default: reference:guarded].",
        str,
        "SPEC",
        "--target",
        pytest_flag="--toolsurface-target",
        pytest_help="Target under test: reference:<name> or package.module:factory.",
        schema=_NAME,
    ),
    RunOption(
        "red_target",
        "Old path to pair each case with; 'none' turns pairing off [default: reference:legacy].",
        str,
        "SPEC|none",
        "--red-target",
        pytest_flag="--toolsurface-red-target",
        pytest_help="Old path to pair each case with (default: from config, else none).",
        schema=_NAME,
    ),
    RunOption(
        "scenarios",
        "Scenario file or folder (repeatable); default: the bundled ones.",
        list[Path],
        "PATH",
        "--scenarios",
        pytest_flag="--toolsurface-scenarios",
        pytest_help="Scenario file or folder (repeatable; default: bundled).",
        schema={**_NAMES, "description": "Scenario files or folders, relative to this file."},
        reader=lambda table, base: [base / item for item in table["scenarios"]],
    ),
    RunOption(
        "select",
        "Only case ids matching this glob (repeatable).",
        list[str],
        "GLOB",
        "--select",
        pytest_flag="--toolsurface-select",
        schema=_NAMES,
    ),
    RunOption(
        "seed",
        "Seed for mutation details; same seed, same cases and ids [default: 0].",
        int,
        "N",
        "--seed",
        pytest_flag="--toolsurface-seed",
        pytest_help="Seed for mutation details; same seed, same items.",
        schema={"type": "integer", "minimum": 0},
    ),
    RunOption(
        "timeout",
        "Seconds each request of a case may take before it is an error "
        "[default: 10, or 20 times its scenario's clean run where that is longer].",
        float,
        "SECONDS",
        "--timeout",
        pytest_flag="--toolsurface-timeout",
        pytest_help="Seconds one case may run before it is an error.",
        schema={
            "type": "number",
            "exclusiveMinimum": 0,
            "description": "Seconds one case may run before it is an error, at most 86400 (a day).",
        },
    ),
    RunOption(
        "jobs",
        "Worker processes that run the targets; 0 runs them in this process, for a debugger [default: one per core].",
        int,
        "N",
        "--jobs",
        schema={
            "type": "integer",
            "minimum": 0,
            "description": "Worker processes that run the targets; 0 runs them in the toolsurface process itself.",
        },
    ),
    RunOption(
        "grace",
        "Seconds to keep watching every case's ports after the last case, for late effects [default: 1].",
        float,
        "SECONDS",
        "--grace",
        schema={
            "type": "number",
            "minimum": 0,
            "maximum": 3600,
            "description": "Seconds to keep watching every case's ports after the last case, for late effects.",
        },
    ),
    RunOption(
        "out",
        "Folder for results.json and the reports [default: toolsurface-report].",
        Path,
        "DIR",
        "--out",
        schema={**_NAME, "description": "Folder for results.json and the reports, relative to this file."},
        reader=lambda table, base: _path(table, base, "out"),
    ),
    RunOption(
        "formats",
        "Reports to write beside results.json: md, html, junit, json (comma-separated or repeated).",
        list[str],
        "md,html,junit,json",
        "--format",
        schema={"type": "array", "items": {"enum": ["md", "html", "junit", "json"]}, "uniqueItems": True},
    ),
    RunOption(
        "config",
        "pyproject.toml with [tool.toolsurface] (default: ./pyproject.toml when present).",
        Path,
        "PYPROJECT",
        "--config",
        pytest_flag="--toolsurface-config",
        pytest_help="pyproject.toml with [tool.toolsurface] (default: the rootdir's).",
        field=False,  # where the others are read from
    ),
    RunOption(
        "expectations",
        "TOML file of accepted deviations ([[expect]] entries).",
        Path,
        "FILE",
        "--expectations",
        pytest_flag="--toolsurface-expectations",
        pytest_help="TOML file of [[expect]] entries: accepted deviations.",
        schema={**_NAME, "description": "The expectations file, relative to this file."},
        reader=lambda table, base: _path(table, base, "expectations"),
    ),
    RunOption(
        "defects",
        "Also run every reference defect on each case.",
        bool,
        flag="--defects/--no-defects",
        schema={"type": "boolean", "description": "Also run every reference defect and record which cases kill it."},
    ),
    RunOption(
        "thresholds",
        "Fewest in-scope and controlled cases a passing run has.",
        schema={
            "type": "object",
            "additionalProperties": False,
            "properties": {"min_cases": _COUNT, "min_controlled": _COUNT},
        },
        reader=_thresholds,
    ),
    RunOption(
        "scan",
        "Names for `toolsurface scan`, checked by the scan.",
        schema={"type": "object", "description": "Names for `toolsurface scan`, checked by the scan."},
        field=False,  # the scan's own table
    ),
    RunOption(
        "examples",
        "Folder of explored examples: `explore` saves into it, `run` and `reproduce` run them as extra cases "
        "(repeatable) [default: .toolsurface/examples].",
        list[Path],
        "DIR",
        "--examples",
    ),
    RunOption("shard", "Run part K of N, e.g. 2/4; combine the parts with `merge`.", str, "K/N", "--shard"),
    RunOption(
        "today",
        "Judge expectation expiry as of this date (YYYY-MM-DD) [default: today, UTC].",
        str,
        "YYYY-MM-DD",
        "--today",
        parse=_date,
    ),
    RunOption(
        "follow_symlinks",
        "Write into an --out folder even where it is reached through a symbolic link.",
        bool,
        flag="--follow-symlinks",
        unset=False,
        field=False,  # how the command line writes, not what runs
    ),
)

#: Every option by its name.
BY_NAME: Mapping[str, RunOption] = {option.name: option for option in OPTIONS}


def flag_for(name: str) -> str:
    """The command line's flag for an input an error names: the declared one, or the name in kebab
    case (a command's own flags, such as `--sample`, are spelled so)."""
    option = BY_NAME.get(name)
    return (option and option.flag_name) or f"--{name.replace('_', '-')}"


def pytest_flag_for(name: str) -> str:
    """The pytest plugin's flag for an input an error names (`red_target` → `--toolsurface-red-target`)."""
    option = BY_NAME.get(name)
    return (option and option.pytest_flag) or f"--toolsurface-{name.replace('_', '-')}"


def config_schema() -> dict[str, Any]:
    """The JSON Schema of `[tool.toolsurface]`: one property per option with a config key."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://toolsurface.dev/schemas/config-1.json",
        "title": "[tool.toolsurface]",
        "description": "Project settings for `toolsurface run`; flags given on the command line win.",
        "type": "object",
        "additionalProperties": False,
        "properties": {option.name: dict(option.schema) for option in OPTIONS if option.schema is not None},
    }
