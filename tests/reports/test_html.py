"""The HTML audit: self-contained, the summary equal to the audit, hostile strings kept as text, the case table working.

The report comes from a real run on a copy of a bundled scenario whose tool description is
hostile markup, stored under a folder whose path is that markup too, so the string reaches the
page through every case's reproduce command. The browser tests open the page in headless
Chromium and drive it with real clicks and keystrokes.
"""

import base64
import hashlib
import html
import json
import shlex
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest

from tests.fixtures.hostile_records import ACTING, everywhere, with_case
from toolsurface.common._printable import hidden, printable
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._record import SCHEMA_VERSION
from toolsurface.harness._results import read_results, write_results
from toolsurface.harness._types import VerdictKind
from toolsurface.mutators import Kind
from toolsurface.reports import Audit, render_html
from toolsurface.reports._audit import error_of, ledger_lines
from toolsurface.scenarios import Point

HOSTILE = '</script><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / "bundled" / "etf-compare-main-hooked.json"
SCENARIO = "hostile-etf-compare"
#: Description mutations (on the hostile tool among others), schema edits and legitimate changes on a target
#: with a shared baseline: in-place edits survive, replacements are killed, legitimate changes pass.
SELECT = [f"{SCENARIO}/*/description.*", f"{SCENARIO}/*/schema.*", f"{SCENARIO}/*/legit.*"]
TARGET = "reference:defect/shared-ref"


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    # Each "/" of the hostile string is a folder boundary, so the path holds the string verbatim.
    folder = tmp_path_factory.mktemp("scenarios") / HOSTILE
    folder.mkdir(parents=True)
    scenario = json.loads(BUNDLED.read_text())
    scenario["id"] = SCENARIO
    scenario["description"] = HOSTILE
    tool = next(tool for tool in scenario["contract"]["admitted"] if tool["name"] == "market__web_search")
    tool["description"] = HOSTILE
    path = folder / "scenario.json"
    path.write_text(json.dumps(scenario))
    session = prepare(RunOptions(target=TARGET, scenarios=[path], select=SELECT))
    out = write_results(tmp_path_factory.mktemp("run"), session, session.results())
    return read_results(out)


@pytest.fixture(scope="module")
def audit(record):
    audit = Audit(record)
    verdicts = audit.totals
    assert verdicts[VerdictKind.KILLED] and verdicts[VerdictKind.PASSED] and verdicts[VerdictKind.SURVIVED], verdicts
    return audit


@pytest.fixture(scope="module")
def page(audit):
    return render_html(audit)


class Elements(HTMLParser):
    """Every start tag with its attributes, the text of elements by id, and each script's text."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.scripts, self.styles, self.by_id = [], [], [], {}
        self._open = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        self._open.append((tag, attributes.get("id"), []))

    def handle_endtag(self, tag):
        while self._open:
            name, anchor, text = self._open.pop()
            content = "".join(text)
            if anchor:
                self.by_id[anchor] = content
            if name == "script":
                self.scripts.append((self.tags_of("script")[len(self.scripts)], content))
            if name == "style":
                self.styles.append(content)
            if self._open:
                self._open[-1][2].append(content)
            if name == tag:
                return

    def handle_data(self, data):
        if self._open:
            self._open[-1][2].append(data)

    def tags_of(self, name):
        return [attributes for tag, attributes in self.tags if tag == name]


def cases_in(payload):
    """The cases as the page's script reads them (`decoder` in reports/_html/report.js)."""
    strings, lists = payload["strings"], payload["lists"]

    def ref(index):
        return None if index is None else strings[index]

    for row in payload["cases"]:
        case = {}
        for (name, how), value in zip(payload["fields"], row, strict=True):
            if how == "ref":
                case[name] = ref(value)
            elif how == "refs":
                case[name] = tuple(map(ref, lists[value]))
            elif how == "split":
                case[name] = strings[value[0]] + strings[value[1]]
            elif how == "around":
                case[name] = (
                    strings[value[0]] + case["id"] + strings[value[1]] if len(value) == 2 else strings[value[0]]
                )
            else:
                case[name] = value
        yield case


def in_view(audit, record):
    """What the case view shows of one case, read from its record (not through `_FIELDS`): every
    string as the terminal prints it, the reproduce command printed already."""
    shown = {
        name: tuple(printable(str(item)) for item in value)
        if isinstance(value, tuple)
        else printable(value)
        if isinstance(value, str)
        else value
        for name, value in _in_view(audit, record).items()
    }
    return {**shown, "reproduce": audit.run.reproduce(record.id)}


def _in_view(audit, record):
    case, mutation, evidence, red = record.case, record.case.mutation, record.evidence, record.red_verdict
    return {
        "id": record.id,
        "scenario": case.scenario,
        "lane": case.lane,
        "hook_mode": "hooks" if case.hooks else "no-hooks",
        "point": case.point,
        "kind": mutation.kind,
        "delivery": mutation.delivery,
        "variant": mutation.variant,
        "aim": str(mutation.aim),
        "must": mutation.must,
        "verdict": record.verdict.kind,
        "reason": record.verdict.reason,
        "red_verdict": red and red.kind,
        "red_reason": red and red.reason,
        "controlled": record.controlled,
        "accepted": record.id in audit.gate.accepted,
        "ending": evidence.ending,
        "change": case.change,
        "diff": evidence.diff,
        "before": evidence.before,
        "aftermath": evidence.aftermath,
        "ledger": tuple(str(event) for event in evidence.ledger),
        "points": evidence.points,
        "dispatches": evidence.dispatches,
        "facts": tuple(str(ruling) for ruling in evidence.availability),
        "error": error_of(evidence.stop),
        "defects_killed": record.defects_killed or (),
        "reproduce": audit.run.reproduce(record.id),
        "fails_like": likened(audit).get(record.id),
        **grouped(audit).get(record.id, {"cause": None, "group": None}),
    }


def likened(audit):
    """Per failing case id, the reference defect it fails like, as the case table filters them."""
    return {case.id: likeness.defect for likeness in audit.diagnosis.likely for case in likeness.cases}


def grouped(audit):
    """Per failing case id, its cause's number and its group's key, as the case table filters them."""
    return {
        case.id: {"cause": str(number), "group": f"{number}/{group.kind}/{group.point}/{group.delivery}"}
        for number, cause in enumerate(audit.causes, 1)
        for group in cause.groups
        for case in group.members
    }


def embedded(page):
    (attributes, text), _ = Elements(page).scripts
    assert attributes == {"type": "application/json", "id": "case-data"}
    return text


def hostile_everywhere(record):
    return everywhere(record, HOSTILE)


def test_nothing_loads_from_anywhere(page):
    elements = Elements(page)
    assert "http://" not in page and "https://" not in page and "url(" not in page and "@import" not in page
    assert not {tag for tag, _ in elements.tags} & {
        "link",
        "img",
        "iframe",
        "object",
        "embed",
        "base",
        "source",
        "frame",
    }
    for tag, attributes in elements.tags:
        assert not {"src", "srcset", "action", "formaction", "poster"} & set(attributes), (tag, attributes)
        assert attributes.get("href", "#").startswith("#"), (tag, attributes)
    (policy,) = [a["content"] for a in elements.tags_of("meta") if a.get("http-equiv") == "Content-Security-Policy"]
    assert policy.startswith("default-src 'none'; ")
    # The policy admits the inline stylesheet and script by hash, and nothing else.
    (style,), (_, script) = elements.styles, elements.scripts[1]

    def source(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    assert f"style-src {source(style)};" in policy and f"script-src {source(script)};" in policy
    assert "unsafe" not in policy


def test_the_embedded_json_round_trips_to_the_cases(audit, page):
    payload = json.loads(embedded(page))
    expected = [in_view(audit, case) for case in audit.cases]
    assert sorted(name for name, _ in payload["fields"]) == sorted(expected[0])
    assert list(cases_in(payload)) == expected
    # Interning is what keeps a 50,000-case page small: each repeated string is stored once (a case's
    # id is its own; its recording, point, kind, verdict and most reasons are shared).
    shown = [value for view in expected for value in view.values() if isinstance(value, str)]
    assert len(payload["strings"]) < len(shown) / 3


def test_a_hostile_string_in_every_field_stays_text(record):
    hostile_record = hostile_everywhere(record)
    audit = Audit(hostile_record)
    page = render_html(audit)
    assert HOSTILE not in page
    elements = Elements(page)
    assert [tag for tag, _ in elements.tags if tag in ("img", "script")] == ["script", "script"]
    assert not [attributes for _, attributes in elements.tags if any(name.startswith("on") for name in attributes)]
    data = embedded(page)
    assert not set(data) & {"<", ">", "&", "\u2028", "\u2029"}
    # It is shown, escaped, where the summary lists it: read back as text in every section that shows one.
    assert page.count(html.escape(HOSTILE)) >= 20
    shown = elements.by_id
    for section in ("causes", "totals", "pairing", "defects", "expectations", "scenarios", "cases"):
        assert HOSTILE in shown[section], section
    for fact in (
        f"Tool surface audit: {HOSTILE} — {HOSTILE}",
        f"{HOSTILE} (results schema {SCHEMA_VERSION}), Python {HOSTILE} on {HOSTILE}",
    ):
        assert html.escape(fact) in page
    # And carried whole to the case view.
    (hostile,) = [case for case in cases_in(json.loads(data)) if case["reason"] == HOSTILE]
    survivor = next(case for case in hostile_record.cases if case.id == HOSTILE)
    assert hostile == in_view(audit, survivor)
    for name in ("id", "scenario", "variant", "aim", "reason", "red_reason", "error"):
        assert hostile[name] == HOSTILE, name
    for name in ("change", "diff", "points", "defects_killed"):
        assert hostile[name] == (HOSTILE,), name
    assert hostile["ledger"] == (f"{HOSTILE}: reserve {HOSTILE} — REFUSED ({HOSTILE})",)
    assert len(hostile["facts"]) == 2 and all(fact.count(HOSTILE) >= 2 for fact in hostile["facts"])
    assert hostile["reproduce"].count(HOSTILE) == 3  # the case id, the target and the scenario path


def test_a_line_end_for_old_parsers_cannot_end_the_data(record):
    first = record.cases[0]
    edited = with_case(record, 0, replace(first, verdict=replace(first.verdict, reason="a\u2028b\u2029c</script><!--")))
    data = embedded(render_html(Audit(edited)))
    assert not set(data) & {"<", ">", "\u2028", "\u2029"}
    assert next(cases_in(json.loads(data)))["reason"] == "a\\u2028b\\u2029c</script><!--"  # as the terminal prints it


def test_no_control_bidi_or_separator_character_reaches_the_page(record):
    hostile = everywhere(record, ACTING)
    audit = Audit(hostile)
    page = render_html(audit)
    assert not [char for char in page if hidden(char) and char != "\n"]
    # Shown, and carried to the case view, as the terminal prints it; the command as every report prints it.
    shown = printable(ACTING)
    assert page.count(html.escape(shown)) >= 20
    survivor = next(case for case in hostile.cases if case.id == ACTING)
    (view,) = [case for case in cases_in(json.loads(embedded(page))) if case["id"] == shown]
    assert view == in_view(audit, survivor) and view["reason"] == shown and view["diff"] == (shown,)
    assert view["reproduce"] == audit.reproduce(survivor) and shlex.split(view["reproduce"])[2] == shown
    assert f'<code class="cmd">{html.escape(audit.reproduce(survivor))}</code>' in page
    # A link to its view names it as the case data does, so the script finds it.
    assert html.escape("#" + urlencode({"case": shown})) in page


def test_the_summary_shows_the_audits_totals(audit, page):
    shown = Elements(page).by_id
    assert shown["headline"] == audit.headline and shown["gate"].startswith("FAIL" if not audit.ok else "PASS")
    for kind in VerdictKind:
        assert shown[f"total-{kind}"] == str(audit.totals[kind])
    assert shown["total-cases"] == str(len(audit.cases))
    assert shown["controlled"] == str(audit.controlled)
    causes = audit.causes
    assert f"<h2>Failures by cause ({len(audit.failing)} failing cases, {len(causes)} causes)</h2>" in page
    # Every cause and every group of it shows its first case's reproduce command.
    groups = [group for cause in causes for group in cause.groups]
    assert page.count('<code class="cmd">') == len(audit.diagnosis.likely) + len(causes) + len(groups)
    for group in groups:
        assert html.escape(audit.reproduce(group.representative)) in page
    for line in audit.kinds():
        assert f"<code>{line}</code>" in page
    for point in audit.points():
        assert f"<code>{point.replace('_', '_<wbr>')}</code>" in page


def test_the_page_opens_on_the_verdict_then_the_causes(audit, page):
    assert page.index('id="gate"') < page.index('<section id="causes">') < page.index('<section id="totals">')
    assert page.index('<section id="causes">') < page.index('<section id="cases">')
    for number, cause in enumerate(audit.causes, 1):
        assert f'<details class="cause" id="cause-{number}"><summary><span class="count">{cause.count}</span>' in page
        assert f'<details class="members" data-cause="{number}">' in page


def test_every_failing_case_is_in_the_page_with_its_cause(audit, page):
    shown = {case["id"]: case for case in cases_in(json.loads(embedded(page)))}
    assert audit.failing
    for number, cause in enumerate(audit.causes, 1):
        for group in cause.groups:
            key = f"{number}/{group.kind}/{group.point}/{group.delivery}"
            assert f'href="#group={key.replace("/", "%2F")}"' in page
            for case in group.members:
                assert shown[case.id]["cause"] == str(number) and shown[case.id]["group"] == key
    assert all(shown[case.id]["cause"] is None for case in audit.cases if not audit.is_failing(case))


# --- in the browser -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def url(tmp_path_factory, page):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(page, encoding="utf-8")
    return path.as_uri()


def layout(browser):
    """The page's scroll width, its client width and height, and where the likely flaws, the causes and the case table
    start."""
    return browser.execute_script(
        "var page = document.documentElement, top = id => "
        "document.getElementById(id).getBoundingClientRect().top + scrollY;"
        "return {width: page.scrollWidth, client: page.clientWidth, height: page.scrollHeight,"
        " likely: top('likely'), causes: top('causes'), cases: top('cases')};"
    )


def opened(browser, address):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get("about:blank")
    browser.get(address)
    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "case-count").text)
    assert [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"] == []
    return browser


def count_shown(browser, expected):
    """Wait for the count to say `expected` matches; then the rows on the page, every page of them shown."""
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, 10).until(lambda d: d.find_element("id", "case-count").text.startswith(f"{expected} of "))
    more = browser.find_element("id", "case-more")
    while more.is_displayed():
        shown = len(browser.find_elements("css selector", "#case-rows tr.case-row"))
        assert browser.find_element("id", "case-count").text.endswith(f"showing the first {shown}")
        more.click()
    return browser.find_elements("css selector", "#case-rows tr.case-row")


def shown_rows(browser):
    """(verdict, case id) of every row on the page, read in one call."""
    return browser.execute_script(
        "return Array.from(document.querySelectorAll('#case-rows tr.case-row'), "
        "row => [row.querySelector('.verdict').textContent, row.querySelector('.case-link').textContent])"
    )


def searchable(case):
    """What the search box looks through (`searchText` in reports/_html/report.js)."""
    evidence = case.evidence
    lines = (
        case.id,
        case.verdict.reason,
        error_of(evidence.stop) or "",
        *case.case.change,
        *evidence.diff,
        *ledger_lines(case),
        *map(str, evidence.availability),
        *(case.defects_killed or ()),
    )
    return "\n".join(lines).lower()


@pytest.mark.slow
def test_hostile_text_is_shown_as_text_in_the_case_view(browser, url, audit):
    page = opened(browser, url)
    assert page.execute_script("return typeof window.__pwned") == "undefined"
    assert page.execute_script("return [document.images.length, document.scripts.length]") == [0, 2]
    at, survivor = next((at, case) for at, case in enumerate(audit.cases) if case.verdict.kind is VerdictKind.SURVIVED)
    link = page.find_elements("css selector", "#case-rows tr.case-row .case-link")[at]
    assert link.text == survivor.id
    link.click()
    view = page.find_element("css selector", "tr.case-view")
    command = view.find_element("css selector", "code.reproduce")
    assert command.is_displayed() and HOSTILE in command.text and command.text == audit.reproduce(survivor)
    lines = (*survivor.evidence.diff, *ledger_lines(survivor))
    assert survivor.evidence.diff and survivor.evidence.ledger and all(line in view.text for line in lines)
    # The ledger trace is as `toolsurface reproduce` shows it: the reservation as well as its settlement.
    assert any(": reserve " in line for line in ledger_lines(survivor))
    assert f"case={survivor.id}" in page.execute_script("return decodeURIComponent(location.hash)")
    # The policy would stop an injected handler anyway; the view must not have made the element at all.
    made = page.execute_script("return [typeof window.__pwned, document.images.length, document.scripts.length]")
    assert made == ["undefined", 0, 2]


def test_a_case_view_shows_and_copies_an_id_and_command_as_the_terminal_prints_them(browser, record, tmp_path):
    hostile = everywhere(record, ACTING)
    audit = Audit(hostile)
    survivor = next(case for case in hostile.cases if case.id == ACTING)
    path = tmp_path / "report.html"
    path.write_text(render_html(audit), encoding="utf-8")
    shown = printable(ACTING)
    # Opened by a link naming the case, as the summary's links do.
    page = opened(browser, path.as_uri() + "#" + urlencode({"case": shown}))
    view = page.find_element("css selector", "tr.case-view")
    command = view.find_element("css selector", "code.reproduce")
    assert command.text == audit.reproduce(survivor) and shown in view.text
    (link,) = [
        link
        for link in page.find_elements("css selector", "#case-rows tr.case-row .case-link")
        if "touch pwned" in link.text
    ]
    assert link.text == shown
    assert (
        page.execute_script(
            "return document.body.innerText.match(/[\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029\\x1b]/)"
        )
        is None
    )


@pytest.mark.slow
def test_a_verdict_picked_in_the_filter_shows_exactly_its_cases(browser, url, audit):
    from selenium.webdriver.support.ui import Select

    page = opened(browser, url)
    verdict = Select(page.find_element("id", "f-verdict"))
    for kind, expected in audit.totals.items():
        verdict.select_by_value(kind.value)
        assert len(count_shown(page, expected)) == expected
        assert shown_rows(page) == [[kind.value, case.id] for case in audit.cases if case.verdict.kind is kind]
        assert f"verdict={kind}" in page.execute_script("return location.hash")
    verdict.select_by_value("")
    assert len(count_shown(page, len(audit.cases))) == len(audit.cases)


@pytest.mark.slow
def test_typing_a_search_narrows_the_rows(browser, url, audit):
    page = opened(browser, url)
    query = "in_place:append"
    expected = sum(query in searchable(case) for case in audit.cases)
    assert 0 < expected < len(audit.cases)
    page.find_element("id", "f-q").send_keys(query)
    assert len(count_shown(page, expected)) == expected
    assert all(query in case_id for _, case_id in shown_rows(page))
    assert "q=in_place%3Aappend" in page.execute_script("return location.hash")


@pytest.mark.slow
def test_a_filter_in_the_hash_is_applied_on_load(browser, url, audit):
    wanted = [
        c
        for c in audit.cases
        if c.verdict.kind is VerdictKind.SURVIVED
        and c.case.mutation.kind is Kind.DESCRIPTION
        and c.case.point == Point.HOOK
    ]
    assert wanted
    opened_case = wanted[-1]
    page = opened(browser, f"{url}#verdict=survived&kind=description&point=hook&case={opened_case.id}")
    values = [
        page.find_element("id", f"f-{name}").get_attribute("value")
        for name in ("verdict", "kind", "point", "lane", "q")
    ]
    assert values == ["survived", "description", "hook", "", ""]
    assert len(count_shown(page, len(wanted))) == len(wanted)
    assert shown_rows(page) == [["survived", case.id] for case in wanted]
    view = page.find_element("css selector", "tr.case-view")
    assert view.is_displayed() and opened_case.id in view.text and HOSTILE in view.text


@pytest.mark.slow
def test_the_summary_links_filter_the_table(browser, url, audit):
    page = opened(browser, url)
    page.find_element("css selector", '#totals a[href="#verdict=passed"]').click()
    passed = audit.totals[VerdictKind.PASSED]
    assert len(count_shown(page, passed)) == passed
    assert page.find_element("id", "f-verdict").get_attribute("value") == "passed"


@pytest.mark.slow
def test_at_1280_px_the_page_opens_on_the_causes_with_no_sideways_scroll(window_1280, url, audit, tmp_path):
    from selenium.webdriver.support.ui import WebDriverWait

    page = opened(window_1280, url)
    shown = layout(page)
    assert shown["width"] <= shown["client"] <= 1280, shown
    # The verdict and the causes are on the first screen, the case table after them.
    assert shown["causes"] < 1000 < shown["cases"], shown
    page.save_screenshot(str(tmp_path / "report-1280.png"))
    # Everything unfolded, members listed and a case view open: still nothing to scroll sideways to.
    page.execute_script("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    WebDriverWait(page, 10).until(lambda d: len(d.find_elements("css selector", "ol.members li")) == len(audit.failing))
    page.find_element("css selector", "#case-rows tr.case-row .case-link").click()
    _ = page.find_element("id", "matrix").location_once_scrolled_into_view  # reading it scrolls there
    page.save_screenshot(str(tmp_path / "report-1280-unfolded.png"))
    unfolded = layout(page)
    assert unfolded["width"] <= unfolded["client"] <= 1280, unfolded
    assert (tmp_path / "report-1280.png").stat().st_size > 10_000


@pytest.mark.slow
def test_a_groups_count_lists_exactly_its_cases(browser, url, audit):
    page = opened(browser, url)
    number, cause = len(audit.causes), audit.causes[-1]
    group = cause.groups[-1]
    key = f"{number}/{group.kind}/{group.point}/{group.delivery}"
    page.find_element("css selector", f"#cause-{number} > summary").click()
    page.find_element("css selector", f'#cause-{number} a[href="#group={quote(key, safe="")}"]').click()
    assert len(count_shown(page, group.count)) == group.count
    assert shown_rows(page) == [[case.verdict.kind.value, case.id] for case in group.members]
    assert page.find_element("id", "f-group").get_attribute("value") == key


@pytest.mark.slow
def test_a_causes_member_list_links_each_case_to_its_view(browser, url, audit):
    page = opened(browser, url)
    cause = audit.causes[0]
    page.find_element("css selector", "#cause-1 > summary").click()
    page.find_element("css selector", "#cause-1 details.members > summary").click()
    links = page.find_elements("css selector", "#cause-1 ol.members li a")
    assert [link.text for link in links] == [case.id for case in cause.members]
    last = cause.members[-1]
    links[-1].click()
    view = page.find_element("css selector", "tr.case-view")
    assert view.is_displayed() and last.id in view.text and audit.reproduce(last) in view.text
    assert page.find_element("id", "f-cause").get_attribute("value") == ""
