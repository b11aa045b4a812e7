"""The run options are declared once (`harness/_options.py`), and the command line, the pytest plugin
and `[tool.toolsurface]` agree with that declaration: each front end has what is declared for it,
spelled and explained as declared, and nothing that is not declared."""

import argparse
import dataclasses
import re
import tomllib
from pathlib import Path
from typing import get_args

import jsonschema
import orjson
import pytest
import typer.main

from tests.fixtures.docs import ROOT, all_blocks, blocks
from toolsurface.cli._app import app
from toolsurface.harness._api import RunOptions
from toolsurface.harness._options import BY_NAME, OPTIONS, config_schema, flag_for, pytest_flag_for

SCHEMA_FILE = ROOT / "harness" / "config.schema.json"
REGENERATE = (
    'python -c "import orjson; from toolsurface.harness._options import config_schema; '
    "open('harness/config.schema.json','wb').write(orjson.dumps(config_schema(), option=orjson.OPT_INDENT_2)+b'\\n')\""
)
#: The JSON Schema type a config key must have for a flag's value of each type.
JSON_TYPES = {str: "string", Path: "string", int: "integer", float: "number", bool: "boolean", list: "array"}
#: The command that takes every run option with a flag, and nothing else.
EVERY_OPTION = "run"
#: Flags of other commands spelled like a run option's but meaning something of their own.
OWN_MEANINGS = {
    ("record", "--out"): "the folder for recorded scenarios",
    ("record", "--timeout"): "the time the whole recording run may take",
    ("merge", "--out"): "the folder for the merged results.json",
    ("verify", "--seed"): "the seed that draws the sample",
    ("report", "--format"): "one report format",
    ("scan", "--format"): "the scan report's format",
    ("scan", "--config"): "the file of the scan's own table",
    ("scan", "--jobs"): "the scan's worker processes",
    ("scan", "--select"): "rule ids",
}


def commands():
    group = typer.main.get_command(app)
    return {name: group.get_command(None, name) for name in group.list_commands(None)}


def flagged(command):
    """A command's options, each by its flag."""
    return {param.opts[0]: param for param in command.params if param.param_type_name == "option"}


# The declaration itself.


def test_every_option_is_named_and_spelled_once():
    assert len(BY_NAME) == len(OPTIONS)
    for spellings in ([o.flag_name for o in OPTIONS if o.flag], [o.pytest_flag for o in OPTIONS if o.pytest_flag]):
        assert len(spellings) == len(set(spellings))
    for option in OPTIONS:
        assert option.schema is not None or option.flag is not None, f"{option.name} reaches no front end"
        assert option.pytest_flag is None or option.flag is not None, f"{option.name}: a pytest option without a flag"
        # A flag takes a value shown by its metavar, or is an on/off switch; a key alone has no flag's type.
        assert (option.metavar is None) == (option.type in (None, bool)), option.name
        assert (option.flag is None) == (option.type is None), option.name


def test_run_options_holds_a_field_for_every_declared_option_it_runs_with_and_no_other():
    fields = {field.name for field in dataclasses.fields(RunOptions)} - {"configured_from"}
    assert fields == {option.name for option in OPTIONS if option.field}


def test_an_error_names_an_option_by_its_declared_flag_in_each_front_end():
    assert (flag_for("formats"), flag_for("red_target"), flag_for("defects")) == (
        "--format",
        "--red-target",
        "--defects",
    )
    assert pytest_flag_for("red_target") == "--toolsurface-red-target"
    # A command's own input is not a run option: its flag is its name in kebab case.
    assert (flag_for("time_limit"), pytest_flag_for("jobs")) == ("--time-limit", "--toolsurface-jobs")


# [tool.toolsurface] and its schema.


def test_the_schema_has_every_declared_key_with_its_type_and_no_other():
    schema = config_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    keyed = [option for option in OPTIONS if option.key is not None]
    assert list(schema["properties"]) == [option.key for option in keyed]
    assert schema["additionalProperties"] is False
    for option in keyed:
        if option.type is not None:
            kind = list if option.repeatable else option.type
            assert schema["properties"][option.key]["type"] == JSON_TYPES[kind], option.name


def test_the_committed_schema_file_is_the_declared_schema():
    assert SCHEMA_FILE.read_bytes() == orjson.dumps(config_schema(), option=orjson.OPT_INDENT_2) + b"\n", (
        f"harness/config.schema.json differs from the declaration; regenerate it with:\n{REGENERATE}"
    )


def test_every_config_example_in_the_docs_is_valid_under_the_schema():
    validator = jsonschema.Draft202012Validator(config_schema())
    examples = [
        (page, tomllib.loads(body)) for page, body in all_blocks("toml") if body.startswith("[tool.toolsurface]")
    ]
    assert examples, "no [tool.toolsurface] example in the docs"
    for page, example in examples:
        problems = [error.message for error in validator.iter_errors(example["tool"]["toolsurface"])]
        assert not problems, f"{page}: {problems}"


# The pytest plugin.


def test_the_plugin_registers_every_declared_pytest_option_as_declared_and_no_other(pytestconfig):
    group = pytestconfig._parser.getgroup("toolsurface")
    registered = {argument.names()[0]: argument for argument in group.options}
    declared = {option.pytest_flag: option for option in OPTIONS if option.pytest_flag is not None}
    assert set(registered) == {"--toolsurface", *declared}
    for spelling, option in declared.items():
        action = registered[spelling]._action  # what argparse does with it
        assert (action.dest, action.metavar, action.help) == (
            option.dest,
            option.metavar,
            option.pytest_help or option.help,
        )
        assert isinstance(action, argparse._AppendAction) == option.repeatable, spelling
        kind = get_args(option.type)[0] if option.repeatable else option.type
        assert (action.type or str) is kind, spelling


def test_the_docs_show_every_pytest_option_and_no_other():
    (synopsis,) = [block for block in blocks("docs/commands.md", "## The pytest plugin", "") if "pytest" in block]
    shown = set(re.findall(r"--toolsurface-[a-z-]+", synopsis))
    assert shown == {option.pytest_flag for option in OPTIONS if option.pytest_flag is not None}


# The command line.


def test_the_run_command_takes_every_declared_flag_and_nothing_else():
    taken = flagged(commands()[EVERY_OPTION])
    assert set(taken) - {"--help"} == {option.flag_name for option in OPTIONS if option.flag is not None}


@pytest.mark.parametrize("name", sorted(commands()))
def test_a_flag_spelled_as_a_run_options_is_that_option_as_declared(name):
    by_flag = {option.flag_name: option for option in OPTIONS if option.flag is not None}
    for spelling, param in flagged(commands()[name]).items():
        option = by_flag.get(spelling)
        if option is None or (name, spelling) in OWN_MEANINGS:
            continue
        assert param.name == option.name, f"{name} {spelling}"
        assert param.help == option.help, f"{name} {spelling}"
        assert param.metavar == option.metavar, f"{name} {spelling}"
        assert param.multiple == option.repeatable, f"{name} {spelling}"
        assert param.default == option.unset, f"{name} {spelling}"
        assert "/".join([*param.opts, *param.secondary_opts]) == option.flag, f"{name} {spelling}"


def test_every_flag_that_differs_from_the_run_options_is_one_with_a_meaning_of_its_own():
    by_flag = {option.flag_name: option for option in OPTIONS if option.flag is not None}
    for name, spelling in OWN_MEANINGS:
        param = flagged(commands()[name])[spelling]
        assert param.help != by_flag[spelling].help, f"{name} {spelling} is the run option: drop it from OWN_MEANINGS"
