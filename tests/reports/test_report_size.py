"""The legacy path's reports stay small and complete: every bundled case on `reference:legacy`, about
6,400 of them failing, gives a report.html of at most 2 MB and an audit.md of at most 300 KB, with
every failing case still in the page and every group with its reproduce command."""

import html
import json

import pytest

from tests.reports.test_html import cases_in, embedded, layout, opened
from toolsurface.reports import Audit, render_html, render_markdown
from toolsurface.reports._markdown import FULL_LIST

#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("report-size")


@pytest.fixture(scope="module")
def legacy(recorded):
    # The red target would be the legacy path again: pairing adds nothing here but time.
    audit = Audit(recorded(target="reference:legacy", red_target="none"))
    assert len(audit.failing) > 6_000
    return audit


@pytest.fixture(scope="module")
def page(legacy):
    return render_html(legacy)


@pytest.mark.slow
def test_the_legacy_paths_audit_is_small_and_names_where_the_full_list_is(legacy):
    text = render_markdown(legacy)
    assert len(text.encode()) <= 300_000
    assert f"Every failing case: {FULL_LIST}." in text
    assert f"  - reproduce: `{legacy.reproduce(legacy.causes[0].representative)}`" in text


@pytest.mark.slow
def test_the_legacy_paths_page_is_small_and_reaches_every_failure(legacy, page):
    # What grows is each failing case's row of data: about 340 bytes of id, reason and cause each.
    assert len(page.encode()) <= 400 * len(legacy.failing) + 200_000
    shown = {case["id"]: case for case in cases_in(json.loads(embedded(page)))}
    assert all(shown[case.id]["cause"] for case in legacy.failing)
    for cause in legacy.causes:
        for group in cause.groups:
            assert html.escape(legacy.reproduce(group.representative)) in page


@pytest.mark.slow
def test_the_legacy_paths_page_fits_1280_px(window_1280, legacy, page, tmp_path):
    path = tmp_path / "report.html"
    path.write_text(page, encoding="utf-8")
    shown = layout(opened(window_1280, path.as_uri()))
    window_1280.save_screenshot(str(tmp_path / "legacy-1280.png"))
    assert shown["width"] <= shown["client"] <= 1280, shown
    # The likely flaws open the page, the causes follow within two screens.
    assert shown["likely"] < 1000 and shown["causes"] < 2000 < shown["cases"], shown
    # Paged: the whole page of a run of 13,000 cases is a few screens of summary and 200 table rows.
    assert shown["height"] < 40_000, shown
