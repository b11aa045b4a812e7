"""The scan engine: one file's text in, its findings out. Pure: no file or terminal I/O.

Text that mentions none of the configured names is not parsed at all. CPython parses the rest
first (a fraction of the cost of libcst's parse): what CPython itself refuses — a syntax error,
more than 200 nested parentheses — is reported with CPython's own message and line:col and never
reaches libcst, whose native parser would exhaust its stack on such input and take the process
down. CPython's tree is the first pass (see `_outline`): libcst parses only the functions the
rules want and what those reach, the rest blanked out in place, and a file with nothing left for a
rule to read not at all. What CPython accepts is analysed however deeply it nests: the parse and
the rules run with a large stack (see `_stack`). Positions are asked of libcst only for a file
that has something to report, and only in the statements that hold what it reports.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence

import libcst as cst
from libcst.metadata import CodeRange

from ._dispatches import dispatch_calls, table_entry
from ._outline import LINE, Body, outline
from ._positions import positions
from ._registry import registered_rules
from ._rule import Match, Mentions, Rule, Tree, dotted, named, shown
from ._stack import with_deep_stack
from ._suppressions import suppressed
from ._text import Text
from ._types import FileFailed, FileResult, FileScanned, Finding, ScanConfig, Step


def selected(config: ScanConfig, rules: Sequence[Rule] | None = None) -> list[Rule]:
    """The rules (default: every installed pack's) `select` and `ignore` leave to run."""
    return [
        rule
        for rule in (registered_rules() if rules is None else rules)
        if rule.id not in config.ignore and (not config.select or rule.id in config.select)
    ]


def applicable(source: str, config: ScanConfig, rules: Sequence[Rule] | None = None) -> list[Rule]:
    """The selected rules whose needs the text meets: a cheap test that spares most files a parse."""
    text = Text(source)
    return [rule for rule in selected(config, rules) if all(map(text.meets, rule.needs(config)))]


#: libcst's own 1-based position of the token it choked on; `editor_line` is off at end of file.
_AT = re.compile(r"^(?:parser error: )?error at (\d+):(\d+): ")


def _parse_problem(error: cst.ParserSyntaxError) -> str:
    """`line:col: cannot parse: what was expected`, 1-based, one line."""
    at = _AT.match(error.message)
    line, column = (int(at.group(1)), max(1, int(at.group(2)))) if at else (error.editor_line, error.editor_column)
    detail = error.message[at.end() :] if at else error.message.removeprefix("parser error: ")
    return f"{line}:{column}: cannot parse: {' '.join(detail.split())}"


def known_ids() -> frozenset[str]:
    """Every rule id that exists, in any installed pack: a suppression naming another silences nothing."""
    return frozenset(rule.id for rule in registered_rules())


def scan_source(source: str, path: str, config: ScanConfig, rules: Sequence[Rule] | None = None) -> FileResult:
    """Every finding of `rules` in one file's text, or why the file could not be scanned."""
    rules = applicable(source, config, rules)
    if not rules:
        return FileScanned(path, (), parsed=False)
    return with_deep_stack(lambda: _scan(source, path, config, rules))


def _parsed(source: str, path: str) -> ast.Module | FileFailed | None:
    """CPython's tree of the text, or why CPython will not parse it, with its message and position.

    None when CPython parses the text but its tree is too deep to build as Python objects: then
    there is no outline, and libcst parses the whole text. A few errors come only from the
    compiler, after a parse that succeeded (`return` outside a function, too many nested blocks):
    libcst reads such text as well as any. The parser's warnings (`"\\d"`) are the scanned code's
    business, not the scan's output.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(source, path)
    except SyntaxError as error:
        where = f"{error.lineno}:{max(1, error.offset or 1)}:" if error.lineno else ""
        return FileFailed(path, f"{path}:{where} cannot parse: {error.msg}")
    except (MemoryError, RecursionError):
        return _compiled(source, path)
    except ValueError as error:  # a NUL byte in the source
        return FileFailed(path, f"{path}: cannot parse: {error}")


def _compiled(source: str, path: str) -> FileFailed | None:
    """Whether CPython's parser, which keeps its tree in C, gives up on its own stack too."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, path, "exec", dont_inherit=True)
    except (MemoryError, RecursionError):
        return FileFailed(path, f"{path}: cannot parse: nested too deeply for CPython's parser")
    except SyntaxError:
        pass  # the compiler's own errors, after a parse that succeeded
    return None


def _needed(source: str, parsed: ast.Module | None, config: ScanConfig, rules: Sequence[Rule]) -> str | None:
    """The text libcst must parse: the source with the units no rule wants blanked out (see
    `_outline`); None when no rule has anything to read in it. A unit that names a dispatch is
    always kept, so the scan counts every dispatch it saw."""
    if parsed is None:
        return source
    lines = LINE.findall(source)
    shape = outline(parsed, lines)
    dispatching = (Mentions(names=config.dispatch),)
    kept = shape.kept((unit for unit in shape.units if unit.meets(dispatching)), lambda unit: False)
    for rule in rules:
        wanted = [unit for unit in shape.units if rule.wants(unit, shape, config)]
        kept |= shape.kept(wanted, lambda unit, rule=rule: rule.reaches(unit, shape, config))  # type: ignore[misc]
    needs = [*dispatching, *(need for rule in rules if rule.module_level for need in rule.needs(config))]
    commenting = [rule.needs(config) for rule in rules if rule.reads_comments]

    def needed(body: Body) -> bool:
        return any(map(body.text.meets, needs)) or any(
            all(map(Text(body.source).meets, wanted)) for wanted in commenting
        )

    kept, held = shape.keep(kept, needed)
    if not (kept or held or commenting or any(map(shape.module_text.meets, needs))):
        return None
    if len(kept) == len(shape.units) and len(held) == len(shape.bodies):
        return source
    return shape.sliced(lines, kept, held)


def _scan(source: str, path: str, config: ScanConfig, rules: Sequence[Rule]) -> FileResult:
    parsed = _parsed(source, path)
    if isinstance(parsed, FileFailed):
        return parsed
    needed = _needed(source, parsed, config, rules)
    if needed is None:
        return FileScanned(path, (), parsed=True)
    try:
        module = cst.parse_module(needed)
        tree = Tree(module)
        dispatches = len(dispatch_calls(tree, config))
        hits = [
            (rule, found if isinstance(found, Match) else Match(found))
            for rule in rules
            for found in rule.matches(tree, config)
        ]
        if not hits:
            return FileScanned(path, (), parsed=True, dispatches=dispatches)
        reported = [node for _, match in hits for node in (match.node, *(node for node, _ in match.before))]
        ranges = positions(module, parsed, tree.statements_of(reported))
        if not all(node in ranges for node in reported):
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
                suppressed=suppressed(line, rule.id, known_ids()),
                flow=_flow(match, ranges, config.origins, path),
            )
        )
    findings.sort(key=lambda f: (f.line, f.column, f.rule))
    return FileScanned(path, tuple(findings), parsed=True, dispatches=dispatches)


def _flow(
    match: Match,
    positions: Mapping[cst.CSTNode, CodeRange],
    origins: Sequence[tuple[str, str, int, int, str]] = (),
    path: str = "",
) -> tuple[Step, ...]:
    """The match's places as steps, source first and the reported node last; a place the rule
    names twice (or at the reported node itself) is one step.

    A place that calls or names what another file decides (`origins`: a helper that checks on
    every path, a name bound to the dispatch there) is followed by a step in that file, once per
    flow; the reported node's own are put before it, so the flow still ends where the finding is.
    """
    places = [*match.before, (match.node, match.label or shown(match.node))]
    steps: list[tuple[Step, list[cst.CSTNode]]] = []
    for node, label in places:
        start = positions[node].start
        step = Step(start.line, start.column + 1, label)
        if steps and (steps[-1][0].line, steps[-1][0].column) == (step.line, step.column):
            # the later label says more about the place: it is nearer the sink
            steps[-1] = (step, [*steps[-1][1], node])
            continue
        steps.append((step, [node]))
    if not origins:
        return tuple(step for step, _ in steps)
    by_last: dict[str, list[tuple[str, str, int, int, str]]] = defaultdict(list)
    for origin in origins:
        if origin[1] != path:
            by_last[origin[0].rpartition(".")[2]].append(origin)
    flow: list[Step] = []
    seen: set[tuple[str, int, int]] = set()
    for position, (step, nodes) in enumerate(steps):
        elsewhere = []
        for name in (name for node in nodes for name in _spelled(node)):
            for spelled, there, line, column, label in by_last.get(name.rpartition(".")[2], ()):
                if (there, line, column) not in seen and named(name, (spelled,)):
                    seen.add((there, line, column))
                    elsewhere.append(Step(line, column, label, there))
        flow.extend([*elsewhere, step] if position == len(steps) - 1 else [step, *elsewhere])
    return tuple(flow)


def _spelled(node: cst.CSTNode) -> Iterator[str]:
    """The dotted names a place spells, in source order: its callees and the names in its code
    (`guards.ensure`, `STAGES["send"]`), a definition's own name; not the code of a body below it."""
    pending = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, cst.BaseSuite):
            continue
        if isinstance(current, cst.Subscript) and (entry := table_entry(current)):
            yield entry
        if isinstance(current, cst.Name | cst.Attribute) and (name := dotted(current)):
            yield name
            continue  # the whole chain is the name: `guards.ensure`, not `guards` again
        pending.extend(reversed(current.children))
