"""The scan engine: one file's text in, its findings out. Pure: no file or terminal I/O.

Text that mentions none of the configured names is not parsed at all. Positions are asked of
libcst only for a file that has something to report, so the common file costs a parse and the
rules' walks, nothing more.

CPython compiles the text first (about a tenth of the cost of libcst's parse): what CPython
itself refuses — a syntax error, more than 200 nested parentheses — is reported with CPython's
own message and line:col and never reaches libcst, whose native parser would exhaust its stack
on such input and take the process down. What CPython accepts is analysed however deeply it
nests: the parse and the rules run with a large stack (see `_stack`).
"""

from __future__ import annotations

import ast
import functools
import re
import warnings
from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from ._dispatches import dispatch_calls
from ._positions import positions
from ._rule import Match, Mentions, Rule, Tree, shown
from ._stack import with_deep_stack
from ._suppressions import suppressed
from ._types import FileFailed, FileResult, FileScanned, Finding, ScanConfig, Step
from .rules import RULES

#: A run of letters and digits. Letters and digits bound a word, `_` does not: `take_baseline`
#: mentions `baseline`, `checked` no `check`.
_TOKEN = re.compile(r"[a-z0-9]+")
#: What an identifier may be made of, read anywhere in the text (a superset of its identifiers).
_IDENTIFIER = re.compile(r"[a-z0-9_]+")
_BOUNDING = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


@functools.lru_cache(maxsize=256)
def _spellings(words: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The configured names as the text filter looks for them: each as its lower-case parts. A
    dotted name matches a call only when the callee ends with every one of its parts, so text that
    lacks one of them (`create` without `responses`) cannot hold such a call, however it aliases."""
    spelled = {tuple(part for part in word.lower().split(".") if part) for word in words}
    return tuple(sorted(spelling for spelling in spelled if spelling))


@functools.lru_cache(maxsize=1024)
def _runs(part: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(part))


class _Text:
    """Lower-cased text, with its identifier-like runs and their letter-and-digit words, each
    taken once as a set for every rule.

    A word made only of letters and digits is in the text exactly when it is one of those words:
    a set lookup, where a search would read the whole text for each word, each rule. A word with
    `_` or another sign (`tool_list`, `__class__`) is searched for, once each of its runs is in
    the set. Case is ignored throughout: a need met in another case only costs a parse.
    """

    def __init__(self, source: str) -> None:
        self.lowered = source.lower()
        self.identifiers = frozenset(_IDENTIFIER.findall(self.lowered))
        self.words = frozenset(word for run in self.identifiers for word in run.split("_") if word)

    def meets(self, need: tuple[str, ...] | Mentions) -> bool:
        if not isinstance(need, Mentions):
            return self.mentions(need)
        return self.mentions(need.words) or self.names(need.names) or any(map(self.ends, need.endings))

    def mentions(self, words: tuple[str, ...]) -> bool:
        return any(all(map(self.has, spelling)) for spelling in _spellings(words))

    def has(self, part: str) -> bool:
        if part in self.words:
            return True
        runs = _runs(part)
        if runs == (part,) or not all(run in self.words for run in runs):
            return False
        return self._found(part, left=True)

    def names(self, names: tuple[str, ...]) -> bool:
        """Whether the text holds one of these names as `named` reads a callee: its last part a
        whole identifier, each owner one too, or with underscores before it."""
        return any(
            spelling[-1] in self.identifiers and all(self._owner(owner) for owner in spelling[:-1])
            for spelling in _spellings(names)
        )

    def _owner(self, part: str) -> bool:
        return part in self.identifiers or any(run.lstrip("_") == part for run in self.identifiers if run.endswith(part))

    def ends(self, ending: str) -> bool:
        """Whether a word of the text ends with `ending` (`inputschema` with `schema`)."""
        return self._found(ending.lower(), left=False)

    def _found(self, part: str, left: bool) -> bool:
        """Whether `part` occurs with no letter or digit after it, nor before it when `left` (a
        search loop: a pattern that looks behind reads every byte of the text in Python's `re`)."""
        text, start = self.lowered, self.lowered.find(part)
        while start >= 0:
            end = start + len(part)
            if (not left or start == 0 or text[start - 1] not in _BOUNDING) and (end == len(text) or text[end] not in _BOUNDING):
                return True
            start = text.find(part, start + 1)
        return False


def selected(config: ScanConfig, rules: Sequence[Rule] = RULES) -> list[Rule]:
    """The rules `select` and `ignore` leave to run."""
    return [rule for rule in rules if rule.id not in config.ignore and (not config.select or rule.id in config.select)]


def applicable(source: str, config: ScanConfig, rules: Sequence[Rule] = RULES) -> list[Rule]:
    """The selected rules whose needs the text meets: a cheap test that spares most files a parse."""
    text = _Text(source)
    return [rule for rule in selected(config, rules) if all(map(text.meets, rule.needs(config)))]


def worth_parsing(source: str, config: ScanConfig) -> bool:
    return bool(applicable(source, config))


#: libcst's own 1-based position of the token it choked on; `editor_line` is off at end of file.
_AT = re.compile(r"^(?:parser error: )?error at (\d+):(\d+): ")


def _parse_problem(error: cst.ParserSyntaxError) -> str:
    """`line:col: cannot parse: what was expected`, 1-based, one line."""
    at = _AT.match(error.message)
    line, column = (int(at.group(1)), max(1, int(at.group(2)))) if at else (error.editor_line, error.editor_column)
    detail = error.message[at.end():] if at else error.message.removeprefix("parser error: ")
    return f"{line}:{column}: cannot parse: {' '.join(detail.split())}"


#: Every rule id that exists: a suppression naming another silences nothing.
_KNOWN = frozenset(rule.id for rule in RULES)


def scan_source(source: str, path: str, config: ScanConfig, rules: Sequence[Rule] = RULES) -> FileResult:
    """Every finding of `rules` in one file's text, or why the file could not be scanned."""
    rules = applicable(source, config, rules)
    if not rules:
        return FileScanned(path, (), parsed=False)
    return with_deep_stack(lambda: _scan(source, path, config, rules))


def _refused(source: str, path: str) -> FileFailed | None:
    """Why CPython will not parse the text, with its message and position; None when it does.

    Compiling to bytecode keeps CPython's tree in C and costs a third of building it as Python
    objects. A few errors come only from the compiler, after a parse that succeeded (`return`
    outside a function, too many nested blocks): for those the parse alone decides. The
    compiler's warnings (`x is 1`) are the scanned code's business, not the scan's output.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, path, "exec", dont_inherit=True)
    except SyntaxError:
        return _unparsed(source, path)
    except (MemoryError, RecursionError):  # CPython's parser gives up on its own stack
        return FileFailed(path, f"{path}: cannot parse: nested too deeply for CPython's parser")
    except ValueError as error:  # a NUL byte in the source
        return FileFailed(path, f"{path}: cannot parse: {error}")
    return None


def _unparsed(source: str, path: str) -> FileFailed | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as error:
        where = f"{error.lineno}:{max(1, error.offset or 1)}:" if error.lineno else ""
        return FileFailed(path, f"{path}:{where} cannot parse: {error.msg}")
    except (MemoryError, RecursionError):
        return FileFailed(path, f"{path}: cannot parse: nested too deeply for CPython's parser")
    return None


def _scan(source: str, path: str, config: ScanConfig, rules: Sequence[Rule]) -> FileResult:
    refused = _refused(source, path)
    if refused is not None:
        return refused
    try:
        module = cst.parse_module(source)
        tree = Tree(module)
        dispatches = len(dispatch_calls(tree, config))
        hits = [(rule, found if isinstance(found, Match) else Match(found)) for rule in rules for found in rule.matches(tree, config)]
        if not hits:
            return FileScanned(path, (), parsed=True, dispatches=dispatches)
        ranges = positions(module)
    except cst.ParserSyntaxError as error:
        return FileFailed(path, f"{path}:{_parse_problem(error)}")
    except RecursionError:
        return FileFailed(path, f"{path}: nested too deeply to analyse")
    except Exception as error:  # a rule's bug must cost one file, not the scan
        return FileFailed(path, f"{path}: scan failed: {type(error).__name__}: {error}")
    lines = source.splitlines()
    findings = []
    for rule, match in hits:
        where = ranges[match.node]
        line = lines[where.start.line - 1] if where.start.line <= len(lines) else ""
        findings.append(
            Finding(
                rule=rule.id,
                name=rule.name,
                path=path,
                line=where.start.line,
                column=where.start.column + 1,
                end_line=where.end.line,
                end_column=where.end.column + 1,
                message=rule.message,
                source=line,
                suppressed=suppressed(line, rule.id, _KNOWN),
                flow=_flow(match, ranges),
            )
        )
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return FileScanned(path, tuple(findings), parsed=True, dispatches=dispatches)


def _flow(match: Match, positions: Mapping[cst.CSTNode, CodeRange]) -> tuple[Step, ...]:
    """The match's places as steps, source first and the reported node last; a place the rule
    names twice (or at the reported node itself) is one step."""
    places = [*match.before, (match.node, match.label or shown(match.node))]
    steps: list[Step] = []
    for node, label in places:
        start = positions[node].start
        step = Step(start.line, start.column + 1, label)
        if steps and (steps[-1].line, steps[-1].column) == (step.line, step.column):
            steps[-1] = step  # the later label says more about the place: it is nearer the sink
            continue
        steps.append(step)
    return tuple(steps)
