"""TOML files are read as TOML defines them, and every way one is not TOML is one error naming it."""

import pytest

from toolsurface.common._errors import ExpectationsError, UsageError
from toolsurface.common._toml import TomlError, read_toml, wide_integer
from toolsurface.harness._config import load_project_config
from toolsurface.harness._expectations import load_expectations
from toolsurface.scan import load_config

NOT_TOML = {
    "an integer of 5000 digits": (
        b"seed = 1" + b"0" * 5000,
        "not valid TOML: an integer too long to read; TOML's integers are 64-bit",
    ),
    "arrays nested 3000 deep": (
        b"a = " + b"[" * 3000 + b"]" * 3000,
        "not valid TOML: arrays or tables nested too deeply to read",
    ),
    "bytes that are not UTF-8": (b'a = "\xff"', "not valid TOML: 'utf-8' codec can't decode byte 0xff"),
    "tables nested 3000 deep by a dotted key": (
        b".".join([b"a"] * 3000) + b" = 1",
        "tables or arrays nested more than 100 levels deep",
    ),
    "inline tables nested 3000 deep": (
        b"a = " + b"{a = " * 3000 + b"1" + b"}" * 3000,
        "not valid TOML: arrays or tables nested too deeply to read",
    ),
    "a key twice": (b"a = 1\na = 2", "not valid TOML: Cannot overwrite a value"),
}


@pytest.mark.parametrize(("data", "problem"), NOT_TOML.values(), ids=NOT_TOML.keys())
def test_a_file_that_is_not_toml_is_one_error_naming_it(tmp_path, data, problem):
    path = tmp_path / "file.toml"
    path.write_bytes(data)
    with pytest.raises(TomlError) as raised:
        read_toml(path)
    assert str(raised.value).startswith(f"{path}: {problem}") and "\n" not in str(raised.value)


def test_the_first_integer_past_64_bits_is_found_with_where_it_is():
    assert wide_integer({"a": [1, {"b": 2**63 - 1}], "c": True}) is None
    assert wide_integer({"a": [1, {"b": -(2**63) - 1}], "c": 2**63}) == (("a", 1, "b"), -(2**63) - 1)
    assert wide_integer({"a": 2**64}) == (("a",), 2**64)


WIDE = "past TOML's 64-bit integers (from -2**63 to 2**63 - 1)"


@pytest.mark.parametrize(
    ("load", "body", "problem"),
    [
        (load_project_config, 'tool = "toolsurface"\n', "[tool]: expected a table, found str"),
        (load_config, 'tool = "toolsurface"\n', "[tool]: expected a table, found str"),
        (load_project_config, "[tool]\ntoolsurface = [1]\n", "[tool.toolsurface]: expected a table, found list"),
        (load_config, "[tool]\ntoolsurface = [1]\n", "[tool.toolsurface]: expected a table, found list"),
        (load_config, "[tool.toolsurface]\nscan = 1\n", "[tool.toolsurface.scan]: expected a table, found int"),
        (
            load_project_config,
            "[tool.toolsurface]\nselect = [0x" + "f" * 4000 + "]\n",
            f"[tool.toolsurface].select[0]: an integer of 16000 bits is {WIDE}",
        ),
        (
            load_config,
            "[tool.toolsurface.scan]\ntime_limit = 0x" + "f" * 300 + "\n",
            f"[tool.toolsurface.scan].time_limit: {2**1200 - 1} is {WIDE}",
        ),
    ],
)
def test_a_pyproject_table_that_toolsurface_cannot_read_is_one_error_naming_file_and_table(
    tmp_path, load, body, problem
):
    path = tmp_path / "pyproject.toml"
    path.write_text(body)
    with pytest.raises(UsageError) as raised:
        load(path)
    assert str(raised.value) == f"{path}:{problem}"


def test_an_integer_elsewhere_in_the_pyproject_is_no_concern_of_toolsurface(tmp_path):
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.other]\nlimit = {2**70}\n[tool.toolsurface]\nseed = 3\n")
    assert load_project_config(path).get("seed") == 3


def test_an_expectation_with_an_integer_past_64_bits_is_one_error_naming_where(tmp_path):
    path = tmp_path / "known.toml"
    path.write_text(f'[[expect]]\ncase = "a/*"\nverdict = "error"\nreason = {2**64}\nexpires = 2027-01-31\n')
    with pytest.raises(ExpectationsError) as raised:
        load_expectations(path)
    assert raised.value.problems == (f"{path}:$.expect[0].reason: {2**64} is {WIDE}",)
