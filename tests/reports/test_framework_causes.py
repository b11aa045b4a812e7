"""The README's LangChain agent: its own flaw is the first cause every report shows, and what
LangChain's schema conversion causes itself is listed apart, after it, with what to do about it."""

import io
import json
from pathlib import Path

import jsonschema
import orjson
import pytest
from rich.console import Console

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import read_results, write_results
from toolsurface.harness._types import VerdictKind
from toolsurface.reports import THEME, Audit, RunSummary, render_html, render_markdown
from toolsurface.reports._audit_json import render_json

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "reports" / "audit.schema.json").read_text())

APP = "langchain:tests.fixtures.agents.langchain_app:build"
SELECT = [
    # Legitimate changes on 128 tools, some with `$defs`: LangChain's conversion alone fails them.
    "desk-research-main-mcp-128-tools/main/no-hooks/after:ProviderLimit/legit.*",
    # The same on 140 tools: `ProviderLimit` cuts them to 128, the agent's own flaw.
    "desk-research-main-openai-over-tool-limit/main/hooks/after:ProviderLimit/legit.*:messages",
    # Deletes nothing refuses, sent through the conversion: the agent's own, the conversion beside it.
    "desk-research-main-mcp-128-tools/main/no-hooks/after:ProviderLimit/delete.*:first:*",
]
CUT = "dispatched N of N required tools instead of an explicit capacity result"


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    session = prepare(RunOptions(target=APP, red_target="none", select=SELECT))
    return Audit(read_results(write_results(tmp_path_factory.mktemp("run"), session, session.results())))


def test_what_langchains_conversion_causes_is_the_frameworks_own_and_still_fails(audit):
    (framework,) = audit.framework_causes
    assert framework.reason == "dispatched a surface that differs from the expected one: changed N schema places"
    assert {case.case.mutation.kind for case in framework.members} == {"legit"}
    assert all(case.verdict.kind is VerdictKind.SURVIVED for case in framework.members)
    assert not audit.ok and len(audit.failing) == audit.count
    assert audit.framework_remedy.startswith("LangChain converts each tool on its way to the model")


def test_the_agents_own_causes_come_first_and_say_only_what_it_did(audit):
    # Fewer cases than the framework's cause, and still first.
    assert [(cause.count, cause.reason) for cause in audit.causes] == [
        (4, CUT),
        (2, "dispatched N request(s) with the change: removed N tools"),
    ]
    assert audit.framework_causes[0].count == 6
    # A delete sent through the conversion is the agent's: its reason and diff leave the rewrite out.
    deleted = audit.causes[1].representative
    assert not deleted.evidence.framework_own
    assert (
        deleted.verdict.reason
        == "dispatched 1 request(s) with the change: removed 'market__search_instruments' (was at 0)"
    )
    assert deleted.evidence.diff == ("removed 'market__search_instruments' (was at 0)",)
    numbered = [number for number, _ in audit.numbered_causes]
    assert numbered == [1, 2, 3] and audit.cause_of(audit.framework_causes[0].representative)[0] == 3


def test_the_terminal_shows_the_agents_causes_then_the_frameworks_with_the_remedy(audit):
    console = Console(file=io.StringIO(), width=100, color_system=None, theme=THEME)
    console.print(RunSummary(audit, "out/results.json"), soft_wrap=True)
    text = console.file.getvalue()
    ours, framework, remedy = (
        text.index("× 2: dispatched N request(s) with the change: removed N tools"),
        text.index("the framework's own: 6 failing cases in 1 causes"),
        text.index("  what to do: LangChain converts each tool"),
    )
    assert text.index(f"× 4: {CUT}") < ours < framework < remedy < text.index("× 6: dispatched a surface that differs")


def test_the_audit_and_the_html_report_list_the_frameworks_causes_apart(audit):
    markdown = render_markdown(audit)
    assert "## Failures by cause (6 failing cases, 2 causes)" in markdown
    assert "6 more failing cases are the framework's own, listed apart after these" in markdown
    assert markdown.index("### 2. `survived` × 2") < markdown.index("## The framework's own")
    assert markdown.index("## The framework's own") < markdown.index("### 3. `survived` × 6")
    assert "What to do: LangChain converts each tool on its way to the model" in markdown
    html = render_html(audit)
    assert html.index('id="cause-2"') < html.index('<h3 id="framework">') < html.index('id="cause-3"')


def test_the_json_audit_marks_each_framework_case_and_gives_the_remedy(audit):
    document = orjson.loads(render_json(audit))
    jsonschema.validate(document, SCHEMA)
    own = [case["id"] for case in document["failing"] if case["framework_own"]]
    assert len(own) == document["framework"]["failing"] == 6
    assert all(case.startswith("desk-research-main-mcp-128-tools/") for case in own)
    assert document["framework"]["remedy"].startswith("LangChain converts each tool on its way to the model")
