"""Walking, caching and parallel scanning: the same results whichever way they were produced."""

import dataclasses
import shutil
from pathlib import Path

import orjson
import pytest

from toolsurface.common._errors import UsageError
from toolsurface.scan import (
    FileFailed,
    ScanConfig,
    Step,
    _cache,
    _workers,
    load_config,
    scan_paths,
)
from toolsurface.scan._summary import module_name, summarise

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

    monkeypatch.setattr(_workers, "scan_source", no_parsing)
    # The broken file is never cached: it is parsed (and fails) on every scan, so skip it here.
    (folder / "broken.py").unlink()
    again = list(scan_paths([folder], CONFIG, cache_dir=cache))
    assert again == [r for r in first if not isinstance(r, FileFailed)]
    # The flow comes back from the cache step by step, labels and all.
    served = next(r for r in again if r.findings).findings[0]
    assert served.flow == (Step(2, 27, "tool list `run.tools`"), Step(2, 5, "returned as the baseline, shared"))


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
    pyproject.write_text(
        '[tool.toolsurface.scan]\ndispatch = ["client.send"]\ncontrols = ["read_tool_result", "expand"]\n'
    )
    config = load_config(pyproject)
    assert config.dispatch == ("client.send",) and config.controls == ("read_tool_result", "expand")
    assert config.check == ScanConfig().check
    pyproject.write_text("[tool.toolsurface.scan]\ntime_limit = 2.5\n")
    assert load_config(pyproject).time_limit == 2.5


def test_words_written_out_are_added_to_the_default_words(tmp_path):
    # A team naming its hook events still has hooks called `hooks`; names (seams) are replaced.
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolsurface.scan]\nhook_words = ["before_model", "hook"]\ncheck = ["ensure"]\n')
    config = load_config(pyproject)
    assert config.hook_words == (*ScanConfig().hook_words, "before_model")
    assert config.check == ("ensure",)


def test_an_edited_rule_is_a_cache_miss(tmp_path, monkeypatch):
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    (folder / "host.py").write_text(FLAWED)
    list(scan_paths([folder], CONFIG, cache_dir=cache))
    list(scan_paths([folder], CONFIG, cache_dir=cache))
    # The result with its finding, and the module summaries' shared file.
    assert len([entry for entry in cache.rglob("*") if entry.is_file()]) == 2
    monkeypatch.setattr(_cache, "code_digest", lambda: b"the rules' code after an edit")
    (again,) = scan_paths([folder], CONFIG, cache_dir=cache)
    assert len(again.findings) == 1
    # A result for the old code and one for the new, and the summaries' file.
    assert len([entry for entry in cache.rglob("*") if entry.is_file()]) == 3


def test_the_key_digests_the_scanners_code(tmp_path, monkeypatch):
    code = tmp_path / "_scan"
    shutil.copytree(Path(_cache.__file__).parent, code, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(_cache, "_CODE", code)
    before = _cache.code_digest.__wrapped__()
    rule = code / "rules" / "silent_truncation.py"
    rule.write_text(rule.read_text().replace("itertools", "itertool"))
    assert _cache.code_digest.__wrapped__() != before
    assert _cache.salt(CONFIG) != _cache.salt(ScanConfig(dispatch=("client.send",)))
    assert _cache.salt(CONFIG) == _cache.salt(ScanConfig(time_limit=5.0))


#: A finding as the cache stored it before findings had a flow.
_OLD_FINDING = (
    '{"rule": "TS104", "name": "shared-baseline", "line": 2, "column": 5, "end_line": 2, "end_column": 43, '
    '"message": "m", "source": "s", "suppressed": false'
)


@pytest.mark.parametrize(
    "entry",
    [
        b"[]",
        b"{}",
        b'{"parsed": true, "dispatches": 0, "findings": [{"rule": 1}]}',
        b'{"parsed": 1, "dispatches": 0, "findings": []}',
        b"null",
        # The shape before flows: every field right, no flow.
        f'{{"parsed": true, "dispatches": 0, "findings": [{_OLD_FINDING}}}]}}'.encode(),
        # A flow whose step is not a step.
        f'{{"parsed": true, "dispatches": 0, "findings": [{_OLD_FINDING}, "flow": [{{"line": "2", '
        f'"column": 5, "label": "x"}}]}}]}}'.encode(),
        f'{{"parsed": true, "dispatches": 0, "findings": [{_OLD_FINDING}, "flow": [[2, 5, "x"]]}}]}}'.encode(),
    ],
)
def test_a_cache_entry_of_the_wrong_shape_is_a_miss(tmp_path, entry):
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    (folder / "host.py").write_text(FLAWED)
    key = _cache.key(_cache.salt(CONFIG), FLAWED.encode())
    (cache / key[:2]).mkdir(parents=True)
    (cache / key[:2] / key).write_bytes(entry)
    (result,) = scan_paths([folder], CONFIG, cache_dir=cache)
    assert [(f.rule, f.message != "m", len(f.flow)) for f in result.findings] == [("TS104", True, 2)]


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
    source.write_text(
        "async def list_tools(self):\n    return await self.send_request(ListToolsRequest(), ListToolsResult)\n"
    )
    (scanned,) = scan_paths([source], ScanConfig(), cache_dir=None)
    assert scanned.findings == ()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('dispatcher = ["send"]', r"\[tool.toolsurface.scan\].dispatcher: unknown setting \(known: baseline, check,"),
        ('dispatch = "send"', r"\[tool.toolsurface.scan\].dispatch: expected a list of non-empty strings"),
        ("dispatch = [", r"not valid TOML"),
        (
            'hook_condition = ["run.hooks and"]',
            r"\[tool.toolsurface.scan\].hook_condition: 'run.hooks and' is not a Python expression",
        ),
        (
            'preset = "crewai"',
            r"\[tool.toolsurface.scan\].preset: unknown preset 'crewai' \(known: langchain, pydantic-ai, "
            r"openai-agents, mcp\)",
        ),
        ("preset = 3", r"\[tool.toolsurface.scan\].preset: expected a preset name or a list of them"),
        (
            "time_limit = 0",
            r"\[tool.toolsurface.scan\].time_limit: expected a positive number of seconds, at most 86400 "
            r"\(a day\), got 0",
        ),
        (
            'time_limit = "30"',
            r"\[tool.toolsurface.scan\].time_limit: expected a positive number of seconds, at most 86400 "
            r"\(a day\), got '30'",
        ),
    ],
)
def test_bad_settings_name_the_file_and_key(tmp_path, table, message):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f"[tool.toolsurface.scan]\n{table}\n")
    with pytest.raises(UsageError, match=message) as raised:
        load_config(pyproject)
    assert str(raised.value).startswith(str(pyproject)) and "\n" not in str(raised.value)


def test_select_and_ignore_choose_the_rules_by_id_and_an_unknown_id_is_refused(tmp_path):
    source = tmp_path / "g.py"
    source.write_text("def baseline_of(tools):\n    return list(tools)\n\ndef fit(tools):\n    return tools[:40]\n")
    every = {f.rule for f in next(iter(scan_paths([source], ScanConfig(), cache_dir=None))).findings}
    assert {"TS104", "TS107"} <= every
    (only,) = scan_paths([source], ScanConfig(select=("TS107",)), cache_dir=None)
    assert {f.rule for f in only.findings} == {"TS107"}
    (rest,) = scan_paths([source], ScanConfig(ignore=("TS107",)), cache_dir=None)
    assert "TS107" not in {f.rule for f in rest.findings} and "TS104" in {f.rule for f in rest.findings}
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.toolsurface.scan]\nselect = ["TS-107"]\n')
    with pytest.raises(
        UsageError, match=r"\[tool.toolsurface.scan\].select: 'TS-107' is not a rule \(known: TS100, TS101,"
    ):
        load_config(pyproject)


def test_the_entry_of_the_current_shape_is_served_flow_and_all(tmp_path):
    # The same finding as the old-shape entry above, with a flow: a hit, so that entry missed for its shape alone.
    entry = (
        f'{{"parsed": true, "dispatches": 0, "findings": [{_OLD_FINDING}, "flow": [{{"line": 2, "column": 5, '
        f'"label": "x"}}]}}]}}'
    )
    key = _cache.key(_cache.salt(CONFIG), FLAWED.encode())
    (tmp_path / key[:2]).mkdir()
    (tmp_path / key[:2] / key).write_text(entry)
    served = _cache.load(tmp_path, key, "host.py")
    assert served is not None and [(f.message, f.flow) for f in served.findings] == [("m", (Step(2, 5, "x"),))]


def test_results_without_findings_are_lines_of_one_file(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    folder, cache = tree(tmp_path / "src"), tmp_path / "cache"
    (folder / "broken.py").unlink()
    first = list(scan_paths([folder], CONFIG, cache_dir=cache))
    # The seven flawed files share one text, so one entry; the thirteen others are a line each,
    # and every module's summary a line of a file of their own.
    entries = sorted(entry.relative_to(cache).parts[-1] for entry in cache.rglob("*") if entry.is_file())
    assert len(entries) == 3 and {"quiet", "summaries"} <= set(entries)
    assert len((cache / "quiet").read_text().splitlines()) == 13
    assert len((cache / "summaries").read_text().splitlines()) == 20
    monkeypatch.setattr(_workers, "scan_source", lambda *args: pytest.fail("a cached file was parsed again"))
    monkeypatch.setattr(_workers, "summarise", lambda *args: pytest.fail("a cached module was summarised again"))
    assert list(scan_paths([folder], CONFIG, cache_dir=cache)) == first


def test_a_torn_or_foreign_line_of_the_shared_file_is_a_miss(tmp_path):
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    (folder / "host.py").write_text(FLAWED)
    key = _cache.key(_cache.salt(CONFIG), FLAWED.encode())
    cache.mkdir()
    (cache / "quiet").write_bytes(
        b"\x00\xff not a line\n" + f"{key[:-3]} 1 0\n{key} 2 0\n{key.upper()} 1 0\n{key} 1 x".encode()
    )
    (result,) = scan_paths([folder], CONFIG, cache_dir=cache)
    assert [f.rule for f in result.findings] == ["TS104"]


def test_a_cached_summary_is_the_summary_made_every_field_included():
    # Every fact a module was found to have, and where its names are defined, survives the cache:
    # a warm scan must derive the same settings, and the same flows, as a cold one.
    corpora = Path(__file__).parents[1] / "corpora"
    summaries = [
        summarise(path.read_text(), str(path), module_name(str(path)), CONFIG)
        for path in sorted(corpora.glob("*/src/**/*.py"))
    ]
    summaries.append(summarise("send = gateway.dispatch\n", "pkg/runtime.py", "pkg.runtime", CONFIG))
    kept = [_cache.summary_of(orjson.loads(orjson.dumps(dataclasses.asdict(s), default=sorted))) for s in summaries]
    assert kept == summaries
    assert all(any(getattr(s, field.name) for s in summaries) for field in dataclasses.fields(summaries[0]))
