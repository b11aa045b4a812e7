"""`@taking` makes a command's run-option flags from their declaration, in the order it names them,
and hands their values over as one `Given`."""

from pathlib import Path

import typer
from typer.testing import CliRunner

from toolsurface.cli._flags import Given, taking


def app_with(command):
    app = typer.Typer(rich_markup_mode=None)
    app.command()(command)
    app.command("other")(lambda: None)  # two commands, so each is called by its name
    return app


def test_the_named_options_come_after_the_commands_arguments_in_the_order_named():
    seen = {}

    @taking("seed", "label", "scenarios")
    def show(name: str, label: str = "x", *, given: Given) -> None:
        seen.update(name=name, label=label, given=given)

    result = CliRunner().invoke(app_with(show), ["show", "a", "--seed", "3", "--scenarios", "p", "--scenarios", "q"])
    assert result.exit_code == 0, result.output
    assert (seen["name"], seen["label"]) == ("a", "x")
    assert dict(seen["given"].values) == {"seed": 3, "scenarios": [Path("p"), Path("q")]}
    help_text = CliRunner().invoke(app_with(show), ["show", "--help"]).output
    assert help_text.index("--seed") < help_text.index("--label") < help_text.index("--scenarios")


def test_given_options_are_the_flags_over_the_config_file_and_a_commands_own_say_over_both(tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.toolsurface]\nseed = 7\ntarget = "reference:legacy"\nselect = ["a/*"]\n')
    given = Given({"seed": 3, "select": None, "target": None, "config": config, "today": "2026-01-02"})
    options = given.options(target="reference:guarded")
    assert (options.seed, options.select, options.target) == (3, ["a/*"], "reference:guarded")
    assert options.today.isoformat() == "2026-01-02"  # parsed as declared
    assert options.configured_from == {"select": config}


def test_a_flag_not_given_is_none_and_a_switch_false():
    seen = {}

    @taking("timeout", "defects", "follow_symlinks")
    def show(*, given: Given) -> None:
        seen.update(given.values)

    assert CliRunner().invoke(app_with(show), ["show"]).exit_code == 0
    assert seen == {"timeout": None, "defects": None, "follow_symlinks": False}
