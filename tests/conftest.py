import importlib.abc
import os
import sys

import pytest
from hypothesis import settings

from tests.test_cli import results, toolsurface


class _CheckoutFolders(importlib.abc.MetaPathFinder):
    """Refuses the checkout's folders by their bare names.

    From the repository root they are importable as `harness`, `scenarios`, …, which would load a
    second copy of the package beside the installed `toolsurface`, with enums that compare
    unequal to its own: in a test, `import harness` is a bug.
    """

    FOLDERS = frozenset(
        {"contract", "common", "guard", "scenarios", "mutators", "harness", "scan", "reports", "cli", "examples"}
    )

    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in self.FOLDERS:
            raise ImportError(f"import toolsurface.{name}, not the checkout's folder {name!r}", name=name)
        return None


sys.meta_path.insert(0, _CheckoutFolders())

# A signing key or a demand for signatures in the shell that runs the tests would sign, or refuse,
# every file they write and read, the installed command's included: each test that signs sets its own.
for _variable in ("TOOLSURFACE_SIGNING_KEY", "TOOLSURFACE_REQUIRE_SIGNATURE"):
    os.environ.pop(_variable, None)

# CI runs are derandomized: the same commit gives the same examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def default_run(tmp_path_factory):
    """`toolsurface run` as CI runs it, writing every report: the whole default matrix, run once for
    all the tests that read it. They are marked `xdist_group("default-run")`, so that one worker
    (`--dist loadgroup`) runs them all. Its results.json is checked against the schema once, here:
    at this size that alone takes seconds."""
    out = tmp_path_factory.mktemp("default-run")
    done = toolsurface("run", "--format", "md,html,junit", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    return done, out, results(out)


def pytest_collection_modifyitems(items):
    """Tests that run the whole default matrix go first: started last, one of them would leave the
    other worker idle for its length at the end of a `-n auto` run."""
    items.sort(key=lambda item: item.get_closest_marker("whole_matrix") is None)
