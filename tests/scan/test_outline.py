"""The first pass: libcst parses only what the rules want, and no finding changes for it."""

import ast
import contextlib
from unittest import mock

import libcst as cst
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsurface.scan import RULES, ScanConfig, scan_source
from toolsurface.scan import _engine as engine
from toolsurface.scan._engine import applicable

CONFIG = ScanConfig()

#: Code no rule wants, though it mentions tools, schemas and requests: in docstrings, comments,
#: messages, and in code that neither edits, keeps, cuts, copies nor sends them.
UNWANTED = (
    '''
def describe(tools):
    """Lists the tools and their parameters; the request is checked elsewhere."""
    # tools, parameters, expected, request: words, not code
    return ", ".join(tool.name for tool in tools)
''',
    '''
class Catalogue:
    """Holds tools; the expected schema parameters are documented here."""

    def render(self, request):
        raise ValueError(f"Expected the request's tools, got {request!r}")
''',
    """
def count(tools):
    total = 0
    for tool in tools:
        total += len(tool.name)
    return total
""",
)
#: A comment is no word of code, but a rule reads it: a class that holds one is not blanked out.
COMMENTED = "class Unrelated:\n    size: int = 0  # toolsurface: ignore[TS999]\n"
EXAMPLES = [COMMENTED] + [code for rule in RULES for code in (*rule.valid, *(example.code for example in rule.invalid))]


def _findings(source: str, whole: bool = False):
    """What the scan finds, through the first pass or, with `whole`, parsing all of the text."""
    with mock.patch.object(engine, "_needed", lambda source, *_: source) if whole else contextlib.nullcontext():
        return scan_source(source, "module.py", CONFIG).findings


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(EXAMPLES + list(UNWANTED)), min_size=1, max_size=4))
def test_the_first_pass_changes_no_finding(parts):
    """Examples of every rule, put together with code no rule wants: what is found, where, and by
    which way, is what parsing the whole text finds."""
    source = "\n\n".join(part.strip("\n") for part in parts) + "\n"
    assert _findings(source) == _findings(source, whole=True)


def _needed(source: str, config: ScanConfig = CONFIG) -> str:
    return engine._needed(source, ast.parse(source), config, applicable(source, config))


def test_a_function_no_rule_wants_is_blanked_and_every_other_line_stays_where_it_was():
    source = UNWANTED[0].lstrip("\n") + "\n\n" + "def unchecked(request):\n    return gateway.dispatch(request)\n"
    needed = _needed(source)
    assert "join" not in needed and "words, not code" not in needed
    kept, given = needed.splitlines(), source.splitlines()
    assert len(kept) == len(given)
    start = given.index("def unchecked(request):")
    assert kept[start:] == given[start:]
    ast.parse(needed)
    cst.parse_module(needed)
    (finding,) = _findings(source)
    assert (finding.rule, finding.line) == ("TS101", start + 2)


def test_what_a_wanted_function_calls_is_kept_with_it():
    """The check is in a helper TS101 does not want for itself: the dispatch that calls it keeps it."""
    source = (
        "def verify(request, expected_tools):\n    if request.tools != expected_tools:\n        raise Refused()\n\n"
        "def send(request):\n    verify(request, BASELINE)\n    return gateway.dispatch(request)\n"
    )
    only = ScanConfig(select=("TS101",))
    assert _needed(source, only) == source
    assert scan_source(source, "module.py", only).findings == ()
    assert "raise Refused()" not in _needed(source.replace("verify(request, BASELINE)", "pass"), only)


def test_a_class_no_kept_code_names_is_blanked_whole_and_one_whose_fields_a_rule_reads_is_held():
    source = (
        "class Unrelated:\n    '''Mentions tools only here.'''\n    size: int = 0\n\n"
        "class Base:\n    tools: list\n\n"
        "class Agent(Base):\n    def clone(self):\n        return dataclasses.replace(self)\n"
    )
    needed = _needed(source)
    assert "size: int" not in needed and "tools: list" in needed
    (finding,) = _findings(source)
    assert (finding.rule, finding.line) == ("TS112", 10)


def test_a_name_bound_elsewhere_in_the_module_is_read_as_what_it_stands_for():
    """`self._send` is bound to the dispatch in `__init__`: the method that calls it sends."""
    source = (
        "class Client:\n    def __init__(self, gateway):\n        self._send = partial(gateway.dispatch, "
        "timeout=30)\n\n"
        "    def ask(self, request):\n        return self._send(request)\n"
    )
    assert "return self._send(request)" in _needed(source)


def test_a_class_that_holds_a_comment_a_rule_reads_is_not_blanked():
    (finding,) = _findings(COMMENTED)
    assert (finding.rule, finding.line) == ("TS100", 2)


def test_a_module_statement_no_kept_code_uses_is_blanked_and_one_it_uses_is_held():
    source = (
        "UNUSED = compute_table(1, 2, 3)\nTIMEOUT = 30\n\ndef unchecked(request):\n    return "
        "gateway.dispatch(request, timeout=TIMEOUT)\n"
    )
    needed = _needed(source)
    assert "compute_table" not in needed and "TIMEOUT = 30" in needed
    (finding,) = _findings(source)
    assert (finding.rule, finding.line) == ("TS101", 5)


def test_a_helper_that_cannot_change_what_a_rule_finds_is_not_kept():
    """TS111 reads a helper only when the helper may edit what it is handed."""
    source = (
        "def log_title(name):\n    print(name)\n\n"
        "def normalise(parameters):\n    log_title(parameters['title'])\n    "
        "parameters['additionalProperties'] = False\n"
    )
    only = ScanConfig(select=("TS111",))
    needed = _needed(source, only)
    assert "print(name)" not in needed and "parameters['additionalProperties'] = False" in needed
    editing = source.replace("print(name)", "name.pop('x')")
    assert "name.pop('x')" in _needed(editing, only)


def test_a_file_with_nothing_for_the_rules_to_read_is_not_given_to_libcst():
    """A class that names tools in a field is read by a rule that reports outside functions, and
    by no rule that reports only in them: for those, the file is done after the first pass."""
    source = "class Settings:\n    tools: list = []\n\n" + UNWANTED[2].lstrip("\n")
    in_functions = ScanConfig(select=("TS110", "TS111", "TS112"))
    assert _needed(source, in_functions) is None
    with mock.patch.object(cst, "parse_module", side_effect=AssertionError("parsed")):
        result = scan_source(source, "module.py", in_functions)
    assert result.parsed and result.findings == ()
    assert "tools: list = []" in _needed(source, ScanConfig(select=("TS107",)))
