import re

import orjson
import pytest
from markdown_it import MarkdownIt

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.reports import Audit, render_markdown, write_results

HOSTILE = '</script><img src=x onerror="window.__pwned=1">`|*bold*|`<script>window.__pwned=2</script>'


def html_of(markdown):
    """Markdown as a viewer that lets raw HTML through would render it (GitHub keeps tables and inline HTML)."""
    return MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)


@pytest.fixture(scope="module")
def failing_document(tmp_path_factory):
    session = prepare(RunOptions(target="reference:defect/no-settle", select=["etf-compare-main-openai/*/evidence/*"], defects=True))
    return orjson.loads(write_results(tmp_path_factory.mktemp("run"), session, session.results()).read_bytes())


def test_the_totals_line_equals_results_json(failing_document):
    text = render_markdown(Audit.of(failing_document))
    totals = failing_document["totals"]
    in_scope = totals["cases"] - totals["equivalent"]
    assert f"**FAIL** — {totals['killed'] + totals['passed']}/{in_scope} in-scope checks pass: " in text
    for verdict in ("killed", "passed", "survived", "false_reject", "error", "equivalent"):
        assert f"| `{verdict}` | {totals[verdict]} |" in text
    assert f"| **total** | **{totals['cases']}** |" in text


def test_every_failing_case_is_listed_with_its_reproduce_command(failing_document):
    text = render_markdown(Audit.of(failing_document))
    failing = [case for case in failing_document["cases"] if case["verdict"] in ("survived", "false_reject", "error")]
    assert failing and f"## Failing cases ({len(failing)})" in text
    for case in failing:
        assert f"- **{case['verdict']}** `{case['id']}`" in text
        assert f"  - reproduce: `{case['reproduce']}`" in text


def test_the_matrices_and_the_scope_statement_are_there(failing_document):
    text = render_markdown(Audit.of(failing_document))
    assert "| kind | `evidence` |" in text
    assert "| `main` | `no-hooks` |" in text
    assert "## RED/GREEN pairing" in text and "## Defect kill matrix" in text
    assert "| `no-settle` |" in text
    assert "What it does not prove:" in text and "Model tool-choice quality" in text and "Latency" in text


def test_untrusted_strings_render_as_text(failing_document):
    document = dict(orjson.loads(orjson.dumps(failing_document)), spec={"id": HOSTILE, "title": HOSTILE})
    case = next(c for c in document["cases"] if c["verdict"] == "survived")
    case.update(reason=HOSTILE, id=HOSTILE, reproduce=HOSTILE, evidence=dict(case["evidence"], diff=[HOSTILE]))
    html = html_of(render_markdown(Audit.of(document)))
    assert not re.search(r"<(img|script)", html, re.IGNORECASE)
    assert "&lt;img src=x onerror=" in html and "&lt;script&gt;window.__pwned=2" in html
    # A pipe in an untrusted string never splits a table row into more cells.
    assert all(row.count("<td") <= 7 for row in re.findall(r"<tr>.*?</tr>", html, re.DOTALL))
