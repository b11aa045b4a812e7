"""The HTML audit: one self-contained page with the Markdown audit's content and a table of every case.

Nothing on the page loads from anywhere: the stylesheet and the script are inlined and pinned by
hash in a Content-Security-Policy that allows no other source. Strings from scenarios and targets
are untrusted (a tool description may hold markup): the summary passes each through
`html.escape`, and the case table is built by the script from embedded JSON with `textContent`.
The summary needs no script; the table does.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from html import escape
from importlib import resources
from typing import Any
from urllib.parse import urlencode

import orjson

from toolsurface.harness._expectations import Judged, Standing
from toolsurface.harness._types import CaseRecord, VerdictKind

from ._audit import DOES_NOT_PROVE, PROVES, Audit, error_of, ledger_lines

#: How each case field travels in the embedded JSON, in row order, and where it comes from:
#: `plain` as it is; `ref` an index into the string table (null for None) and `refs` a list of
#: them, since reasons, diffs and ledger lines repeat across thousands of cases; `around` the
#: reproduce command as the strings before and after the case id in it (one string when the id is
#: not in it verbatim).
_FIELDS: tuple[tuple[str, str, Callable[[Audit, CaseRecord], Any]], ...] = (
    ("id", "plain", lambda a, c: c.id),
    ("scenario", "ref", lambda a, c: c.case.scenario),
    ("lane", "ref", lambda a, c: c.case.lane),
    ("hook_mode", "ref", lambda a, c: c.case.hook_mode),
    ("point", "ref", lambda a, c: c.case.point),
    ("kind", "ref", lambda a, c: c.case.mutation.kind),
    ("delivery", "ref", lambda a, c: c.case.mutation.delivery),
    ("variant", "ref", lambda a, c: c.case.mutation.variant),
    ("aim", "ref", lambda a, c: str(c.case.mutation.aim)),
    ("must", "ref", lambda a, c: c.case.must),
    ("verdict", "ref", lambda a, c: c.verdict.kind),
    ("reason", "ref", lambda a, c: c.verdict.reason),
    ("red_verdict", "ref", lambda a, c: c.red_verdict and c.red_verdict.kind),
    ("red_reason", "ref", lambda a, c: c.red_verdict and c.red_verdict.reason),
    ("controlled", "plain", lambda a, c: c.controlled),
    ("accepted", "plain", lambda a, c: a.is_accepted(c)),
    ("ending", "ref", lambda a, c: c.evidence.ending),
    ("change", "refs", lambda a, c: c.case.change),
    ("diff", "refs", lambda a, c: c.evidence.diff),
    ("ledger", "refs", lambda a, c: ledger_lines(c)),
    ("points", "refs", lambda a, c: c.evidence.points),
    ("dispatches", "plain", lambda a, c: c.evidence.dispatches),
    ("facts", "refs", lambda a, c: tuple(map(str, c.evidence.availability))),
    ("error", "ref", lambda a, c: error_of(c.evidence.stop)),
    ("defects_killed", "refs", lambda a, c: c.defects_killed or ()),
    ("reproduce", "around", lambda a, c: a.reproduce(c)),
)

#: The sections, in page order, as the contents list names them.
_CONTENTS = (
    ("totals", "Totals"), ("matrix", "Matrix"), ("pairing", "RED/GREEN pairing"), ("defects", "Defects"),
    ("failing", "Failing cases"), ("expectations", "Expectations"), ("scenarios", "Scenarios"), ("scope", "Scope"),
    ("cases", "All cases"),
)  # fmt: skip

#: How many lines of each failing case's surface diff the summary lists; the case view has them all.
_DIFF_LINES = 5

#: What JSON must not carry raw inside a script element: `</script` and `<!--` end or bend it, and
#: U+2028/U+2029 are line ends to older JavaScript parsers.
_SCRIPT_UNSAFE = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029"))


def render_html(audit: Audit) -> str:
    """The whole page, as one string."""
    css, js = _asset("report.css"), _asset("report.js")
    policy = (
        f"default-src 'none'; style-src '{_digest(css)}'; script-src '{_digest(js)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    sections = "\n".join(
        [
            _totals(audit), _matrix(audit), _pairing(audit), _defects(audit), _failing(audit), _expectations(audit),
            _scenarios(audit), _scope(), _browser(audit),
        ]
    )  # fmt: skip
    body = f"{_header(audit)}\n<main>\n{sections}\n</main>"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{escape(audit.title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}\n"
        f'<script type="application/json" id="case-data">{_case_data(audit)}</script>\n'
        f"<script>{js}</script>\n</body>\n</html>\n"
    )


@functools.cache
def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("_html", name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    """The CSP source that allows exactly this inline element's text."""
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


def _header(audit: Audit) -> str:
    run = audit.run
    facts = [
        ("spec", escape(audit.spec or "") or '<span class="muted">none configured</span>'),
        ("toolsurface", escape(audit.versions)),
        ("target under test", _code(run.target)),
        ("red target", _code(run.red_target) if run.red_target else "none (pairing off)"),
        ("seed", str(run.seed)),
        ("cases", audit.coverage(_code)),
        ("expectations judged on", escape(run.date.isoformat())),
    ]
    gate, word = ("gate-pass", "PASS") if audit.ok else ("gate-fail", "FAIL")
    contents = "".join(f'<li><a href="#{anchor}">{name}</a></li>' for anchor, name in _CONTENTS)
    broad = "".join(
        f'<p class="broad" id="broad-{index}"><strong>broad expectation</strong> {_code(j.expectation.case)} '
        f"({escape(j.expectation.verdict)}): {escape(audit.reach(j))}</p>\n"
        for index, j in enumerate(audit.broad)
    )
    return (
        f"<header>\n<h1>{escape(audit.title)}</h1>\n"
        f'<p class="gate {gate}" id="gate"><strong>{word}</strong><span id="headline">{escape(audit.headline)}</span></p>\n'
        f'{broad}{_table(("", ""), facts, "facts")}<nav><ul>{contents}</ul></nav>\n</header>'
    )


def _totals(audit: Audit) -> str:
    totals = audit.totals
    rows = [
        (_filter_link(_verdict(kind), verdict=kind), f'<span id="total-{kind}">{totals[kind]}</span>')
        for kind in VerdictKind
    ]
    rows.append(("<strong>total</strong>", f'<strong id="total-cases">{len(audit.cases)}</strong>'))
    parts = [_table(("verdict", "cases"), rows, numeric=(1,))]
    if endings := audit.endings():
        ended = " · ".join(f"{count} {ending}" for ending, count in endings.items())
        parts.append(f"<p>Requests ended: {escape(ended)}.</p>")
    if audit.accepted:
        accepted = f"{len(audit.accepted)} failing cases are accepted by expectations (see below): they do not fail the gate."
        parts.append(f"<p>{accepted}</p>")
    parts += [f"<p><strong>threshold not reached:</strong> {escape(shortfall)}</p>" for shortfall in audit.shortfalls]
    return _section("totals", "Totals", *parts)


def _matrix(audit: Audit) -> str:
    cells, points = audit.matrix(), audit.points()
    rows = [
        (_code(kind), *(_cell(cells.get((kind, point), Counter()), kind=kind, point=point) for point in points))
        for kind in audit.kinds()
    ]
    lanes = [(_code(lane), _code(mode), _cell(cell, lane=lane, hooks=mode)) for (lane, mode), cell in audit.by_lane().items()]
    return _section(
        "matrix",
        "Matrix: mutation kind × injection point",
        "<p>Each cell is passing/in-scope checks (killed or passed, of every case that is not equivalent), with what "
        "failed beside it; its tooltip has the whole split, and it links to its cases in the table below.</p>",
        _table(("kind", *map(_code, points)), rows, "matrix"),
        "<p>By lane and hook mode:</p>",
        _table(("lane", "hook mode", "checks"), lanes, "matrix"),
    )


def _cell(counts: Counter[VerdictKind], **state: str) -> str:
    """`passing/in-scope` and what failed, linking to the cell's cases."""
    if not counts:
        return '<span class="none">—</span>'
    in_scope = sum(n for kind, n in counts.items() if kind is not VerdictKind.EQUIVALENT)
    passing = counts[VerdictKind.KILLED] + counts[VerdictKind.PASSED]
    split = _in_order(counts, VerdictKind)
    failed = "".join(f' <span class="v-{kind}">{n} {kind}</span>' for kind, n in split if not kind.ok)
    equivalent = f'<span class="v-equivalent">{counts[VerdictKind.EQUIVALENT]} equivalent</span>'
    tooltip = ", ".join(f"{n} {kind}" for kind, n in split)
    return _filter_link(f"{passing}/{in_scope}{failed}" if in_scope else equivalent, title=tooltip, **state)


def _pairing(audit: Audit) -> str:
    run = audit.run
    if not run.red_target:
        return _section("pairing", "RED/GREEN pairing", "<p>Pairing was off: no red target.</p>")
    rows = [(_code(kind), str(cases), str(red), str(controlled)) for kind, (cases, red, controlled) in audit.pairing().items()]
    return _section(
        "pairing",
        "RED/GREEN pairing",
        f'<p><span id="controlled">{audit.controlled}</span> of {len(audit.cases)} cases are controlled: they fail on the red '
        f"target {_code(run.red_target)} and pass on {_code(run.target)}. {audit.red_failing} fail on the red target.</p>",
        _table(("kind", "cases", "fail on red target", "controlled"), rows, numeric=(1, 2, 3)),
    )


def _defects(audit: Audit) -> str:
    if audit.defects is None:
        not_run = "<p>The reference defects were not run (<code>toolsurface run --defects</code>).</p>"
        return _section("defects", "Defect kill matrix", not_run)
    kinds = [kind for kind in audit.kinds() if any(row.by_kind.get(kind) for row in audit.defects)]
    rows = [
        (
            _code(row.name),
            *(str(row.by_kind.get(kind, "")) for kind in kinds),
            str(row.kills) if row.kills else '<strong class="v-survived">0 — not killed</strong>',
            _case_link(row.first) if row.first else "—",
        )
        for row in audit.defects
    ]
    killed = sum(bool(row.kills) for row in audit.defects)
    return _section(
        "defects",
        "Defect kill matrix",
        f"<p>{killed} of {len(audit.defects)} reference defects are killed: a case kills one when the defect lets it "
        "survive or falsely rejects it while <code>reference:guarded</code> passes it.</p>",
        _table(("defect", *map(_code, kinds), "killed by", "first killing case"), rows, numeric=range(1, len(kinds) + 2)),
    )


def _failing(audit: Audit) -> str:
    failing = audit.failing
    title = f"Failing cases ({len(failing)})"
    if not failing:
        none = "<p>None: no case survived, was falsely rejected, or errored without an accepted expectation.</p>"
        return _section("failing", title, none)
    items = "\n".join(_failing_item(audit, case) for case in failing)
    return _section("failing", title, f'<ol class="failing">\n{items}\n</ol>')


def _failing_item(audit: Audit, case: CaseRecord) -> str:
    lines = case.evidence.diff
    diff = "".join(f"<li>{_code(line)}</li>" for line in lines[:_DIFF_LINES])
    if len(lines) > _DIFF_LINES:
        diff += f'<li class="muted">… {len(lines) - _DIFF_LINES} more in the case view</li>'
    return (
        f"<li>{_verdict(case.verdict.kind)} {_case_link(case.id)}: {escape(case.verdict.reason)}"
        + (f"<ul>{diff}</ul>" if diff else "")
        + f'<code class="cmd">{escape(audit.reproduce(case))}</code></li>'
    )


def _expectations(audit: Audit) -> str:
    if not audit.expectations:
        return _section("expectations", "Expectations", "<p>None: no deviation is accepted.</p>")
    header = ("cases", "verdict accepted", "reason", "expires", "standing", "why", "planned cases named", "cases accepted")
    rows = [
        (_code(e.case), _code(e.verdict), escape(e.reason), escape(e.expires.isoformat()), _standing(j.standing),
         escape(j.why), _named(audit, j), str(len(j.cases)))
        for j in audit.expectations
        for e in (j.expectation,)
    ]  # fmt: skip
    parts = [_table(header, rows, numeric=(6, 7))]
    if audit.accepted:
        accepted = (
            f"<li>{_verdict(case.verdict.kind)} {_case_link(case.id)}: {escape(case.verdict.reason)}</li>" for case in audit.accepted
        )
        parts.append("<p>Accepted cases:</p>\n<ul>" + "".join(accepted) + "</ul>")
    return _section("expectations", "Expectations", *parts)


def _named(audit: Audit, judged: Judged) -> str:
    broad = ' <strong class="standing-fail">broad</strong>' if judged.broad(audit.run.planned) else ""
    return f"{judged.planned}{broad}"


def _standing(standing: Standing) -> str:
    return f'<strong class="standing-{"ok" if standing.ok else "fail"}">{escape(standing)}</strong>'


def _scenarios(audit: Audit) -> str:
    scenarios = audit.run.scenarios
    rows = [
        (_code(s.id), *map(escape, (s.mode, s.lane, s.outcome)), f'<code title="{escape(s.digest)}">{escape(s.digest[:12])}</code>')
        for s in scenarios
    ]
    header = ("scenario", "mode", "lane", "unmutated outcome", "sha256")
    return _section("scenarios", f"Scenarios ({len(scenarios)})", _table(header, rows))


def _scope() -> str:
    def items(lines: Iterable[str]) -> str:
        return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"

    return _section(
        "scope", "Scope", "<p>What this run proves:</p>", items(PROVES), "<p>What it does not prove:</p>", items(DOES_NOT_PROVE)
    )


def _browser(audit: Audit) -> str:
    """The filters and the table the script fills; hidden until the script runs."""
    cases = [case.case for case in audit.cases]
    filters = [
        ("verdict", "verdict", [(kind.value, n) for kind, n in _in_order(audit.totals, VerdictKind)]),
        ("kind", "mutation kind", _counted(Counter(case.mutation.kind for case in cases), audit.kinds())),
        ("point", "injection point", _counted(Counter(case.point for case in cases), audit.points())),
        ("lane", "lane", _counted(Counter(case.lane for case in cases), sorted({case.lane for case in cases}))),
        ("hooks", "hook mode", _counted(Counter(case.hook_mode for case in cases), ["hooks", "no-hooks"])),
        ("scenario", "scenario", _counted(Counter(case.scenario for case in cases), [s.id for s in audit.run.scenarios])),
    ]
    selects = "".join(
        f'<label>{label}<select id="f-{name}"><option value="">all</option>'
        + "".join(f'<option value="{escape(value)}">{escape(value)} ({n})</option>' for value, n in options)
        + "</select></label>"
        for name, label, options in filters
    )
    return _section(
        "cases",
        "All cases",
        "<noscript><p>The case table needs JavaScript; every failing case is listed above with its reproduce command, "
        "and results.json holds them all.</p></noscript>\n"
        '<div id="case-browser" hidden>\n'
        f'<div class="filters">{selects}'
        '<label>search ids, reasons, diffs, ledger and facts<input type="search" id="f-q" autocomplete="off"></label>'
        '<button type="button" id="case-reset">clear filters</button></div>\n'
        '<output id="case-count" for="f-verdict f-kind f-point f-lane f-hooks f-scenario f-q" aria-live="polite"></output>\n'
        '<table id="case-table"><thead><tr><th>verdict</th><th>case (click for its view)</th><th>ending</th>'
        '<th>red target</th><th>reason</th></tr></thead><tbody id="case-rows"></tbody></table>\n'
        '<button type="button" id="case-more" hidden>show more</button>\n</div>',
    )


def _case_data(audit: Audit) -> str:
    """Every case as JSON for the script, with nothing in it that could end the script element."""
    strings: dict[str, int] = {}

    def ref(value: str | None) -> int | None:
        return None if value is None else strings.setdefault(value, len(strings))

    def around(case_id: str, reproduce: str) -> list[int | None]:
        before, found, after = reproduce.partition(case_id)
        return [ref(before), ref(after)] if found else [ref(reproduce)]

    def encode(case: CaseRecord) -> list[Any]:
        row: list[Any] = []
        for _, how, read in _FIELDS:
            value = read(audit, case)
            if how == "ref":
                row.append(ref(value))
            elif how == "refs":
                row.append([ref(item) for item in value])
            elif how == "around":
                row.append(around(case.id, value))
            else:
                row.append(value)
        return row

    rows = [encode(case) for case in audit.cases]  # fills `strings`, so first
    fields = [(name, how) for name, how, _ in _FIELDS]
    text = orjson.dumps({"fields": fields, "strings": list(strings), "cases": rows}).decode()
    for unsafe, escaped in _SCRIPT_UNSAFE:
        text = text.replace(unsafe, escaped)
    return text


def _counted(counts: Counter[str], values: Iterable[str]) -> list[tuple[str, int]]:
    return [(value, counts[value]) for value in values if counts[value]]


def _in_order(counts: Counter[Any], order: Iterable[Any]) -> list[tuple[Any, int]]:
    return [(item, counts[item]) for item in order if counts[item]]


def _section(anchor: str, title: str, *parts: str) -> str:
    return f'<section id="{anchor}">\n<h2>{escape(title)}</h2>\n' + "\n".join(parts) + "\n</section>"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], cls: str = "", numeric: Iterable[int] = ()) -> str:
    """A table of cells that are already HTML; `numeric` columns are right-aligned."""
    right = set(numeric)

    def cells(tag: str, row: Sequence[str]) -> str:
        aligned = ' class="n"'
        return "".join(f"<{tag}{aligned if i in right else ''}>{cell}</{tag}>" for i, cell in enumerate(row))

    head = f"<thead><tr>{cells('th', header)}</tr></thead>" if any(header) else ""
    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    attributes = f' class="{cls}"' if cls else ""
    return f"<table{attributes}>{head}<tbody>{body}</tbody></table>\n"


def _verdict(kind: VerdictKind) -> str:
    return f'<span class="verdict v-{kind}">{kind}</span>'


def _code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def _case_link(case_id: str) -> str:
    # Ids are long paths: let them wrap after a slash rather than at a hyphen.
    return _filter_link(f"<code>{escape(case_id).replace('/', '/<wbr>')}</code>", case=case_id)


def _filter_link(inner: str, title: str = "", **state: str) -> str:
    """A link to the case table filtered by `state` (the hash keys of report.js)."""
    tooltip = f' title="{escape(title)}"' if title else ""
    return f'<a href="{escape("#" + urlencode(state))}"{tooltip}>{inner}</a>'
