import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import read_results, write_results
from toolsurface.reports import Audit


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
