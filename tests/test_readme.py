"""The README's examples and CI recipes run as they are written."""

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def blocks_after(heading, language):
    """The fenced blocks of `language` in the README section under `heading`."""
    section = README.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, re.DOTALL)


def pytest_on(path):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)]
    return subprocess.run(command, capture_output=True, text=True, cwd=path.parent, timeout=600)


def test_the_property_test_example_runs_and_its_guard_is_checked(tmp_path):
    example = tmp_path / "test_example.py"
    (code,) = blocks_after("## Property tests of your own", "python")
    example.write_text(code)
    done = pytest_on(example)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
    # A guard that compares names only must be caught by the same property.
    weak = code.replace(
        "json.dumps(tools, sort_keys=True) != admitted",
        "[t['function']['name'] for t in tools] != [t['function']['name'] for t in json.loads(admitted)]",
    )
    # Without shrinking: the failure is what is checked, not its smallest example.
    weak = "from hypothesis import Phase, settings\n" + weak.replace("@given(requests)", "@settings(phases=[Phase.generate])\n@given(requests)")
    example.write_text(weak)
    done = pytest_on(example)
    assert done.returncode == 1, done.stdout


def test_the_workflow_runs_its_toolsurface_steps_and_uploads_what_they_write(tmp_path):
    workflow = yaml.safe_load(blocks_after("## CI recipes", "yaml")[0])
    steps = workflow["jobs"]["toolsurface"]["steps"]
    (tmp_path / "src").mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "small_guard.py", tmp_path / "src")
    (tmp_path / "myhost").mkdir()
    (tmp_path / "myhost" / "adapter.py").write_text("from toolsurface.harness._reference import GuardedPipeline as factory\n")
    commands = [step["run"] for step in steps if step.get("run", "").startswith("toolsurface ")]
    assert [command.split()[1] for command in commands] == ["scan", "run"]
    installed = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or "toolsurface"
    for command in commands:
        words = [installed, *shlex.split(command)[1:]]
        done = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    uploaded = [step["with"] for step in steps if "uses" in step and "with" in step and "python-version" not in step["with"]]
    paths = [given.get("sarif_file") or given.get("report_paths") or given["path"] for given in uploaded]
    assert paths == ["toolsurface.sarif", "toolsurface-report/junit.xml", "toolsurface-report/"]
    assert all((tmp_path / path).exists() for path in paths)
    assert (tmp_path / "toolsurface-report" / "report.html").is_file()


def test_the_pre_commit_hook_and_its_config_validate(tmp_path):
    manifest = subprocess.run([sys.executable, "-m", "pre_commit", "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")], capture_output=True, text=True)
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(blocks_after("## CI recipes", "yaml")[1])
    done = subprocess.run([sys.executable, "-m", "pre_commit", "validate-config", str(config)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    assert yaml.safe_load(config.read_text())["repos"][0]["hooks"][0]["id"] == hook["id"] == "toolsurface-scan"


def test_the_own_agent_walkthrough_finds_the_flaw_and_the_guard_turns_it_green(tmp_path):
    (app,) = blocks_after("### Your own agent", "python")
    (tmp_path / "myapp.py").write_text(app)
    section = README.split("\n### Your own agent\n", 1)[1]
    commands = re.search(r"```\n(toolsurface .*?)```", section, re.DOTALL).group(1)
    red, green = [shlex.split(line.partition("#")[0]) for line in commands.strip().splitlines()]
    installed = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or "toolsurface"
    over_limit = ["--select", "desk-research-main-openai-over-tool-limit/*/after:ProviderLimit/*"]

    def run(words):
        return subprocess.run([installed, *words[1:], *over_limit, "--out", "out"], cwd=tmp_path, capture_output=True, text=True, timeout=600)

    done = run(red)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "toolsurface reproduce desk-research-main-openai-over-tool-limit/main/hooks/after:ProviderLimit/" in done.stdout
    cases = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    cut = [c for c in cases if c["case"]["mutation"]["kind"] == "legit"]
    assert cut and all(c["verdict"]["reason"] == "dispatched 128 of 140 required tools instead of an explicit capacity result" for c in cut)
    reproduce = [installed, "reproduce", cut[0]["case"]["id"], "--target", "langchain:myapp:build"]
    shown = subprocess.run(reproduce, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert "verdict  survived — dispatched 128 of 140 required tools" in shown.stdout, shown.stdout + shown.stderr
    done = run(green)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no survivors, false rejections or errors" in done.stdout
