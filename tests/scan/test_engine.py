"""The engine on one file's text: positions, suppressions, the cheap filter, parse failures."""

import pickle
import re
import sysconfig
from dataclasses import replace
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.scan import (
    FileFailed,
    FileScanned,
    Match,
    Rule,
    ScanConfig,
    Step,
    _stack,
    scan_paths,
    scan_source,
)
from toolsurface.scan._engine import applicable
from toolsurface.scan._rule import named
from toolsurface.scan._text import Text, _spellings

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


def test_a_malformed_suppression_silences_nothing_and_is_reported():
    for comment in ("# toolsurface: ignore[ts104]", "# toolsurface: ignore[TS-104]", "# toolsurface: ignore[TS999]"):
        findings = scan_source(SHARED.format(comment=comment), "a.py", CONFIG).findings
        assert [(f.rule, f.line, f.suppressed) for f in findings] == [("TS104", 2, False), ("TS100", 2, False)], comment


def test_text_that_names_nothing_configured_is_not_parsed():
    assert scan_source("x = 1\nprint(x)\n", "plain.py", CONFIG) == FileScanned("plain.py", (), parsed=False)
    # Not even broken syntax costs a parse there.
    assert scan_source("def (:\n", "broken.py", CONFIG) == FileScanned("broken.py", (), parsed=False)


def test_only_rules_whose_words_the_text_mentions_run():
    assert [rule.id for rule in applicable("gateway.dispatch(request)\n", CONFIG)] == ["TS101"]
    # `_` joins words, letters do not: `take_baseline` mentions `baseline`, `checked` never `check`.
    assert "TS104" in {rule.id for rule in applicable("def take_baseline(run): return list(run.tools)\n", CONFIG)}
    assert applicable("checked = expectations = 1\n", CONFIG) == []
    # A baseline that holds no tool list or schema shares none.
    assert applicable("def take_baseline(run): return run.when\n", CONFIG) == []
    # A schema key wakes the rules that follow schemas anywhere, not only in hooks.
    assert {rule.id for rule in applicable("def hook(t): t['input_schema']['x'] = 1\n", CONFIG)} == {
        "TS109",
        "TS110",
        "TS111",
    }


_PIECES = st.sampled_from(["tool", "tools", "list", "_", "__", ".", " ", "\n", "a", "Schema", "9", "$", "x_y"])


@given(
    st.lists(_PIECES, max_size=24).map("".join),
    st.lists(st.lists(_PIECES, min_size=1, max_size=5).map("".join), max_size=4),
)
def test_the_word_set_finds_exactly_what_a_bounded_search_finds(text, words):
    """The filter reads the text's words from a set; it must agree with the definition it stands
    for, a search bounded by letters and digits for every part of some spelling."""
    lowered = text.lower()
    bounded = [
        [re.compile(rf"(?<![a-z0-9]){re.escape(part)}(?![a-z0-9])") for part in spelling]
        for spelling in _spellings(tuple(words))
    ]
    searched = any(all(pattern.search(lowered) for pattern in spelling) for spelling in bounded)
    assert Text(text).mentions(tuple(words)) == searched


_SEGMENTS = st.sampled_from(
    ["gateway", "_gateway", "__gateway", "dispatch", "_dispatch", "check", "Check", "run", "my_gateway"]
)


@st.composite
def _callee_and_names(draw):
    """A callee, and configured names of which one usually matches it: a tail of its segments,
    owners sometimes written without their underscores."""
    segments = draw(st.lists(_SEGMENTS, min_size=1, max_size=4))
    tail = segments[-draw(st.integers(1, len(segments))) :]
    matching = [segment.lstrip("_") if draw(st.booleans()) else segment for segment in tail[:-1]] + tail[-1:]
    others = draw(st.lists(st.lists(_SEGMENTS, min_size=1, max_size=3).map(".".join), max_size=2))
    return ".".join(segments), (".".join(matching), *others)


@given(_callee_and_names())
def test_a_callee_that_named_matches_always_meets_the_names_need(found):
    """The filter may let through text the rule then passes over, never the reverse: whenever
    `named` matches a callee, text holding that call meets the need of those names."""
    callee, configured = found
    if named(callee, configured):
        assert Text(f"result = {callee}(request)\n").names(configured)


def test_a_configured_name_is_met_only_by_an_identifier_that_is_that_name_whole():
    """A rule that matches calls by their configured names (`named`) needs the name whole: the
    word `check` of `check_output` wakes nothing."""
    hooks = "def before_hook(run):\n    {call}(run)\n"
    assert [rule.id for rule in applicable(hooks.format(call="check"), CONFIG)] == ["TS102"]
    assert applicable(hooks.format(call="subprocess.check_output"), CONFIG) == []
    # An owner in its private spelling is still the configured owner.
    assert [rule.id for rule in applicable("self.__gateway.dispatch(request)\n", CONFIG)] == ["TS101"]
    assert applicable("self.my_gateway.dispatch(request)\n", CONFIG) == []


def test_a_schema_named_in_camel_case_is_followed_like_one_in_snake_case():
    """`outputSchema` ends with the schema word: the filter must let through what the rule reads."""
    for name in ("output_schema", "outputSchema"):
        text = f"class Registry:\n    def add(self, {name}):\n        self.kept = {name}\n"
        (finding,) = scan_source(text, "registry.py", CONFIG).findings
        assert (finding.rule, finding.line) == ("TS110", 3), name


def test_a_dotted_name_is_mentioned_only_by_text_holding_every_part_of_it():
    """`responses.create` needs `responses` as well as `create`: a common last word alone does not
    cost a parse, while every way of writing the call (across lines, through an import) still does."""
    config = replace(CONFIG, dispatch=("responses.create",))
    assert applicable("client.create(model)\nresponse = 1\n", config) == []
    for text in (
        "client.responses.create(model)\n",
        "(client.responses\n    .create)(model)\n",
        "from openai.resources import responses\nsend = responses.create\nsend(model)\n",
    ):
        assert [rule.id for rule in applicable(text, config)] == ["TS101"], text


def test_a_configured_owner_matches_its_private_spelling_and_the_called_name_only_itself():
    """A leading underscore hides the field that holds the gateway; it does not make it another
    gateway. `gateway._dispatch` is another function, and `_gateway` configured is only that spelling."""
    assert named("self._gateway.dispatch", CONFIG.dispatch) and named("self.__gateway.dispatch", CONFIG.dispatch)
    assert not named("gateway._dispatch", CONFIG.dispatch)
    assert not named("self.my_gateway.dispatch", CONFIG.dispatch)
    assert not named("_final_check", ("final_check",))
    assert named("self._gateway.dispatch", ("_gateway.dispatch",))
    assert not named("self.gateway.dispatch", ("_gateway.dispatch",))
    # The text filter lets the private spelling through, and the rule reports the call.
    text = "def send(self, request):\n    return self._gateway.dispatch(request)\n"
    assert [rule.id for rule in applicable(text, CONFIG)] == ["TS101"]
    (finding,) = scan_source(text, "send.py", CONFIG).findings
    assert (finding.rule, finding.line) == ("TS101", 2)
    config = replace(CONFIG, dispatch=("client.responses.create",))
    assert [rule.id for rule in applicable("self._client._responses.create(model)\n", config)] == ["TS101"]


def test_a_dispatch_called_through_an_alias_counts_as_a_recognised_dispatch():
    """A module that sends only through `self._send = partial(gateway.dispatch)` has a seam: the
    scan must not say that no dispatch was recognised."""
    text = (
        "from functools import partial\n\n"
        "class Client:\n"
        "    def __init__(self, gateway):\n"
        "        self._send = partial(gateway.dispatch, timeout=30)\n\n"
        "    def ask(self, request):\n"
        "        final_check(request)\n"
        "        return self._send(request)\n"
    )
    assert scan_source(text, "client.py", CONFIG) == FileScanned("client.py", (), parsed=True, dispatches=1)


def test_a_file_that_does_not_parse_names_its_line_and_column():
    result = scan_source("tools = [\n    1,\n    2 3,\n]\n", "bad.py", CONFIG)
    assert isinstance(result, FileFailed)
    # CPython's own message and position: it reads the text before libcst does.
    assert result.problem == "bad.py:3:5: cannot parse: invalid syntax. Perhaps you forgot a comma?"


def test_what_cpython_refuses_is_reported_with_its_message_never_handed_to_libcst():
    nested = "baseline = list(tools)\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n"
    assert scan_source(nested, "deep.py", CONFIG) == FileFailed(
        "deep.py", "deep.py:2:205: cannot parse: too many nested parentheses"
    )
    unary = "baseline = list(tools)\nx = " + "-" * 20000 + "1\n"
    assert scan_source(unary, "unary.py", CONFIG) == FileFailed(
        "unary.py", "unary.py: cannot parse: nested too deeply for CPython's parser"
    )


def test_what_only_cpythons_compiler_refuses_is_still_analysed_and_its_warnings_stay_quiet(recwarn):
    # `return` outside a function parses (libcst and `ast` accept it); only the bytecode compiler refuses.
    baseline = "def take_baseline(run):\n    return list(run.tools)\n"
    for source in (baseline + "return 1\n", baseline + "if x is 1:\n    pass\n"):
        result = scan_source(source, "partial.py", CONFIG)
        assert isinstance(result, FileScanned) and [f.rule for f in result.findings] == ["TS104"]
    assert [str(warning.message) for warning in recwarn] == []


def test_valid_python_nested_thousands_deep_is_analysed(tmp_path):
    # 1,500 levels of BinaryOperation: past the default recursion limit, within the deep stack.
    long_sum = "def take_baseline(run):\n    return list(run.tools)\n\nx = " + " + ".join(["1"] * 1500) + "\n"
    result = scan_source(long_sum, "sum.py", CONFIG)
    assert isinstance(result, FileScanned) and [f.rule for f in result.findings] == ["TS104"]
    # Nothing configured is named: a 10,000-term sum is scanned, unparsed, without error.
    assert scan_source("x = " + " + ".join(["1"] * 10000) + "\n", "big.py", CONFIG) == FileScanned(
        "big.py", (), parsed=False
    )


def test_the_standard_librarys_longest_module_is_analysed():
    topics = Path(sysconfig.get_paths()["stdlib"]) / "pydoc_data" / "topics.py"
    result = scan_source(topics.read_text(encoding="utf-8"), str(topics), CONFIG)
    assert result == FileScanned(str(topics), (), parsed=True)


def test_configured_names_decide_what_counts():
    source = "def prepare(state):\n    golden = list(state.tools)\n"
    assert scan_source(source, "a.py", CONFIG).findings == ()
    custom = ScanConfig(baseline=("golden",))
    assert [f.rule for f in scan_source(source, "a.py", custom).findings] == ["TS104"]


@given(st.text(max_size=300))
def test_any_text_gives_a_result_never_an_exception(text):
    result = scan_source(text, "any.py", CONFIG)
    assert isinstance(result, FileScanned | FileFailed)


@given(
    st.lists(
        st.sampled_from(["tools", "baseline", "hooks", "x", "=", "[", ":", "]", "(", ")", "\n", " ", "list", "."]),
        max_size=40,
    )
)
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


def test_an_elif_chain_over_a_thousand_long_is_followed_without_recursion():
    arms = "".join(f"    elif kind == {index}:\n        note({index})\n" for index in range(1200))
    source = (
        f"def send(request, kind):\n    if kind is None:\n        check(request)\n{arms}    else:\n        "
        "check(request)\n    gateway.dispatch(request)\n"
    )
    # Not every arm checks, so the dispatch is reachable unchecked: found through all 1,200 arms.
    (finding,) = scan_source(source, "chain.py", CONFIG).findings
    assert (finding.rule, finding.line) == ("TS101", 2406)
    checked = source.replace("note(", "check(")
    assert scan_source(checked, "chain.py", CONFIG).findings == ()


def test_without_room_for_a_deep_stack_a_file_is_still_analysed(monkeypatch):
    def no_room(*args, **kwargs):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(_stack.threading.Thread, "start", no_room)
    (finding,) = scan_source(SHARED.format(comment=""), "host.py", CONFIG).findings
    assert finding.rule == "TS104"


def test_a_finding_states_its_flow_source_first_and_its_own_place_last():
    (finding,) = scan_source(SHARED.format(comment=""), "host.py", CONFIG).findings
    assert finding.flow == (Step(2, 21, "tool list `state.tools`"), Step(2, 5, "baseline `baseline` shares it"))


class _Echo(Rule):
    """Reports every `sink(...)` call: bare when it has no argument, else from its argument's name."""

    id = "TS199"
    name = "echo-sink"
    message = "nothing to do"
    valid = ()
    invalid = ()

    def needs(self, config):
        return (("sink",),)

    def matches(self, tree, config):
        for call in tree.calls(tree.module):
            if not call.args:
                yield call
            else:
                # The source named twice and once more at the sink's own place: one step each place.
                source = (call.args[0].value, "the argument")
                yield Match(call, "", (source, source, (call, "the call")))


def test_a_bare_node_is_its_own_one_step_flow_and_a_place_named_twice_is_one_step():
    bare, matched = scan_source("sink()\nx = sink(\n    value)\n", "a.py", CONFIG, [_Echo()]).findings
    assert bare.flow == (Step(1, 1, "`sink(...)`"),)
    # The sink's own label, empty, is its code; it takes the place of the step the rule named there.
    assert matched.flow == (Step(3, 5, "the argument"), Step(2, 5, "`sink(...)`"))


def test_a_result_with_flows_pickles_whole():
    result = scan_source(SHARED.format(comment=""), "host.py", CONFIG)
    assert pickle.loads(pickle.dumps(result)) == result and len(result.findings[0].flow) == 2


def test_words_are_settings_matched_in_any_case():
    """A team writes its refusal words as its exceptions are spelled: they must still match."""
    text = (
        "def send(ledger, gateway, request):\n"
        "    reservation = ledger.reserve(request.id)\n"
        "    if drifted(request):\n"
        "        raise CatalogDrift(request.id)\n"
        "    gateway.dispatch(request)\n"
    )
    config = replace(CONFIG, refusal_words=("CatalogDrift",))
    assert config.refusal_words == ("catalogdrift",)
    assert [(f.rule, f.line) for f in scan_source(text, "send.py", config).findings if f.rule == "TS105"] == [
        ("TS105", 4)
    ]


def test_a_hook_word_of_several_words_names_a_hook_by_those_words_whole():
    """`hook_words = ["pre_send"]` makes `pre_send` and `on_pre_send` hooks, not `pre_sending`."""
    config = replace(CONFIG, hook_words=("pre_send",))
    for name, found in (("pre_send", [("TS102", 3)]), ("on_pre_send", [("TS102", 3)]), ("pre_sending", [])):
        text = f"def {name}(request, baseline):\n    prepare(request)\n    check(request.tools, baseline)\n"
        assert [
            (f.rule, f.line) for f in scan_source(text, "hooks.py", config).findings if f.rule == "TS102"
        ] == found, name
