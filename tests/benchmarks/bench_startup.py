"""What starting the `toolsurface` command costs: `toolsurface --help` and `toolsurface run --help` in
a new process, against Python starting and doing nothing, against importing the CLI's own
libraries alone (typer and rich), and against the same help with the modules the command imported
up front before each command imported its own (the engine, the reports, the scenarios, the
mutators, and, through the scan and the source mutants, libcst), measured in the same run."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON = "python -c pass"
HELP = "toolsurface --help"
RUN_HELP = "toolsurface run --help"
LIBRARIES = "python -c 'import typer, rich.console'"
#: What the command imported up front before each command imported what it needs: with them, its old start-up.
EAGER = (
    "toolsurface.scan",
    "toolsurface.harness._mutants",
    "toolsurface.reports._scan",
    "toolsurface.reports._mutants",
    "toolsurface.harness._api",
    "toolsurface.harness._recorder",
    "toolsurface.harness._results",
    "toolsurface.harness._targets",
    "toolsurface.harness._verify",
    "toolsurface.reports",
    "toolsurface.scenarios",
    "toolsurface.mutators",
    "orjson",
)
EAGER_HELP = "toolsurface --help with the old up-front imports (the engine, reports, scenarios, mutators, libcst)"


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


def test_typer_and_rich_alone(benchmark):
    benchmark.group = "startup"
    benchmark.name = LIBRARIES
    benchmark.extra_info["against"] = PYTHON
    benchmark.pedantic(started, args=([sys.executable, "-c", "import typer, rich.console"],), rounds=15, iterations=1)


def test_help(benchmark):
    benchmark.group = "startup"
    benchmark.name = HELP
    benchmark.extra_info["against"] = [PYTHON, LIBRARIES]
    benchmark.pedantic(started, args=([command(), "--help"],), rounds=15, iterations=1)


def test_a_command_s_help(benchmark):
    benchmark.group = "startup"
    benchmark.name = RUN_HELP
    benchmark.extra_info["against"] = [PYTHON, LIBRARIES]
    benchmark.pedantic(started, args=([command(), "run", "--help"],), rounds=15, iterations=1)


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
