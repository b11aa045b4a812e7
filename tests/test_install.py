"""Installed beside a project of its own: one name at the top of site-packages, a pytest plugin that
stays inert until asked, and a command that runs from the project's folder — even when the project
has top-level packages named like this repository's folders."""

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_cli import toolsurface

ROOT = Path(__file__).resolve().parent.parent
#: Six cases on one small bundled scenario.
SELECT = "web-read-child-single-tool/*/post_seal/delete.*"

#: A project as people write them: its own `scenarios`, `harness`, `mutators` and `reports`, and a
#: test that imports them from the project's root, as its pytest settings say.
PROJECT = {
    "scenarios/__init__.py": 'class Scenario:\n    """A scenario of this project."""\n',
    "harness/__init__.py": 'class Harness:\n    """The project\'s own test harness."""\n',
    "mutators/__init__.py": 'MUTATORS = ("theirs",)\n',
    "reports/__init__.py": 'def render():\n    return "theirs"\n',
    "pyproject.toml": (
        '[project]\nname = "their-agent"\nversion = "0.1.0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\naddopts = "-ra"\n'
    ),
    "tests/test_own.py": (
        "import sys\n\n"
        "from harness import Harness\n"
        "from mutators import MUTATORS\n"
        "from reports import render\n"
        "from scenarios import Scenario\n\n\n"
        "def test_the_project_s_own_packages():\n"
        '    assert Scenario.__module__ == "scenarios" and Harness.__module__ == "harness"\n'
        '    assert MUTATORS == ("theirs",) and render() == "theirs"\n\n\n'
        "def test_toolsurface_loads_its_engine_only_when_asked(pytestconfig):\n"
        '    assert pytestconfig.pluginmanager.has_plugin("toolsurface")\n'
        '    assert ("toolsurface.harness._api" in sys.modules) == pytestconfig.getoption("toolsurface")\n'
    ),
}


@pytest.fixture
def project(tmp_path):
    for name, text in PROJECT.items():
        path = tmp_path / "their-agent" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "their-agent"


def pytest_in(folder, *args):
    # As the project's own CI runs it: this interpreter, from the project's folder, no inherited path.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)  # fmt: skip


def test_a_project_with_packages_named_like_ours_passes_with_and_without_the_plugin(project):
    plain = pytest_in(project)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "2 passed" in plain.stdout
    cases = pytest_in(project, "--toolsurface", "--toolsurface-select", SELECT)
    assert cases.returncode == 0, cases.stdout + cases.stderr
    assert "8 passed" in cases.stdout and "toolsurface gate" in cases.stdout
    run = toolsurface("run", "--select", SELECT, "--out", str(project / "out"), cwd=project)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (project / "out" / "results.json").is_file()


@pytest.mark.slow
def test_a_fresh_install_puts_one_name_at_the_top_of_site_packages(tmp_path):
    # A copy, so that the build's own files (build/, *.egg-info) never land in the checkout.
    ignored = (
        ".git",
        "tests",
        "__pycache__",
        "*.egg-info",
        "build",
        "dist",
        ".hypothesis",
        ".benchmarks",
        ".venv",
        ".typecheck",
    )
    source = shutil.copytree(ROOT, tmp_path / "source", ignore=shutil.ignore_patterns(*ignored))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(source)]
    done = subprocess.run(install, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip())
    version = importlib.metadata.version("toolsurface")
    assert sorted(path.name for path in site.iterdir()) == ["toolsurface", f"toolsurface-{version}.dist-info"]
