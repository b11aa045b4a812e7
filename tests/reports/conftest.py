import orjson
import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.reports import Audit, write_results


@pytest.fixture
def run_document(tmp_path):
    """The results.json document of a run with these options, written the way `run` writes it."""

    def run(**options):
        session = prepare(RunOptions(**options))
        path = write_results(tmp_path / f"run{len(list(tmp_path.iterdir()))}", session, session.results())
        return orjson.loads(path.read_bytes())

    return run


@pytest.fixture
def audit_of(run_document):
    return lambda **options: Audit.of(run_document(**options))
