from pathlib import Path

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import read_results, write_results
from toolsurface.reports import Audit

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="session")
def recorded(tmp_path_factory):
    """The record of a run with these options, written the way `run` writes it and read back as `report` reads it."""

    def run(**options):
        session = prepare(RunOptions(**options))
        return read_results(write_results(tmp_path_factory.mktemp("run"), session, session.results()))

    return run


@pytest.fixture
def audit_of(recorded):
    return lambda **options: Audit(recorded(**options))


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[dev]')")
    missing = [str(path) for path in (CHROMIUM, CHROMEDRIVER) if not path.exists()]
    if missing:
        pytest.skip(
            f"headless browser tests need {' and '.join(missing)} (Debian: apt-get install chromium chromium-driver)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1400,1000",
    ):
        options.add_argument(flag)  # fmt: skip
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def window_1280(browser):
    """The browser at 1,280 px wide, set back to its usual 1,400 afterwards."""
    browser.set_window_size(1280, 1000)
    yield browser
    browser.set_window_size(1400, 1000)
