import datetime
import html
import re
from dataclasses import asdict, replace

import pytest
from markdown_it import MarkdownIt

from tests.fixtures.hostile_records import ACTING, everywhere
from toolsurface.common._printable import hidden, printable
from toolsurface.harness._config import Spec
from toolsurface.harness._expectations import Expectation, Judged, Standing
from toolsurface.harness._record import Environment
from toolsurface.harness._types import VerdictKind
from toolsurface.reports import Audit, render_html, render_markdown
from toolsurface.reports._markdown import (
    FULL_LIST,
    MAX_CAUSES,
    MAX_CAUSES_SHOWN,
    MAX_GROUPS_SHOWN,
    _command,
    _prose,
    _table,
)

HOSTILE = '</script><img src=x onerror="window.__pwned=1">`|*bold*|`<script>window.__pwned=2</script>'


def html_of(markdown):
    """Markdown as a viewer that lets raw HTML through would render it (GitHub keeps tables and inline HTML)."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


@pytest.fixture(scope="module")
def failing_record(recorded):
    return recorded(target="reference:defect/no-settle", select=["etf-compare-main-openai/*/evidence/*"], defects=True)


def test_the_totals_line_equals_results_json(failing_record):
    text = render_markdown(Audit(failing_record))
    totals = asdict(failing_record.summary.totals)
    in_scope = totals["cases"] - totals["equivalent"]
    failed = (
        f"{totals['survived']} survived"
        if not totals["error"]
        else f"{totals['survived']} survived; {totals['error']} error"
    )
    assert (
        f"**FAIL** — {totals['killed'] + totals['passed']}/{in_scope} in-scope checks pass; {failed}. By verdict: "
        in text
    )
    for verdict in ("killed", "passed", "survived", "false_reject", "error", "equivalent"):
        assert f"| `{verdict}` | {totals[verdict]} |" in text
    assert f"| **total** | **{totals['cases']}** |" in text


def test_failures_are_shown_by_cause_with_a_reproduce_command_per_group(failing_record):
    audit = Audit(failing_record)
    text = render_markdown(audit)
    assert (
        audit.causes
        and f"## Failures by cause ({len(audit.failing)} failing cases, {len(audit.causes)} causes)" in text
    )
    # Near the top: before the totals, the matrix and the long tables.
    assert text.index("## Failures by cause") < text.index("## Totals")
    for number, cause in enumerate(audit.causes[:MAX_CAUSES_SHOWN], 1):
        assert f"| {number} | {cause.count} | `{cause.verdict}` | {_prose(cause.reason)} |" in text
        assert f"### {number}. `{cause.verdict}` × {cause.count}: {_prose(cause.reason)}" in text
        assert f"  - reproduce: `{audit.reproduce(cause.representative)}`" in text
        for group in cause.groups[:MAX_GROUPS_SHOWN]:
            assert (
                f"| {group.count} | `{group.kind}` | `{group.point}` | `{group.delivery}` | "
                f"`{audit.reproduce(group.representative)}` |" in text
            )
    assert f"Every failing case: {FULL_LIST}." in text and "results.json" in FULL_LIST and "junit.xml" in FULL_LIST


def test_the_audit_stays_bounded_however_many_cases_fail(failing_record):
    """Ten times the failing cases, each with a reason of its own, and the audit does not grow past its caps."""
    audit = Audit(failing_record)
    template = audit.failing[0]
    many = [
        replace(
            template,
            case=replace(template.case, id=f"{template.id}#{n}", index=10_000 + n),
            verdict=replace(
                template.verdict, reason=f"{template.verdict.reason} (cause {chr(65 + n % 26)}{chr(65 + n // 26 % 26)})"
            ),
        )
        for n in range(8_000)
    ]
    grown = Audit(replace(failing_record, cases=(*failing_record.cases, *many)))
    text = render_markdown(grown)
    assert len(grown.causes) > MAX_CAUSES and len(grown.failing) > 8_000
    assert len(text.encode()) < 300_000
    assert f"{len(grown.causes) - MAX_CAUSES} more causes" in text
    assert text.count("  - reproduce: ") == MAX_CAUSES_SHOWN


def test_the_matrices_and_the_scope_statement_are_there(failing_record):
    text = render_markdown(Audit(failing_record))
    assert "| kind | `evidence` |" in text
    assert "| `main` | `no-hooks` |" in text
    assert "## RED/GREEN pairing" in text and "## Defect kill matrix" in text
    assert "| `no-settle` |" in text
    assert "What it does not prove:" in text and "Model tool-choice quality" in text and "Latency" in text


def test_untrusted_strings_render_as_text(failing_record):
    run = failing_record.run
    run = replace(
        run, spec=Spec(HOSTILE, HOSTILE), target=HOSTILE, red_target=HOSTILE, select=(HOSTILE,),
        environment=Environment(HOSTILE, HOSTILE), defects=(HOSTILE, *run.defects[1:]),
        scenarios=(replace(run.scenarios[0], id=HOSTILE, digest=HOSTILE), *run.scenarios[1:]),
    )  # fmt: skip
    expectation = Expectation(HOSTILE, VerdictKind.SURVIVED, HOSTILE, datetime.date(2027, 1, 1))
    gate = replace(
        failing_record.summary.gate,
        shortfalls=(HOSTILE,),
        expectations=(Judged(expectation, Standing.STALE, HOSTILE, 1, ()),),
    )
    at, case = next((at, c) for at, c in enumerate(failing_record.cases) if c.verdict.kind is VerdictKind.SURVIVED)
    case = replace(
        case, case=replace(case.case, id=HOSTILE), verdict=replace(case.verdict, reason=HOSTILE),
        evidence=replace(case.evidence, diff=(HOSTILE,)),
    )  # fmt: skip
    cases = (*failing_record.cases[:at], case, *failing_record.cases[at + 1 :])
    summary = replace(failing_record.summary, gate=gate)
    html = html_of(render_markdown(Audit(replace(failing_record, run=run, cases=cases, summary=summary))))
    assert not re.search(r"<(img|script)", html, re.IGNORECASE)
    assert html.count("&lt;img src=x onerror=") == html.count("&lt;script&gt;window.__pwned=2")
    # Shown as text where each is shown: the title and run facts (spec id and title twice, Python and platform,
    # both targets, the select glob), then every section that lists one.
    head, *sections = html.split("<h2>")
    assert head.count("&lt;img src=x onerror=") >= 9
    for title in (
        "Failures by cause",
        "Totals",
        "RED/GREEN pairing",
        "Defect kill matrix",
        "Expectations",
        "Scenarios",
    ):
        (section,) = [section for section in sections if section.startswith(title)]
        assert "&lt;img src=x onerror=" in section, title
    # A pipe in an untrusted string never splits a table row into more cells.
    assert all(row.count("<td") <= 7 for row in re.findall(r"<tr>.*?</tr>", html, re.DOTALL))


def test_a_run_without_expectations_says_so_in_the_words_the_html_uses(failing_record):
    audit = Audit(failing_record)
    assert not audit.expectations
    none = "None: no deviation is accepted."
    assert f"## Expectations\n\n{none}\n" in render_markdown(audit)
    assert f"<p>{none}</p>" in render_html(audit)


def test_identifiers_and_counts_read_as_written_and_markup_is_still_escaped():
    assert _prose("dispatched 1 request(s) for req_main_0025") == "dispatched 1 request(s) for req_main_0025"
    assert _prose("_lead_ [x](y) <b>") == r"\_lead\_ \[x\](y) \<b\>"


def code_spans(markdown):
    """The text of every code span as a GFM viewer renders it, table cells included."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    return [
        child.content
        for token in tokens
        if token.type == "inline"
        for child in token.children
        if child.type == "code_inline"
    ]


def test_no_control_bidi_or_separator_character_from_any_field_reaches_the_audit(failing_record):
    hostile = everywhere(failing_record, ACTING)
    audit = Audit(hostile)
    text = render_markdown(audit)
    assert not [char for char in text if hidden(char) and char != "\n"]
    # Every code span renders exactly as the terminal prints its text: the id, a diff line, the
    # target, the scenario and the expectation, backticks, pipes, backslashes and spaces included,
    # in a list item as in a table cell.
    shown = printable(ACTING)
    survivor = next(case for case in hostile.cases if case.id == ACTING)
    spans = code_spans(text)
    assert spans.count(shown) >= 5
    assert spans.count(audit.reproduce(survivor)) == 2  # under its cause, and in its group's row
    commands = [span for span in spans if span.startswith("toolsurface reproduce ")]
    assert set(commands) <= {audit.reproduce(case) for case in audit.failing}

    # Prose shows it as printed too, punctuation and all, on one line.
    def escaped(text):
        return html.escape(text, quote=False).replace('"', "&quot;")

    assert f"<li>representative <code>{escaped(shown)}</code>: {escaped(' '.join(shown.split()))}\n" in html_of(text)


@pytest.mark.parametrize(
    "shown",
    ["a`b", "`lead", "trail`", " both ", "a|b", "a\\|b", "a\\\\|b|", "``x``", "  two  spaces  "],
)
def test_a_code_span_renders_its_text_exactly_in_prose_and_in_a_table(shown):
    item = f"- {_command(shown)}"
    table = "\n".join(_table(("h",), [(_command(shown),)]))
    assert code_spans(item) == [shown] and code_spans(table) == [shown]


def test_the_likely_flaws_come_before_the_causes_each_with_an_example_and_its_command(failing_record):
    audit = Audit(failing_record)
    text = render_markdown(audit)
    (likeness,) = audit.diagnosis.likely
    assert likeness.defect == "no-settle" and likeness.count == len(audit.failing)
    assert text.index("## Likely flaws (1)") < text.index("## Failures by cause")
    case = likeness.representative
    row = (
        f"| `no-settle` | {_prose(likeness.flaw)} | {likeness.count:,} | {likeness.shown:.0%} | "
        f"{_command(printable(case.id))} "
        f"| {_command(audit.reproduce(case))} |"
    )
    assert row in text
    assert "fail like no reference defect" not in text


def test_a_passing_audit_has_no_likely_flaws_section(recorded):
    text = render_markdown(Audit(recorded(select=["web-read-child-single-tool/*/evidence/*"])))
    assert "## Likely flaws" not in text and "## Failures by cause (0 failing cases, 0 causes)" in text
