"""The Markdown audit that closes a spec: what ran, what it proves, and why cases failed.

Its size does not grow with the number of cases: failures are shown by cause, with a few examples
and one reproduce command per group, and the full list is left to results.json and junit.xml.

Strings from scenarios and targets are untrusted (a tool description may hold markup, an ESC or a
bidi control): they are shown as `printable` shows them on the terminal, so no control, separator
or invisible character reaches the file and an id reads the same here as there, and they appear
only in code spans, or in prose with Markdown and HTML punctuation escaped, so a viewer that
renders HTML in Markdown shows them as text.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from toolsurface.common._printable import printable
from toolsurface.harness._expectations import Judged
from toolsurface.harness._types import VerdictKind

from ._audit import DOES_NOT_PROVE, PROVES, Audit
from ._groups import Cause

#: What could start markup mid-line: emphasis, code, links, HTML and entities, table cells, strikethrough.
#: An underscore inside a word (`req_main_0025`) cannot open emphasis in GFM, so only a flanking one is
#: escaped; brackets escaped, `(` `)` and `!` can no longer make a link or an image.
_PUNCTUATION = re.compile(r"([\\`*\[\]<>|~&]|(?<!\w)_|_(?!\w))")

#: Causes in the table, causes shown in full, groups and example ids per cause shown in full, and
#: accepted cases listed: what keeps the audit's size bounded whatever the number of cases.
MAX_CAUSES = 30
MAX_CAUSES_SHOWN = 10
#: Of the causes the target's framework causes itself, how many are shown in full.
MAX_FRAMEWORK_SHOWN = 3
MAX_GROUPS_SHOWN = 8
MAX_EXAMPLES = 3
MAX_ACCEPTED = 50
#: Characters of a reason class shown: a target's own message may be long.
MAX_REASON = 240
#: Where the full list of failing cases is, for every place the audit stops listing.
FULL_LIST = (
    "results.json has every case with its evidence, and junit.xml (`--format junit`) one failed test per failing case"
)


def render_markdown(audit: Audit) -> str:
    return "\n".join(_lines(audit)) + "\n"


def _lines(audit: Audit) -> Iterable[str]:
    yield f"# {_prose(audit.title)}"
    yield ""
    verdict = "PASS" if audit.ok else "FAIL"
    yield f"**{verdict}** — {audit.headline}. By verdict: {audit.split}."
    yield ""
    for judged in audit.broad:
        entry = judged.expectation
        yield f"- **broad expectation** {_code(entry.case)} (`{entry.verdict}`): {audit.reach(judged)}."
    if audit.broad:
        yield ""
    yield from _run_facts(audit)
    yield from _likely(audit)
    yield from _causes(audit)
    yield from _totals(audit)
    yield from _matrix(audit)
    yield from _pairing(audit)
    yield from _defects(audit)
    yield from _expectations(audit)
    yield from _scenarios(audit)
    yield "## Scope"
    yield ""
    yield "What this run proves:"
    yield ""
    yield from (f"- {line}" for line in PROVES)
    yield ""
    yield "What it does not prove:"
    yield ""
    yield from (f"- {line}" for line in DOES_NOT_PROVE)


def _run_facts(audit: Audit) -> Iterable[str]:
    run = audit.run
    rows = [
        ("spec", _prose(audit.spec) if audit.spec else "none configured"),
        ("toolsurface", _prose(audit.versions)),
        ("target under test", _code(run.target)),
        ("red target", _code(run.red_target) if run.red_target else "none (pairing off)"),
        ("seed", str(run.seed)),
        ("cases", audit.coverage(_code)),
        ("expectations judged on", run.date.isoformat()),
    ]
    yield from _table(("", ""), rows)


def _totals(audit: Audit) -> Iterable[str]:
    yield "## Totals"
    yield ""
    totals = audit.totals
    rows = [(f"`{kind}`", str(totals[kind])) for kind in VerdictKind]
    rows.append(("**total**", f"**{audit.count}**"))
    yield from _table(("verdict", "cases"), rows)
    if endings := audit.endings():
        yield "Requests ended: " + " · ".join(f"{count} {ending}" for ending, count in endings.items()) + "."
        yield ""
    if audit.accepted:
        yield (
            f"{len(audit.accepted)} failing cases are accepted by expectations (see below); they do not fail the gate."
        )
        yield ""
    for shortfall in audit.shortfalls:
        yield f"- **threshold not reached:** {_prose(shortfall)}"
    if audit.shortfalls:
        yield ""


def _cell(counts: Counter[VerdictKind]) -> str:
    """`passing/in-scope`, with what failed named beside it."""
    in_scope = sum(n for kind, n in counts.items() if kind is not VerdictKind.EQUIVALENT)
    passing = counts[VerdictKind.KILLED] + counts[VerdictKind.PASSED]
    if not in_scope:
        return "—"
    failed = ", ".join(f"{counts[kind]} {kind}" for kind in VerdictKind if not kind.ok and counts[kind])
    return f"{passing}/{in_scope}" + (f" **{failed}**" if failed else "")


def _matrix(audit: Audit) -> Iterable[str]:
    yield "## Matrix: mutation kind × injection point"
    yield ""
    yield "Each cell is passing/in-scope checks (killed or passed, of every case that is not equivalent)."
    yield ""
    cells, points = audit.matrix(), audit.points()
    rows = [(f"`{kind}`", *(_cell(cells.get((kind, point), Counter())) for point in points)) for kind in audit.kinds()]
    yield from _table(("kind", *map(_code, points)), rows)  # a host's own point may hold a backtick
    yield "By lane and hook mode:"
    yield ""
    lanes = [(f"`{lane}`", f"`{hooks}`", _cell(counts)) for (lane, hooks), counts in audit.by_lane().items()]
    yield from _table(("lane", "hook mode", "checks"), lanes)


def _pairing(audit: Audit) -> Iterable[str]:
    yield "## RED/GREEN pairing"
    yield ""
    run = audit.run
    if not run.red_target:
        yield "Pairing was off: no red target."
        yield ""
        return
    yield (
        f"{audit.controlled} of {audit.count} cases are controlled: they fail on the red target "
        f"{_code(run.red_target)} and pass on {_code(run.target)}. {audit.red_failing} fail on the red target."
    )
    yield ""
    rows = [
        (f"`{kind}`", str(cases), str(red), str(controlled))
        for kind, (cases, red, controlled) in audit.pairing().items()
    ]
    yield from _table(("kind", "cases", "fail on red target", "controlled"), rows)


def _defects(audit: Audit) -> Iterable[str]:
    yield "## Defect kill matrix"
    yield ""
    if audit.defects is None:
        yield "The reference defects were not run (`toolsurface run --defects`)."
        yield ""
        return
    alive = [row.name for row in audit.defects if not row.kills]
    yield (
        f"{len(audit.defects) - len(alive)} of {len(audit.defects)} reference defects are killed: a case "
        "kills one when "
        "the defect lets it survive or falsely rejects it while `reference:guarded` passes it."
    )
    yield ""
    rows = [
        (
            _code(row.name),
            str(row.kills) if row.kills else "**0 — not killed**",
            ", ".join(f"{kind} {count}" for kind, count in row.by_kind.items()) or "—",
            _code(row.first) if row.first else "—",
        )
        for row in audit.defects
    ]
    yield from _table(("defect", "killed by", "by kind", "first killing case"), rows)


def _likely(audit: Audit) -> Iterable[str]:
    """The reference defects the failing cases fail like: only when some do."""
    diagnosis = audit.diagnosis
    if not diagnosis.likely:
        return
    yield f"## Likely flaws ({len(diagnosis.likely)})"
    yield ""
    yield (
        "Each failing case's signature (mutation kind, delivery, boundary, lane, hook mode, verdict, how the request "
        "ended and was settled) matched against the kill signatures of the reference defects, each the guarded design "
        "with one flaw: a host that fails like one fails where and how that flaw fails, so look there "
        "first. A likeness, "
        "not a proof; defects whose cases cannot be told apart are named together (or …), and every failing case is "
        "still in its cause below."
    )
    yield ""
    rows = [
        (
            _code(like.defect) + "".join(f" (or {_code(name)})" for name in like.alike),
            _prose(like.flaw),
            f"{like.count:,}",
            f"{like.shown:.0%}",
            _code(like.representative.id),
            _command(audit.reproduce(like.representative)),
        )
        for like in diagnosis.likely
    ]
    yield from _table(
        ("fails like", "its flaw", "cases", "its signatures where the run fails", "e.g.", "reproduce"), rows
    )
    if diagnosis.unexplained:
        unexplained = diagnosis.unexplained_causes
        yield (
            f"{len(diagnosis.unexplained):,} failing cases fail like no reference defect, in "
            f"{len(unexplained)} causes; the largest:"
        )
        yield ""
        yield from (
            f"- `{cause.verdict}` × {cause.count}: {_reason(cause.reason)}" for cause in unexplained[:MAX_EXAMPLES]
        )
        yield ""


def _causes(audit: Audit) -> Iterable[str]:
    causes, framework = audit.causes, audit.framework_causes
    own = len(audit.failing) - audit.framework_own
    yield f"## Failures by cause ({own} failing cases, {len(causes)} causes)"
    yield ""
    if framework:
        yield (
            f"{audit.framework_own} more failing cases are the framework's own, listed apart after these "
            "([The framework's own](#the-frameworks-own))."
        )
        yield ""
    if not causes and not framework:
        yield "None: no case survived, was falsely rejected, or errored without an accepted expectation."
        yield ""
        return
    yield (
        "A cause is a failing verdict and its reason with tool names, requests, paths and numbers left out; "
        "its cases are grouped by mutation kind, injection point and delivery. Largest first."
    )
    yield ""
    yield from _cause_list(audit, causes, 1)
    if framework:
        yield from _framework(audit, framework, len(causes) + 1)
    yield f"Every failing case: {FULL_LIST}."
    yield ""


def _framework(audit: Audit, causes: Sequence[Cause], first: int) -> Iterable[str]:
    """The causes the target's framework causes itself, apart, with what the user can do about them."""
    yield "## The framework's own"
    yield ""
    yield (
        f"{audit.framework_own} failing cases in {len(causes)} causes where what reached the model is what the "
        "framework makes of the expected tools: nothing else differs. They fail all the same. What to do: "
        f"{_prose(audit.framework_remedy)}."
    )
    yield ""
    yield from _cause_list(audit, causes, first, MAX_FRAMEWORK_SHOWN)


def _cause_list(audit: Audit, causes: Sequence[Cause], first: int, shown: int = MAX_CAUSES_SHOWN) -> Iterable[str]:
    """A table of causes numbered from `first`, then the first `shown` of them in full."""
    if not causes:
        return
    numbered = list(enumerate(causes, first))
    rows = [
        (str(number), str(cause.count), f"`{cause.verdict}`",
         _reason(cause.reason), _prose(cause.groups[0].where), str(len(cause.groups)))
        for number, cause in numbered[:MAX_CAUSES]
    ]  # fmt: skip
    yield from _table(
        ("#", "cases", "verdict", "reason class", "largest group: kind · point · delivery", "groups"), rows
    )
    if len(causes) > MAX_CAUSES:
        rest = causes[MAX_CAUSES:]
        yield f"{len(rest)} more causes ({sum(cause.count for cause in rest)} cases) are not shown: {FULL_LIST}."
        yield ""
    for number, cause in numbered[:shown]:
        yield from _cause(audit, number, cause)


def _cause(audit: Audit, number: int, cause: Cause) -> Iterable[str]:
    yield f"### {number}. `{cause.verdict}` × {cause.count}: {_reason(cause.reason)}"
    yield ""
    representative = cause.representative
    yield f"- representative {_code(representative.id)}: {_prose(representative.verdict.reason)}"
    for line in representative.evidence.diff[:MAX_EXAMPLES]:
        yield f"  - {_code(line)}"
    yield f"  - reproduce: {_command(audit.reproduce(representative))}"
    others = [case for case in cause.members if case is not representative][:MAX_EXAMPLES]
    if others:
        yield "- also: " + ", ".join(_code(case.id) for case in others)
    yield ""
    shown = cause.groups[:MAX_GROUPS_SHOWN]
    rows = [
        (str(g.count), f"`{g.kind}`", _code(g.point), f"`{g.delivery}`", _command(audit.reproduce(g.representative)))
        for g in shown
    ]
    yield from _table(("cases", "kind", "point", "delivery", "reproduce its first case"), rows)
    if len(cause.groups) > len(shown):
        rest = cause.groups[len(shown) :]
        yield f"{len(rest)} more groups ({sum(g.count for g in rest)} cases) of this cause: {FULL_LIST}."
        yield ""


def _reason(reason: str) -> str:
    return _prose(reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 1] + "…")


def _expectations(audit: Audit) -> Iterable[str]:
    yield "## Expectations"
    yield ""
    if not audit.expectations:
        yield "None: no deviation is accepted."
        yield ""
        return
    rows = [
        (
            _code(e.case),
            f"`{e.verdict}`",
            _prose(e.reason),
            e.expires.isoformat(),
            f"**{j.standing}**",
            _prose(j.why),
            _named(audit, j),
        )
        for j in audit.expectations
        for e in (j.expectation,)
    ]
    yield from _table(
        ("cases", "verdict accepted", "reason", "expires", "standing", "why", "planned cases named"), rows
    )
    if audit.accepted:
        yield "Accepted cases:"
        yield ""
        listed = audit.accepted[:MAX_ACCEPTED]
        yield from (f"- `{case.verdict.kind}` {_code(case.id)}: {_prose(case.verdict.reason)}" for case in listed)
        if len(audit.accepted) > len(listed):
            yield f"- and {len(audit.accepted) - len(listed)} more: results.json has every case."
        yield ""


def _named(audit: Audit, judged: Judged) -> str:
    return f"{judged.planned} **broad**" if judged.broad(audit.run.planned) else str(judged.planned)


def _scenarios(audit: Audit) -> Iterable[str]:
    yield f"## Scenarios ({len(audit.run.scenarios)})"
    yield ""
    rows = [(_code(s.id), s.mode, s.lane, s.outcome, _code(s.digest[:12])) for s in audit.run.scenarios]
    yield from _table(("scenario", "mode", "lane", "unmutated outcome", "sha256"), rows)


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> Iterable[str]:
    yield "| " + " | ".join(header) + " |"
    yield "|" + "|".join(" --- " for _ in header) + "|"
    for row in rows:
        # GFM splits cells on every pipe not right after a backslash, code spans included, then takes
        # one backslash off each `\|`: escaping every pipe gives each cell back as written, a code
        # span's `\|` included (as `\\|`), and a prose `\|` still reads as a pipe.
        yield "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
    yield ""


def _code(text: str) -> str:
    """A code span showing untrusted `text` as the terminal does."""
    return _command(printable(text))


def _command(shown: str) -> str:
    """A code span holding `shown` (text already printed: no line ends) exactly as it is, backticks
    and runs of spaces included, so that what a reviewer copies is what the terminal shows."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", shown)), default=0) + 1)
    # A span strips one space from each end when both have one, and a backtick at an end would
    # join the fence: pad both ends then, unless the text is all spaces, which is never stripped.
    pad = " " if shown.strip(" ") and (shown[0] in "` " or shown[-1] in "` ") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def _prose(text: str) -> str:
    """Untrusted `text` as the terminal shows it, on one line, with Markdown and HTML punctuation escaped."""
    return _PUNCTUATION.sub(r"\\\1", " ".join(printable(text).split()))
