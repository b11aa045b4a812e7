import pytest

from toolsurface.common._errors import TargetError, UsageError
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._config import Spec, load_project_config
from toolsurface.harness._gate import Thresholds


def pyproject(tmp_path, body):
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.toolsurface]\n" + body)
    return path


def test_settings_are_read_with_paths_relative_to_the_file(tmp_path):
    path = pyproject(
        tmp_path,
        'spec = "SPEC-12"\ntitle = "Tool surface parity"\nscenarios = ["recordings"]\nexpectations = "known.toml"\n'
        'out = "report"\nformats = ["md", "junit"]\nseed = 3\ndefects = '
        "true\n[tool.toolsurface.thresholds]\nmin_cases = 100\n",
    )
    config = load_project_config(path)
    assert config.get("spec") == Spec("SPEC-12", "Tool surface parity")
    assert config.get("scenarios") == [tmp_path / "recordings"]
    assert config.get("expectations") == tmp_path / "known.toml"
    assert config.get("out") == tmp_path / "report"
    assert config.get("formats") == ["md", "junit"] and config.get("seed") == 3 and config.get("defects")
    assert config.get("thresholds") == Thresholds(min_cases=100)
    assert config.get("target") is None  # not set: left to a flag or the default
    options = RunOptions.configured(config)
    assert (options.spec, options.scenarios, options.out, options.formats) == (
        Spec("SPEC-12", "Tool surface parity"), [tmp_path / "recordings"], tmp_path / "report", ["md", "junit"]
    )  # fmt: skip
    from_file = {"spec", "scenarios", "expectations", "out", "formats", "seed", "defects", "thresholds"}
    assert set(options.configured_from) == from_file


def test_flags_win_over_the_file_and_the_file_over_defaults(tmp_path):
    config = load_project_config(pyproject(tmp_path, 'target = "reference:legacy"\nseed = 3\nselect = ["a/*"]\n'))
    options = RunOptions.configured(config, target=None, seed=5, select=None, scenarios=None)
    assert (options.target, options.seed, options.select) == ("reference:legacy", 5, ["a/*"])
    assert RunOptions.configured(config, target="reference:guarded").target == "reference:guarded"
    assert RunOptions.configured(load_project_config(None)).target == RunOptions().target


def test_an_error_about_a_value_names_the_file_and_key_it_came_from_or_else_the_flag(tmp_path):
    path = pyproject(tmp_path, 'target = "reference:nope"\nseed = 3\n')
    options = RunOptions.configured(load_project_config(path), seed=5)
    assert options.configured_from == {"target": path}
    with pytest.raises(TargetError) as raised:
        prepare(options)
    (line,) = raised.value.lines(lambda option: f"--{option}")
    assert line.startswith(f"{path}:[tool.toolsurface].target: 'reference:nope': no such reference target (known: ")
    flagged = RunOptions.configured(load_project_config(path), target="reference:nah")
    with pytest.raises(TargetError) as raised:
        prepare(flagged)
    assert raised.value.lines(lambda option: f"--{option}")[0].startswith(
        "--target 'reference:nah': no such reference target"
    )


def test_no_file_means_no_settings(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_project_config(None).path is None


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('seed = "one"\n', "[tool.toolsurface].seed: 'one' is not of type 'integer'"),
        ('formats = ["pdf"]\n', "[tool.toolsurface].formats[0]: 'pdf' is not one of"),
        ('sped = "x"\n', "[tool.toolsurface]: Additional properties are not allowed ('sped' was unexpected)"),
        (
            "[tool.toolsurface.thresholds]\nmin_cases = -1\n",
            "[tool.toolsurface].thresholds.min_cases: -1 is less than the minimum of 0",
        ),
        ('title = "no id"\n', "[tool.toolsurface].title: a title needs the spec id beside it"),
    ],
)
def test_a_bad_setting_is_one_line_naming_the_file_and_key(tmp_path, body, problem):
    path = pyproject(tmp_path, body)
    with pytest.raises(UsageError) as raised:
        load_project_config(path)
    assert str(raised.value).startswith(f"{path}:") and problem in str(raised.value)
    assert "\n" not in str(raised.value)
