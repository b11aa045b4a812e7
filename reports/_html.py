"""The HTML audit: one self-contained page that opens on the verdict and the failures by cause, then
the Markdown audit's content, a heat map of the matrix and a paged table of every case.

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

from toolsurface.common._printable import printable
from toolsurface.harness._expectations import Judged, Standing
from toolsurface.harness._types import CaseRecord, VerdictKind

from ._audit import DOES_NOT_PROVE, PROVES, Audit, error_of, ledger_lines
from ._groups import Cause, Group

#: How each case field travels in the embedded JSON, in row order, and where it comes from:
#: `plain` as it is; `ref` an index into the string table (null for None), since reasons, diffs and
#: ledger lines repeat across thousands of cases; `refs` an index into the table of lists of them,
#: since whole lists (the points offered, a ledger trace) repeat too; `split` the case id as two
#: strings, up to its mutation and from it, which repeat across lanes, points and scenarios;
#: `around` the reproduce command as the strings before and after the case id in it (one string
#: when the id is not in it verbatim).
_FIELDS: tuple[tuple[str, str, Callable[[Audit, CaseRecord], Any]], ...] = (
    ("id", "split", lambda a, c: c.id),
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
    ("before", "refs", lambda a, c: c.evidence.before),
    ("aftermath", "refs", lambda a, c: c.evidence.aftermath),
    ("ledger", "refs", lambda a, c: ledger_lines(c)),
    ("points", "refs", lambda a, c: tuple(map(str, c.evidence.points))),
    ("dispatches", "plain", lambda a, c: c.evidence.dispatches),
    ("facts", "refs", lambda a, c: tuple(map(str, c.evidence.availability))),
    ("error", "ref", lambda a, c: error_of(c.evidence.stop)),
    ("defects_killed", "refs", lambda a, c: c.defects_killed or ()),
    ("reproduce", "around", lambda a, c: a.reproduce(c)),
    ("fails_like", "ref", lambda a, c: a.likeness_of(c)),
    ("cause", "ref", lambda a, c: _cause_of(a, c)[0]),
    ("group", "ref", lambda a, c: _cause_of(a, c)[1]),
)

#: The sections, in page order, as the contents list names them.
_CONTENTS = (
    ("likely", "Likely flaws"),
    ("causes", "Failures by cause"),
    ("totals", "Totals"),
    ("matrix", "Matrix"),
    ("pairing", "RED/GREEN pairing"),
    ("defects", "Defects"),
    ("expectations", "Expectations"),
    ("scenarios", "Scenarios"),
    ("scope", "Scope"),
    ("cases", "All cases"),
)

#: Causes listed one by one; the rest are folded together, so a target whose every failure has a
#: reason of its own still opens on a short page.
_CAUSES_LISTED = 100
#: Heat map shades: a cell's shade is its failing cases against the most any cell has, in this many steps.
_SHADES = 5

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
            _likely(audit),
            _causes(audit),
            _totals(audit),
            _matrix(audit),
            _pairing(audit),
            _defects(audit),
            _expectations(audit),
            _scenarios(audit),
            _scope(),
            _browser(audit),
        ]
    )
    body = f"{_header(audit)}\n<main>\n{sections}\n</main>"
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{_text(audit.title)}</title>\n<style>{css}</style>\n</head>\n<body>\n{body}\n"
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
    gate, word = ("gate-pass", "PASS") if audit.ok else ("gate-fail", "FAIL")
    contents = "".join(f'<li><a href="#{anchor}">{name}</a></li>' for anchor, name in _CONTENTS)
    broad = "".join(
        f'<p class="broad" id="broad-{index}"><strong>broad expectation</strong> {_code(j.expectation.case)} '
        f"({_text(j.expectation.verdict)}): {_text(audit.reach(j))}</p>\n"
        for index, j in enumerate(audit.broad)
    )
    return (
        f"<header>\n<h1>{_text(audit.title)}</h1>\n"
        f'<p class="gate {gate}" id="gate"><strong>{word}</strong><span '
        f'id="headline">{_text(audit.headline)}</span></p>\n'
        f"{broad}<nav><ul>{contents}</ul></nav>\n</header>"
    )


def _facts(audit: Audit) -> str:
    run = audit.run
    facts = [
        ("spec", _text(audit.spec or "") or '<span class="muted">none configured</span>'),
        ("toolsurface", _text(audit.versions)),
        ("target under test", _code(run.target)),
        ("red target", _code(run.red_target) if run.red_target else "none (pairing off)"),
        ("seed", str(run.seed)),
        ("cases", audit.coverage(_code)),
        ("expectations judged on", _text(run.date.isoformat())),
    ]
    return _table(("", ""), facts, "facts")


def _likely(audit: Audit) -> str:
    """The reference defects the failing cases fail like, each linking to its cases in the table."""
    diagnosis = audit.diagnosis
    if not diagnosis.likely:
        none = (
            "<p>None: no failing case fails like a reference defect.</p>"
            if audit.failing
            else "<p>None: no case failed.</p>"
        )
        return _section("likely", "Likely flaws", none)
    intro = (
        "<p>Each failing case's signature (mutation kind, delivery, boundary, lane, hook mode, verdict, "
        "how the request "
        "ended and was settled) matched against the kill signatures of the reference defects, each the guarded design "
        "with one flaw: a host that fails like one fails where and how that flaw fails, so look there "
        "first. A likeness, "
        'not a proof; every failing case is still in its <a href="#causes">cause</a>.</p>'
    )
    rows = [
        (
            _filter_link(f"{like.count:,}", like=like.defect),
            _code(like.defect) + "".join(f" (or {_code(name)})" for name in like.alike),
            _text(like.flaw),
            f"{like.shown:.0%}",
            _case_link(like.representative.id, like=like.defect)
            + f'<code class="cmd">{escape(audit.reproduce(like.representative))}</code>',
        )
        for like in diagnosis.likely
    ]
    parts = [
        intro,
        _table(
            ("cases", "fails like", "its flaw", "its signatures where the run fails", "e.g., and how to reproduce it"),
            rows,
            numeric=(0, 3),
        ),
    ]
    if diagnosis.unexplained:
        parts.append(
            f"<p>{len(diagnosis.unexplained):,} failing cases fail like no reference defect, "
            f"in {len(diagnosis.unexplained_causes)} causes.</p>"
        )
    return _section("likely", f"Likely flaws ({len(diagnosis.likely)})", *parts)


def _causes(audit: Audit) -> str:
    causes, framework = audit.causes, audit.framework_causes
    title = f"Failures by cause ({len(audit.failing) - audit.framework_own} failing cases, {len(causes)} causes)"
    if not causes and not framework:
        none = "<p>None: no case survived, was falsely rejected, or errored without an accepted expectation.</p>"
        return _section("causes", title, none)
    intro = (
        "<p>A cause is a failing verdict and its reason with tool names, requests, paths and numbers left out; its "
        "cases are grouped by mutation kind, injection point and delivery. Largest first. Open a cause for its groups, "
        "each with its first case and the command that reproduces it, and for its member list; every case is also in "
        'the <a href="#cases">case table</a>, and results.json holds them all.</p>'
    )
    if framework:
        intro += (
            f'<p>{audit.framework_own:,} more failing cases are <a href="#framework">the framework\'s own</a>, '
            "listed apart after these.</p>"
        )
    parts = [intro, _cause_items(audit, causes, 1)]
    if framework:
        said = (
            f"{audit.framework_own:,} failing cases in {len(framework)} causes where what reached the model is what "
            "the framework makes of the expected tools: nothing else differs. They fail all the same."
        )
        parts += [
            f'<h3 id="framework">The framework\'s own</h3>\n<p>{said}</p>',
            f'<p class="remedy">What to do: {_text(audit.framework_remedy)}.</p>',
            _cause_items(audit, framework, len(causes) + 1),
        ]
    return _section("causes", title, *parts)


def _cause_items(audit: Audit, causes: tuple[Cause, ...], first: int) -> str:
    """The causes, numbered from `first`; past `_CAUSES_LISTED`, folded away."""
    items = [_cause(audit, number, cause) for number, cause in enumerate(causes, first)]
    listed, rest = items[:_CAUSES_LISTED], items[_CAUSES_LISTED:]
    if rest:
        count = sum(cause.count for cause in causes[_CAUSES_LISTED:])
        listed.append(
            f'<details class="more-causes"><summary>{len(rest)} more causes ({count} '
            f"cases)</summary>{''.join(rest)}</details>"
        )
    return "\n".join(listed)


def _cause(audit: Audit, number: int, cause: Cause) -> str:
    first = cause.representative
    groups = "".join(_group_row(audit, number, group) for group in cause.groups)
    plural = "s" if len(cause.groups) > 1 else ""
    return (
        f'<details class="cause" id="cause-{number}"><summary><span class="count">{cause.count}</span> '
        f'{_verdict(cause.verdict)} <span class="reason">{_text(cause.reason)}</span> '
        f'<span class="muted">· {len(cause.groups)} group{plural}</span></summary>\n'
        f"<p>First case: {_case_link(first.id, cause=str(number))}: {_text(first.verdict.reason)}"
        f'<code class="cmd">{escape(audit.reproduce(first))}</code></p>\n'
        '<table class="groups"><thead><tr><th class="n">cases</th><th>kind · point · delivery</th>'
        f"<th>reproduce its first case (the count lists its cases)</th></tr></thead><tbody>{groups}</tbody></table>\n"
        f'<details class="members" data-cause="{number}"><summary>all {cause.count} cases</summary>'
        f'<p>{_filter_link("show them in the case table", cause=str(number))}</p><ol class="members"></ol></details>\n'
        "</details>"
    )


def _group_row(audit: Audit, number: int, group: Group) -> str:
    key = _group_key(number, group)
    first = group.representative
    return (
        f'<tr><td class="n">{_filter_link(str(group.count), group=key)}</td><td>{_text(group.where)}</td>'
        f'<td><code class="cmd">{escape(audit.reproduce(first))}</code></td></tr>'
    )


def _group_key(number: int, group: Group) -> str:
    """How the case table's `group` filter names a group: `3/schema/post_seal/in_place`."""
    return f"{number}/{group.kind}/{group.point}/{group.delivery}"


def _cause_of(audit: Audit, case: CaseRecord) -> tuple[str | None, str | None]:
    """The number of a case's cause and its group's key; None for a case that does not fail."""
    found = audit.cause_of(case)
    if found is None:
        return None, None
    number, group = found
    return str(number), _group_key(number, group)


def _totals(audit: Audit) -> str:
    totals = audit.totals
    rows = [
        (_filter_link(_verdict(kind), verdict=kind), f'<span id="total-{kind}">{totals[kind]}</span>')
        for kind in VerdictKind
    ]
    rows.append(("<strong>total</strong>", f'<strong id="total-cases">{audit.count}</strong>'))
    parts = [_facts(audit), _table(("verdict", "cases"), rows, numeric=(1,))]
    if endings := audit.endings():
        ended = " · ".join(f"{count} {ending}" for ending, count in endings.items())
        parts.append(f"<p>Requests ended: {_text(ended)}.</p>")
    if audit.accepted:
        accepted = (
            f"{len(audit.accepted)} failing cases are accepted by expectations (see below): they do not fail the gate."
        )
        parts.append(f"<p>{accepted}</p>")
    parts += [f"<p><strong>threshold not reached:</strong> {_text(shortfall)}</p>" for shortfall in audit.shortfalls]
    return _section("totals", "Totals", *parts)


def _matrix(audit: Audit) -> str:
    cells, points = audit.matrix(), audit.points()
    lanes = audit.by_lane()
    # Each table is shaded against its own largest cell: a lane holds many points' cases.
    most = max(map(_failing_in, cells.values()), default=0)
    rows = [
        (_code(kind), *(_cell(cells.get((kind, point), Counter()), most, kind=kind, point=point) for point in points))
        for kind in audit.kinds()
    ]
    heads = ("kind", *(_point(point) for point in points))
    most = max(map(_failing_in, lanes.values()), default=0)
    by_lane = [
        (_code(lane), _code(mode), _cell(cell, most, lane=lane, hooks=mode)) for (lane, mode), cell in lanes.items()
    ]
    return _section(
        "matrix",
        "Matrix: mutation kind × injection point",
        "<p>Each cell is the number of failing cases (survived, false_reject or error) of that kind at that point, "
        "shaded by how many: the darker, the more. Its tooltip has passing/in-scope checks and the whole split, and it "
        "links to its cases in the table below; — marks a cell with no case in scope.</p>",
        f'<div class="wide">{_table(heads, rows, "matrix heat", numeric=range(1, len(points) + 1))}</div>',
        "<p>By lane and hook mode:</p>",
        _table(("lane", "hook mode", "failing"), by_lane, "matrix heat", numeric=(2,)),
    )


def _point(point: str) -> str:
    # Point names are snake_case: let a narrow column wrap them at an underscore.
    return "<code>" + _text(point).replace("_", "_<wbr>") + "</code>"


def _failing_in(counts: Counter[VerdictKind]) -> int:
    return sum(n for kind, n in counts.items() if not kind.ok)


def _cell(counts: Counter[VerdictKind], most: int, **state: str) -> str:
    """The failing count, shaded against `most`, linking to the cell's cases."""
    in_scope = sum(n for kind, n in counts.items() if kind is not VerdictKind.EQUIVALENT)
    if not in_scope:
        tooltip = f"{counts[VerdictKind.EQUIVALENT]} equivalent" if counts else "no cases"
        return (
            _filter_link('<span class="none">—</span>', title=tooltip, **state)
            if counts
            else '<span class="none">—</span>'
        )
    failing = _failing_in(counts)
    shade = -(-failing * _SHADES // most) if failing else 0  # rounded up: any failure shows
    passing = counts[VerdictKind.KILLED] + counts[VerdictKind.PASSED]
    split = ", ".join(f"{n} {kind}" for kind, n in _in_order(counts, VerdictKind))
    link = _filter_link(str(failing), title=f"{passing}/{in_scope} in-scope checks pass: {split}", **state)
    return f'<span class="heat heat-{shade}">{link}</span>'


def _pairing(audit: Audit) -> str:
    run = audit.run
    if not run.red_target:
        return _section("pairing", "RED/GREEN pairing", "<p>Pairing was off: no red target.</p>")
    rows = [
        (_code(kind), str(cases), str(red), str(controlled))
        for kind, (cases, red, controlled) in audit.pairing().items()
    ]
    return _section(
        "pairing",
        "RED/GREEN pairing",
        f'<p><span id="controlled">{audit.controlled}</span> of {audit.count} cases are controlled: they '
        "fail on the red "
        f"target {_code(run.red_target)} and pass on {_code(run.target)}. {audit.red_failing} fail on the "
        "red target.</p>",
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
        _table(
            ("defect", *map(_code, kinds), "killed by", "first killing case"), rows, numeric=range(1, len(kinds) + 2)
        ),
    )


def _expectations(audit: Audit) -> str:
    if not audit.expectations:
        return _section("expectations", "Expectations", "<p>None: no deviation is accepted.</p>")
    header = (
        "cases",
        "verdict accepted",
        "reason",
        "expires",
        "standing",
        "why",
        "planned cases named",
        "cases accepted",
    )
    rows = [
        (_code(e.case), _code(e.verdict), _text(e.reason), _text(e.expires.isoformat()), _standing(j.standing),
         _text(j.why), _named(audit, j), str(len(j.cases)))
        for j in audit.expectations
        for e in (j.expectation,)
    ]  # fmt: skip
    parts = [_table(header, rows, numeric=(6, 7))]
    if audit.accepted:
        accepted = (
            f"<li>{_verdict(case.verdict.kind)} {_case_link(case.id)}: {_text(case.verdict.reason)}</li>"
            for case in audit.accepted
        )
        parts.append("<p>Accepted cases:</p>\n<ul>" + "".join(accepted) + "</ul>")
    return _section("expectations", "Expectations", *parts)


def _named(audit: Audit, judged: Judged) -> str:
    broad = ' <strong class="standing-fail">broad</strong>' if judged.broad(audit.run.planned) else ""
    return f"{judged.planned}{broad}"


def _standing(standing: Standing) -> str:
    return f'<strong class="standing-{"ok" if standing.ok else "fail"}">{_text(standing)}</strong>'


def _scenarios(audit: Audit) -> str:
    scenarios = audit.run.scenarios
    rows = [
        (
            _code(s.id),
            *map(_text, (s.mode, s.lane, s.outcome)),
            f'<code title="{_text(s.digest)}">{_text(s.digest[:12])}</code>',
        )
        for s in scenarios
    ]
    header = ("scenario", "mode", "lane", "unmutated outcome", "sha256")
    return _section("scenarios", f"Scenarios ({len(scenarios)})", _table(header, rows))


def _scope() -> str:
    def items(lines: Iterable[str]) -> str:
        return "<ul>" + "".join(f"<li>{_text(line)}</li>" for line in lines) + "</ul>"

    return _section(
        "scope",
        "Scope",
        "<p>What this run proves:</p>",
        items(PROVES),
        "<p>What it does not prove:</p>",
        items(DOES_NOT_PROVE),
    )


def _browser(audit: Audit) -> str:
    """The filters and the table the script fills; hidden until the script runs."""
    filters = [
        ("verdict", "verdict", [(kind.value, n) for kind, n in _in_order(audit.totals, VerdictKind)]),
        ("kind", "mutation kind", _counted(audit.facet("kind"), audit.kinds())),
        ("point", "injection point", _counted(audit.facet("point"), audit.points())),
        ("lane", "lane", _counted(audit.facet("lane"), sorted(audit.facet("lane")))),
        ("hooks", "hook mode", _counted(audit.facet("hooks"), ["hooks", "no-hooks"])),
        ("scenario", "scenario", _counted(audit.facet("scenario"), [s.id for s in audit.run.scenarios])),
        ("like", "fails like", [(like.defect, like.count) for like in audit.diagnosis.likely]),
        ("cause", "cause", [(str(number), cause.count) for number, cause in audit.numbered_causes]),
    ]
    selects = "".join(
        f'<label>{label}<select id="f-{name}"><option value="">all</option>'
        + "".join(f'<option value="{_text(value)}">{_text(value)} ({n})</option>' for value, n in options)
        + "</select></label>"
        for name, label, options in filters
    )
    return _section(
        "cases",
        "All cases",
        "<noscript><p>The case table and the causes' member lists need JavaScript; every group of failing cases is "
        "listed above with its first case's reproduce command, and results.json holds every case.</p></noscript>\n"
        '<div id="case-browser" hidden>\n'
        f'<div class="filters">{selects}'
        '<label>group (a cause\'s links set it)<input id="f-group" readonly placeholder="all"></label>'
        '<label>search ids, reasons, diffs, ledger and facts<input type="search" id="f-q" autocomplete="off"></label>'
        '<button type="button" id="case-reset">clear filters</button></div>\n'
        '<output id="case-count" for="f-verdict f-kind f-point f-lane f-hooks f-scenario f-like f-cause '
        'f-group f-q" aria-live="polite">'
        "</output>\n"
        '<table id="case-table"><thead><tr><th>verdict</th><th>case (click for its view)</th><th>ending</th>'
        '<th>red target</th><th>reason</th></tr></thead><tbody id="case-rows"></tbody></table>\n'
        '<button type="button" id="case-more" hidden>show more</button>\n</div>',
    )


def _case_data(audit: Audit) -> str:
    """Every case as JSON for the script, with nothing in it that could end the script element,
    each string as printed (`printable`): the script shows and copies them as the terminal does."""
    strings: dict[str, int] = {}
    lists: dict[tuple[int | None, ...], int] = {}
    shown: dict[str, str] = {}  # most strings repeat across cases: print each once

    def ref(value: str | None) -> int | None:
        if value is None:
            return None
        if (text := shown.get(value)) is None:
            text = shown[value] = printable(value)
        return strings.setdefault(text, len(strings))

    def refs(values: Iterable[str]) -> int:
        return lists.setdefault(tuple(map(ref, values)), len(lists))

    def split(case_id: str) -> list[int | None]:
        # Up to the mutation (`scenario/lane/hooks/point/`) and from it (`kind.delivery:variant:aim`):
        # the parts of the printed id, which join back to it (the printed parts of the raw id might not).
        case_id = printable(case_id)
        colon = case_id.find(":")
        cut = case_id.rfind("/", 0, colon if colon >= 0 else len(case_id)) + 1
        return [_interned(strings, case_id[:cut]), _interned(strings, case_id[cut:])]

    def around(case_id: str, reproduce: str) -> list[int | None]:
        # The command is printed already, its id too.
        before, found, after = reproduce.partition(printable(case_id))
        return [_interned(strings, before), _interned(strings, after)] if found else [_interned(strings, reproduce)]

    def encode(case: CaseRecord) -> list[Any]:
        row: list[Any] = []
        for _, how, read in _FIELDS:
            value = read(audit, case)
            if how == "ref":
                row.append(ref(value))
            elif how == "refs":
                row.append(refs(value))
            elif how == "split":
                row.append(split(value))
            elif how == "around":
                row.append(around(case.id, value))
            else:
                row.append(value)
        return row

    rows = [encode(case) for case in audit.cases]  # fills `strings`, so first
    fields = [(name, how) for name, how, _ in _FIELDS]
    text = orjson.dumps({"fields": fields, "strings": list(strings), "lists": list(lists), "cases": rows}).decode()
    for unsafe, escaped in _SCRIPT_UNSAFE:
        text = text.replace(unsafe, escaped)
    return text


def _interned(strings: dict[str, int], text: str) -> int:
    """The index of text already printed in the string table."""
    return strings.setdefault(text, len(strings))


def _counted(counts: Counter[str], values: Iterable[str]) -> list[tuple[str, int]]:
    return [(value, counts[value]) for value in values if counts[value]]


def _in_order(counts: Counter[Any], order: Iterable[Any]) -> list[tuple[Any, int]]:
    return [(item, counts[item]) for item in order if counts[item]]


def _section(anchor: str, title: str, *parts: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_text(title)}</h2>\n' + "\n".join(parts) + "\n</section>"


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


def _text(text: str) -> str:
    """Untrusted text as the terminal shows it (`printable`), escaped for HTML: a bidi control or
    an invisible character would reorder or hide it on the page as on a terminal."""
    return escape(printable(text))


def _code(text: str) -> str:
    return f"<code>{_text(text)}</code>"


def _case_link(case_id: str, **state: str) -> str:
    """A link to the case's view, in the case table filtered by `state`."""
    # Ids are long paths: let them wrap after a slash rather than at a hyphen.
    return _filter_link(f"<code>{_text(case_id).replace('/', '/<wbr>')}</code>", **state, case=case_id)


def _filter_link(inner: str, title: str = "", **state: str) -> str:
    """A link to the case table filtered by `state` (the hash keys of report.js), each value as
    printed, since the embedded cases hold their text so."""
    tooltip = f' title="{_text(title)}"' if title else ""
    shown = {key: printable(value) for key, value in state.items()}
    return f'<a href="{escape("#" + urlencode(shown))}"{tooltip}>{inner}</a>'
