"""What starting the `toolsurface` command costs: `toolsurface --help` in a new process, against
Python starting and doing nothing, and against the same help with every module the command used
to import eagerly before each command imported its own (libcst, through the scan and the source
mutants), measured in the same run."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON = "python -c pass"
HELP = "toolsurface --help"
#: The modules the CLI no longer imports unless `scan` or `mutants` runs: with them, its old start-up.
EAGER = (
    "toolsurface.scan",
    "toolsurface.harness._mutants",
    "toolsurface.reports._scan",
    "toolsurface.reports._mutants",
)
EAGER_HELP = "toolsurface --help with the old eager imports (libcst, through the scan and the source mutants)"


def command() -> str:
    found = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    if found is None:
        pytest.fail("the `toolsurface` console script is not installed: run the README's install command first")
    return found


def started(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)


def test_python_doing_nothing(benchmark):
    benchmark.group = "startup"
    benchmark.name = PYTHON
    benchmark.pedantic(started, args=([sys.executable, "-c", "pass"],), rounds=15, iterations=1)


def test_help(benchmark):
    benchmark.group = "startup"
    benchmark.name = HELP
    benchmark.extra_info["against"] = PYTHON
    benchmark.pedantic(started, args=([command(), "--help"],), rounds=15, iterations=1)


def test_help_with_the_old_eager_imports(benchmark):
    benchmark.group = "startup"
    benchmark.name = EAGER_HELP
    benchmark.extra_info["against"] = HELP
    # As the console script calls it, with the old imports in front.
    code = (
        f"import sys, {', '.join(EAGER)}\nfrom toolsurface.cli._app import main\nsys.argv = ['toolsurface', "
        "'--help']\nmain()"
    )
    benchmark.pedantic(started, args=([sys.executable, "-c", code],), rounds=15, iterations=1)
