"""Everything imports the one installed package, `toolsurface`, never the checkout's folders by their bare names."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import toolsurface

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("contract", "common", "guard", "scenarios", "mutators", "harness", "scan", "reports", "cli", "examples")
SOURCES = [
    *sorted(
        path
        for folder in (*FOLDERS, "tests")
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    ),
    ROOT / "__init__.py",
]


def _bare_imports(path: Path) -> list[str]:
    """`line: statement` for every absolute import of a checkout folder by its bare name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found += [f"{node.lineno}: {ast.unparse(node)}" for name in names if name.split(".")[0] in FOLDERS]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_bare_import_of_a_checkout_folder(path: Path) -> None:
    assert _bare_imports(path) == []


def test_the_lint_finds_a_bare_import(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "import scenarios\nfrom reports._audit import Audit\nfrom toolsurface import harness\nfrom . import mutators\n"
    )
    assert _bare_imports(source) == ["1: import scenarios", "2: from reports._audit import Audit"]


def test_a_bare_import_fails_loudly() -> None:
    for folder in FOLDERS:
        with pytest.raises(ImportError):
            __import__(folder)


def test_every_loaded_module_of_the_package_is_one_copy() -> None:
    home = Path(toolsurface.__file__).resolve().parent
    loaded = {name: module for name, module in sys.modules.items() if name.startswith("toolsurface.") and module}
    assert loaded
    for name, module in loaded.items():
        assert Path(module.__file__).resolve().is_relative_to(home), name


#: What `toolsurface --help` and a command's `--help` must not load: the engine, the reports, the
#: scenarios and what only they use.
HEAVY = (
    "toolsurface.harness._runner",
    "toolsurface.harness._api",
    "toolsurface.reports",
    "toolsurface.scenarios",
    "toolsurface.mutators",
    "jsonschema",
    "hypothesis",
    "libcst",
    "orjson",
    "pydantic",
)
#: Modules loaded by `toolsurface --help` (208 when measured, of which typer, click and rich are
#: about 195), with a margin; it was 498 when the command imported everything up front.
HELP_MODULES = 260


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["import", "--help"]], ids=" ".join)
def test_help_loads_typer_and_rich_and_not_the_engine(argv):
    code = (
        "import atexit, os, sys\n"
        f"sys.argv = ['toolsurface', *{argv!r}]\n"
        "atexit.register(lambda: os.write(2, '\\n'.join(sys.modules).encode()))\n"
        "from toolsurface.cli import main\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "Usage: toolsurface" in done.stdout, done.stderr
    loaded = done.stderr.split()
    assert [name for name in loaded if name.startswith(HEAVY)] == []
    assert len(loaded) < HELP_MODULES


def test_the_choices_named_for_help_are_the_ones_their_modules_define():
    from toolsurface import scenarios
    from toolsurface.cli._app import RESULTS_FILE, ImportKind, ReportName
    from toolsurface.harness import _results
    from toolsurface.reports import ReportFormat

    assert [kind.value for kind in ImportKind] == list(scenarios.IMPORT_KINDS)
    assert [name.value for name in ReportName] == [fmt.value for fmt in ReportFormat]
    assert RESULTS_FILE == _results.RESULTS_FILE
