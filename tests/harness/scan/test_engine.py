"""The engine on one file's text: positions, suppressions, the cheap filter, parse failures."""

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._scan import FileFailed, FileScanned, ScanConfig, scan_paths, scan_source
from toolsurface.harness._scan._engine import applicable
from toolsurface.harness._scan._rule import suppressed

CONFIG = ScanConfig()
SHARED = "def prepare(state):\n    baseline = list(state.tools)  {comment}\n    return baseline\n"


def test_positions_are_one_based_and_span_the_node():
    (finding,) = scan_source(SHARED.format(comment=""), "host.py", CONFIG).findings
    assert (finding.path, finding.rule, finding.line, finding.column) == ("host.py", "TS104", 2, 5)
    assert (finding.end_line, finding.end_column) == (2, 33)
    assert finding.source == "    baseline = list(state.tools)  " and not finding.suppressed


def test_a_trailing_comment_suppresses_only_the_rules_it_names():
    (kept,) = scan_source(SHARED.format(comment="# toolsurface: ignore[TS104]"), "a.py", CONFIG).findings
    assert kept.suppressed
    (other,) = scan_source(SHARED.format(comment="# toolsurface: ignore[TS107]"), "a.py", CONFIG).findings
    assert not other.suppressed
    assert suppressed("x = 1  # toolsurface: ignore", "TS101")
    assert suppressed("x = 1  # toolsurface: ignore[TS102, TS104]", "TS104")
    assert not suppressed("x = 1  # toolsurface: ignore[TS102]", "TS104")


def test_text_that_names_nothing_configured_is_not_parsed():
    assert scan_source("x = 1\nprint(x)\n", "plain.py", CONFIG) == FileScanned("plain.py", (), parsed=False)
    # Not even broken syntax costs a parse there.
    assert scan_source("def (:\n", "broken.py", CONFIG) == FileScanned("broken.py", (), parsed=False)


def test_only_rules_whose_words_the_text_mentions_run():
    assert [rule.id for rule in applicable("gateway.dispatch(request)\n", CONFIG)] == ["TS101"]
    # `_` joins words, letters do not: `take_baseline` mentions `baseline`, `checked` never `check`.
    assert [rule.id for rule in applicable("def take_baseline(): pass\n", CONFIG)] == ["TS104"]
    assert applicable("checked = expectations = 1\n", CONFIG) == []
    # A schema key wakes the rules that follow schemas anywhere, not only in hooks.
    assert {rule.id for rule in applicable("def hook(t): t['input_schema']['x'] = 1\n", CONFIG)} == {"TS109", "TS110", "TS111"}


def test_a_file_that_does_not_parse_names_its_line_and_column():
    result = scan_source("tools = [\n    1,\n    2 3,\n]\n", "bad.py", CONFIG)
    assert isinstance(result, FileFailed)
    assert result.problem.startswith("bad.py:3:7: cannot parse: expected one of ")
    assert "cannot parse" in result.problem and "\n" not in result.problem


def test_configured_names_decide_what_counts():
    source = "def prepare(state):\n    golden = list(state.tools)\n"
    assert scan_source(source, "a.py", CONFIG).findings == ()
    custom = ScanConfig(baseline=("golden",))
    assert [f.rule for f in scan_source(source, "a.py", custom).findings] == ["TS104"]


@given(st.text(max_size=300))
def test_any_text_gives_a_result_never_an_exception(text):
    result = scan_source(text, "any.py", CONFIG)
    assert isinstance(result, FileScanned | FileFailed)


@given(st.lists(st.sampled_from(["tools", "baseline", "hooks", "x", "=", "[", ":", "]", "(", ")", "\n", " ", "list", "."]), max_size=40))
def test_token_soup_never_crashes_the_rules(tokens):
    result = scan_source("".join(tokens), "soup.py", CONFIG)
    assert isinstance(result, FileScanned | FileFailed)


def test_a_folder_scan_is_in_path_order_and_skips_hidden_folders(tmp_path):
    (tmp_path / "b.py").write_text("baseline = list(tools)\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "c.py").write_text("baseline = list(tools)\n")
    results = list(scan_paths([tmp_path], CONFIG, cache_dir=None))
    assert [r.path for r in results] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]
