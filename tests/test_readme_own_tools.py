"""The README's agent with tools of its own: tested with one command each, with no recording, and
its tools never run."""

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.docs import blocks

pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")

HEADING = "### An agent with tools of its own"
INSTALLED = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or "toolsurface"


def toolsurface(words, cwd):
    return subprocess.run([INSTALLED, *words], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("own-tools")
    (source,) = [block for block in blocks("README.md", HEADING, "python") if block.startswith("# myagent.py\n")]
    # The tools' services are the user's; a test must show they are never reached.
    (folder / "myagent.py").write_text(
        source.replace("return weather_service", "raise SystemExit  # ").replace(
            "return booking", "raise SystemExit  # "
        )
    )
    (commands,) = blocks("README.md", HEADING, "")
    return folder, [shlex.split(line.partition("#")[0]) for line in commands.strip().splitlines()]


def test_the_flawed_agent_fails_in_its_middleware_s_words(app):
    folder, (red, _) = app
    done = toolsurface([*red[1:], "--select", "own-request/*", "--out", "out"], folder)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "description of 'search_flights' cut from 58 to 20 characters" in done.stdout
    run = json.loads((folder / "out" / "results.json").read_text())["run"]
    # The scenarios derived from its tools, then each at its limits' edges.
    assert [s["id"] for s in run["scenarios"] if "@" not in s["id"]] == [
        "own-request",
        "own-tool-loop",
        "own-over-budget",
        "own-over-tool-limit",
    ]


def test_the_fixed_agent_passes_every_derived_scenario_with_its_tools_answered(app):
    folder, (_, green) = app
    done = toolsurface([*green[1:], "--select", "*/legit.*", "--select", "*/delete.*", "--out", "out"], folder)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = json.loads((folder / "out" / "results.json").read_text())["cases"]
    loop = [c for c in cases if c["case"]["scenario"] == "own-tool-loop" and c["verdict"]["kind"] == "passed"]
    assert loop and all(c["evidence"]["dispatches"] == 3 for c in loop)  # both tool calls answered
    over = {c["case"]["scenario"] for c in cases if c["verdict"]["code"] == "capacity_result"}
    scenarios = {c["case"]["scenario"] for c in cases}
    assert over == {"own-over-budget", "own-over-tool-limit"} | {s for s in scenarios if s.endswith("+1")}


def test_a_factory_that_cannot_build_the_agent_is_one_line(tmp_path):
    (tmp_path / "broken.py").write_text("def build(model):\n    raise RuntimeError('no API key')\n")
    done = toolsurface(["run", "--target", "langchain:broken:build"], tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "RuntimeError: no API key" in done.stderr
