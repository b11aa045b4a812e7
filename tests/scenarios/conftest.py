import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def scenario_cache(tmp_path_factory):
    """The loader remembers every valid file it loads (`scenarios._validated`); the many documents
    these tests generate are remembered in a folder of the session's, not the user's cache."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = before
