"""docs/agents.md: each framework's walk-through runs as it is written, with the installed command."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.docs import blocks, section

PAGE = "docs/agents.md"
OVER_LIMIT = "desk-research-main-openai-over-tool-limit"
CUT = "dispatched 128 of 140 required tools instead of an explicit capacity result"
INSTALLED = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or "toolsurface"

#: Each section, and the point its flawed piece hands the request on at.
WALKTHROUGHS = [
    pytest.param("## pydantic-ai", "after:provider_limit", id="pydantic-ai"),
    pytest.param("## OpenAI Agents SDK", "after:AppHooks.on_llm_start", id="openai-agents"),
]


def toolsurface(words, cwd):
    return subprocess.run([INSTALLED, *words], cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("heading, piece", WALKTHROUGHS)
def test_the_walkthrough_finds_the_flaw_in_the_users_piece_and_the_guard_turns_it_green(tmp_path, heading, piece):
    (app,) = [block for block in blocks(PAGE, heading, "python") if block.startswith("# myapp.py\n")]
    (tmp_path / "myapp.py").write_text(app)
    (commands,) = blocks(PAGE, heading, "")
    red, green = [shlex.split(line.partition("#")[0]) for line in commands.strip().splitlines()]
    assert [red[0], green[0]] == ["toolsurface", "toolsurface"] and "--red-target" not in red + green
    # The page's selection of the cut request for the first run; for the guarded one, every kind at
    # the flawed piece on the over-limit request and on a hooked one: seconds, where the full
    # matrix takes minutes.
    (cut_selection,) = re.findall(r"--select '([^']+)'", section(PAGE, heading))
    assert cut_selection == f"{OVER_LIMIT}/*/{piece}/legit.*"
    selection = [
        "--select",
        f"{OVER_LIMIT}/*/{piece}/*",
        "--select",
        f"etf-compare-main-hooked/*/{piece}/*",
        "--out",
        "out",
    ]

    done = toolsurface([*red[1:], "--select", cut_selection, "--out", "out"], tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    shown = [line.strip() for line in done.stdout.splitlines()]
    (printed,) = blocks(PAGE, heading, "text")
    assert all(line.strip() in shown for line in printed.strip().splitlines()), done.stdout
    cases = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    cut = [c for c in cases if c["case"]["scenario"] == OVER_LIMIT and c["case"]["mutation"]["kind"] == "legit"]
    assert cut and all(c["verdict"]["kind"] == "survived" and c["verdict"]["reason"] == CUT for c in cut)
    assert f"toolsurface reproduce {OVER_LIMIT}/main/hooks/{piece}/" in done.stdout

    target = red[red.index("--target") + 1]
    replayed = toolsurface(["reproduce", cut[0]["case"]["id"], "--target", target], tmp_path)
    assert f"verdict  survived — {CUT}" in replayed.stdout, replayed.stdout + replayed.stderr

    done = toolsurface([*green[1:], *selection], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no survivors, false rejections or errors" in done.stdout
    cases = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    over = [c for c in cases if c["case"]["scenario"] == OVER_LIMIT and c["case"]["mutation"]["kind"] == "legit"]
    assert over and all(c["verdict"]["code"] == "capacity_result" for c in over)
