"""Walking, caching and parallel scanning: the same results whichever way they were produced."""

import pytest

from toolsurface.harness._errors import UsageError
from toolsurface.harness._scan import FileFailed, ScanConfig, _api, load_config, scan_paths

CONFIG = ScanConfig()
FLAWED = "def take_baseline(run):\n    return recapture(list(run.tools), run)\n"


def tree(tmp_path, count=20):
    for index in range(count):
        (tmp_path / f"m{index:02}.py").write_text(FLAWED if index % 3 == 0 else f"value_{index} = {index}\n")
    (tmp_path / "broken.py").write_text("tools = (\n")
    return tmp_path


def test_parallel_and_serial_scans_agree(tmp_path):
    folder = tree(tmp_path)
    serial = list(scan_paths([folder], CONFIG, jobs=1, cache_dir=None))
    parallel = list(scan_paths([folder], CONFIG, jobs=2, cache_dir=None))
    assert serial == parallel
    assert sum(len(getattr(r, "findings", ())) for r in serial) == 7
    assert [r.path for r in serial if isinstance(r, FileFailed)] == [str(folder / "broken.py")]


def test_an_unchanged_file_is_served_from_the_cache(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    folder, cache = tree(tmp_path / "src"), tmp_path / "cache"
    first = list(scan_paths([folder], CONFIG, cache_dir=cache))

    def no_parsing(*args, **kwargs):
        raise AssertionError("a cached file was parsed again")

    monkeypatch.setattr(_api, "scan_source", no_parsing)
    # The broken file is never cached: it is parsed (and fails) on every scan, so skip it here.
    (folder / "broken.py").unlink()
    again = list(scan_paths([folder], CONFIG, cache_dir=cache))
    assert again == [r for r in first if not isinstance(r, FileFailed)]


def test_a_changed_file_or_setting_is_scanned_again(tmp_path):
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    module = folder / "host.py"
    module.write_text(FLAWED)
    assert len(next(iter(scan_paths([folder], CONFIG, cache_dir=cache))).findings) == 1
    module.write_text(FLAWED.replace("run)\n", "run)  # toolsurface: ignore[TS104]\n"))
    assert next(iter(scan_paths([folder], CONFIG, cache_dir=cache))).findings[0].suppressed
    quiet = ScanConfig(tool_words=("nothing_here",), baseline=("nothing_here",))
    assert next(iter(scan_paths([folder], quiet, cache_dir=cache))).findings == ()


def test_a_missing_path_is_bad_input(tmp_path):
    with pytest.raises(UsageError, match=r"no such file or folder to scan"):
        list(scan_paths([tmp_path / "nope"], CONFIG, cache_dir=None))


def test_pyproject_settings_override_the_defaults(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolsurface.scan]\ndispatch = ["client.send"]\ncontrols = ["read_tool_result", "expand"]\n')
    config = load_config(pyproject)
    assert config.dispatch == ("client.send",) and config.controls == ("read_tool_result", "expand")
    assert config.check == ScanConfig().check


def test_a_preset_adds_its_framework_names_and_a_setting_written_out_replaces_them(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolsurface.scan]\npreset = ["pydantic-ai", "mcp"]\ndispatch = ["client.send"]\n')
    config = load_config(pyproject)
    assert config.tool_words == (*ScanConfig().tool_words, "tool_defs", "function_tools", "tool_definitions")
    assert "parameters_json_schema" in config.schema_keys and "outputSchema" in config.schema_keys
    assert config.dispatch == ("client.send",)


def test_a_preset_finds_what_the_defaults_miss_in_its_framework_words(tmp_path):
    source = tmp_path / "app.py"
    source.write_text("async def provider_limit(ctx, tool_defs):\n    return tool_defs[:128]\n")
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolsurface.scan]\npreset = "pydantic-ai"\n')
    (plain,) = scan_paths([source], ScanConfig(), cache_dir=None)
    (preset,) = scan_paths([source], load_config(pyproject), cache_dir=None)
    assert plain.findings == ()
    assert [(f.rule, f.line) for f in preset.findings] == [("TS107", 2)]


def test_the_defaults_never_take_a_json_rpc_send_for_a_model_dispatch(tmp_path):
    source = tmp_path / "session.py"
    source.write_text("async def list_tools(self):\n    return await self.send_request(ListToolsRequest(), ListToolsResult)\n")
    (scanned,) = scan_paths([source], ScanConfig(), cache_dir=None)
    assert scanned.findings == ()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('dispatcher = ["send"]', r"\[tool.toolsurface.scan\].dispatcher: unknown setting \(known: baseline, check,"),
        ('dispatch = "send"', r"\[tool.toolsurface.scan\].dispatch: expected a list of non-empty strings"),
        ("dispatch = [", r"not valid TOML"),
        ('hook_condition = ["run.hooks and"]', r"\[tool.toolsurface.scan\].hook_condition: 'run.hooks and' is not a Python expression"),
        ('preset = "crewai"', r"\[tool.toolsurface.scan\].preset: unknown preset 'crewai' \(known: langchain, pydantic-ai, openai-agents, mcp\)"),
        ("preset = 3", r"\[tool.toolsurface.scan\].preset: expected a preset name or a list of them"),
    ],
)
def test_bad_settings_name_the_file_and_key(tmp_path, table, message):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.toolsurface.scan]\n{table}\n")
    with pytest.raises(UsageError, match=message) as raised:
        load_config(pyproject)
    assert str(raised.value).startswith(str(pyproject)) and "\n" not in str(raised.value)
