"""The README's and docs/ pages' examples run as they are written, and their links and commands hold."""

import ast
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
import yaml
from packaging.requirements import Requirement

from tests.fixtures.docs import PAGES, ROOT, all_blocks, blocks, prose
from toolsurface import (
    Binding,
    FactKind,
    Ledger,
    OwnerFact,
    OwnerFacts,
    RequestRefused,
    SurfaceRefused,
    WebTools,
)
from toolsurface.cli._app import app


def installed():
    return shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or "toolsurface"


def pytest_on(path):
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(path)]
    return subprocess.run(command, capture_output=True, text=True, cwd=path.parent, timeout=600)


def test_the_property_test_example_runs_and_its_guard_is_checked(tmp_path):
    example = tmp_path / "test_example.py"
    (code,) = blocks("docs/property-tests.md", "# Property tests of your own", "python")
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
    weak = "from hypothesis import Phase, settings\n" + weak.replace(
        "@given(requests)", "@settings(phases=[Phase.generate])\n@given(requests)"
    )
    example.write_text(weak)
    done = pytest_on(example)
    assert done.returncode == 1, done.stdout


def test_the_workflow_runs_its_toolsurface_steps_and_uploads_what_they_write(tmp_path):
    workflow = yaml.safe_load(blocks("docs/ci.md", "## CI recipes", "yaml")[0])
    steps = workflow["jobs"]["toolsurface"]["steps"]
    (tmp_path / "src").mkdir()
    shutil.copy(ROOT / "tests" / "fixtures" / "small_guard.py", tmp_path / "src")
    (tmp_path / "myhost").mkdir()
    (tmp_path / "myhost" / "adapter.py").write_text(
        "from toolsurface.harness._reference import GuardedPipeline as factory\n"
    )
    commands = [step["run"] for step in steps if step.get("run", "").startswith("toolsurface ")]
    assert [command.split()[1] for command in commands] == ["scan", "run"]
    for command in commands:
        words = [installed(), *shlex.split(command)[1:]]
        done = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    uploaded = [
        step["with"]
        for step in steps
        if "with" in step and not step["uses"].startswith(("actions/checkout@", "actions/setup-python@"))
    ]
    paths = [given.get("sarif_file") or given.get("report_paths") or given["path"] for given in uploaded]
    assert paths == ["toolsurface.sarif", "toolsurface-report/junit.xml", "toolsurface-report/"]
    assert all((tmp_path / path).exists() for path in paths)
    assert (tmp_path / "toolsurface-report" / "report.html").is_file()


def test_the_signed_shards_recipe_merges_signed_shards_and_verifies_a_sample(tmp_path):
    workflow = yaml.safe_load(blocks("docs/ci.md", "## Signed shards", "yaml")[0])
    assert workflow["env"] == {
        "TOOLSURFACE_SIGNING_KEY": "${{ secrets.TOOLSURFACE_SIGNING_KEY }}",
        "TOOLSURFACE_REQUIRE_SIGNATURE": "1",
    }
    env = {**os.environ, **workflow["env"], "TOOLSURFACE_SIGNING_KEY": "a test secret"}
    (tmp_path / "myhost").mkdir()
    (tmp_path / "myhost" / "adapter.py").write_text(
        "from toolsurface.harness._reference import GuardedPipeline as factory\n"
    )

    def run(command, **changes):
        # Through a shell, as a runner does: the merge's `shard-*` is a glob. One scenario's cases keep it short.
        line = command.replace("toolsurface ", f"{shlex.quote(installed())} ", 1) + (
            " --select 'web-read-child-single-tool/*'" if " run " in command else ""
        )
        return subprocess.run(
            line, shell=True, cwd=tmp_path, env={**env, **changes}, capture_output=True, text=True, timeout=600
        )

    shard, gate = (workflow["jobs"][job] for job in ("shard", "gate"))
    (command,) = [step["run"] for step in shard["steps"] if step.get("run", "").startswith("toolsurface ")]
    # A run that cannot sign (a pull request from a fork gets no secrets) stops before it starts.
    assert run(command.replace("${{ matrix.shard }}", "1"), TOOLSURFACE_SIGNING_KEY="").returncode == 2
    for part in shard["strategy"]["matrix"]["shard"]:
        done = run(command.replace("${{ matrix.shard }}", str(part)))
        assert done.returncode == 0, done.stdout + done.stderr
    commands = [step["run"] for step in gate["steps"] if step.get("run", "").startswith("toolsurface ")]
    assert [command.split()[1] for command in commands] == ["merge", "verify"]
    for command in commands:
        done = run(command)
        assert done.returncode == 0, command + "\n" + done.stdout + done.stderr
    assert "PASS: every re-run verdict is the recorded one (50 cases)" in done.stdout
    assert b'"signature":"hmac-sha256:' in (tmp_path / "toolsurface-report" / "results.json").read_bytes()


def test_the_pre_commit_hook_and_its_config_validate(tmp_path):
    manifest = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
    )
    assert manifest.returncode == 0, manifest.stdout + manifest.stderr
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(blocks("docs/ci.md", "## CI recipes", "yaml")[1])
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    (repo,) = yaml.safe_load(config.read_text())["repos"]
    (used,) = repo["hooks"]
    assert used["id"] == hook["id"] == "toolsurface-scan"
    # A hook of this repository's needs a tag (or commit) of it that exists; a local one needs the manifest's own hook.
    if repo["repo"] == "local":
        assert {key: used[key] for key in ("entry", "types", "require_serial")} == {
            key: hook[key] for key in ("entry", "types", "require_serial")
        }
    else:
        tags = subprocess.run(["git", "-C", str(ROOT), "tag"], capture_output=True, text=True).stdout.split()
        assert repo["rev"] in tags, f"rev {repo['rev']} is not a tag of this repository"


def test_the_pre_commit_recipe_scans_a_commit_s_python_files(tmp_path):
    (tmp_path / ".pre-commit-config.yaml").write_text(blocks("docs/ci.md", "## CI recipes", "yaml")[1])
    shutil.copy(ROOT / "tests" / "fixtures" / "small_guard.py", tmp_path / "guard.py")
    env = {
        **os.environ,
        "PATH": f"{Path(installed()).parent}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / ".cache"),
    }
    for command in (["git", "init", "-q"], ["git", "add", "."]):
        subprocess.run(command, cwd=tmp_path, check=True, env=env)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^toolsurface scan\.+Passed$", done.stdout, re.MULTILINE), done.stdout


def test_every_recipe_installs_toolsurface_from_where_it_is(tmp_path):
    """toolsurface is on no package index: a recipe's pip line names it by a path (or a URL), and
    every path it names is a project, in a checkout of the user's laid out as docs/ci.md says."""
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "toolsurface").symlink_to(ROOT)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "myhost"\nversion = "1"\n')
    lines = [
        step["run"]
        for recipe in blocks("docs/ci.md", "## CI recipes", "yaml")[:1]
        + blocks("docs/ci.md", "## Signed shards", "yaml")
        for job in yaml.safe_load(recipe)["jobs"].values()
        for step in job["steps"]
        if "pip install" in step.get("run", "")
    ]
    assert len(lines) == 3
    for line in lines:
        assert installing(line, tmp_path) >= {"toolsurface", "myhost"}, line


def installing(line, project):
    """The projects `python -m pip install ...` installs in `project`, by name; an error for a name
    left to an index that does not hold it."""
    words = shlex.split(line)
    assert words[:4] == ["python", "-m", "pip", "install"], line
    names = set()
    for word in (word for word in words[4:] if not word.startswith("-")):
        if word.startswith((".", "/")):
            pyproject = (project / word / "pyproject.toml").read_text()
            names.add(tomllib.loads(pyproject)["project"]["name"])
        else:
            requirement = Requirement(word)
            assert requirement.url or requirement.name != "toolsurface", f"{word}: toolsurface is on no package index"
            names.add(requirement.name)
    return names


def test_a_pip_line_that_leaves_toolsurface_to_an_index_is_refused(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "myhost"\nversion = "1"\n')
    with pytest.raises(AssertionError, match="toolsurface is on no package index"):
        installing("python -m pip install toolsurface -e .", tmp_path)
    assert installing("python -m pip install 'toolsurface @ git+https://example.org/t.git@abc' -e .", tmp_path) == {
        "toolsurface",
        "myhost",
    }


def test_the_own_agent_walkthrough_finds_the_flaw_and_the_guard_turns_it_green(tmp_path):
    (myapp,) = blocks("README.md", "### A LangChain agent", "python")
    (tmp_path / "myapp.py").write_text(myapp)
    (commands,) = blocks("README.md", "### A LangChain agent", "")
    red, green = [shlex.split(line.partition("#")[0]) for line in commands.strip().splitlines()]
    over_limit = ["--select", "desk-research-main-openai-over-tool-limit/*/after:ProviderLimit/*"]

    def run(words):
        return subprocess.run(
            [installed(), *words[1:], *over_limit, "--out", "out"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )

    done = run(red)
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        "toolsurface reproduce desk-research-main-openai-over-tool-limit/main/hooks/after:ProviderLimit/" in done.stdout
    )
    cases = json.loads((tmp_path / "out" / "results.json").read_text())["cases"]
    cut = [c for c in cases if c["case"]["mutation"]["kind"] == "legit"]
    assert cut and all(
        c["verdict"]["reason"] == "dispatched 128 of 140 required tools instead of an explicit capacity result"
        and c["verdict"]["code"] == "dispatched_over_capacity"
        for c in cut
    )
    reproduce = [installed(), "reproduce", cut[0]["case"]["id"], "--target", "langchain:myapp:build"]
    shown = subprocess.run(reproduce, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert "verdict  survived — dispatched 128 of 140 required tools" in shown.stdout, shown.stdout + shown.stderr
    done = run(green)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no survivors, false rejections or errors" in done.stdout


def anchor(heading):
    """The fragment GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def links(page):
    """The relative links of `page`'s prose, as (target path, fragment)."""
    found = re.findall(r"\]\(([^)\s]+)\)", prose((ROOT / page).read_text()))
    return [link.partition("#")[::2] for link in found if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize("page", PAGES)
def test_every_link_names_a_page_and_a_heading_that_exist(page):
    for path, fragment in links(page):
        target = (ROOT / page).parent / path if path else ROOT / page
        assert target.exists(), f"{page}: link to {path}, which does not exist"
        if fragment:
            headings = re.findall(r"^#+ (.*)$", prose(target.read_text()), re.MULTILINE)
            assert fragment in {anchor(h) for h in headings}, f"{page}: no heading of {path or page} gives #{fragment}"


def test_the_readme_links_every_page_of_the_reference():
    linked = {(ROOT / path).resolve() for path, _ in links("README.md")}
    assert {ROOT / page for page in PAGES[1:]} <= linked


@pytest.mark.parametrize(("page", "code"), all_blocks("python"), ids=lambda value: value if value in PAGES else "")
def test_every_python_example_parses_and_imports_names_toolsurface_has(page, code):
    tree = compile(code, page, "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module.partition(".")[0] == "toolsurface":
            module = importlib.import_module(node.module)
            missing = [alias.name for alias in node.names if not hasattr(module, alias.name)]
            assert not missing, f"{page}: {node.module} has no {', '.join(missing)}"


def commands_shown():
    """Every `toolsurface` command line in the pages' bare blocks, a synopsis's continued lines joined."""
    shown = []
    for page, block in all_blocks(""):
        command = None
        for line in block.splitlines():
            line = line.removeprefix("$ ").partition("  #")[0]
            if command and line.startswith(" ") and line.strip().startswith("["):
                command += line
                continue
            if command:
                shown.append((page, command))
            command = line if line.startswith("toolsurface ") else None
        if command:
            shown.append((page, command))
    return shown


def options():
    """Each command of the CLI with the options it takes."""
    cli = typer.main.get_command(app)
    return {
        name: {opt for param in command.params for opt in param.opts if opt.startswith("--")}
        for name, command in cli.commands.items()
    }


def test_every_command_shown_in_the_pages_is_one_the_cli_takes():
    takes = options()
    for page, line in commands_shown():
        name = line.split()[1]
        assert name in takes, f"{page}: `{line}`: no command {name!r}"
        unknown = set(re.findall(r"--[a-z][a-z-]*", line)) - takes[name]
        assert not unknown, f"{page}: `{line}`: {name} takes no {', '.join(sorted(unknown))}"


def test_the_synopsis_shows_every_command_and_option():
    (synopsis,) = blocks("docs/commands.md", "## Synopsis", "")
    for name, takes in options().items():
        lines = re.findall(rf"^toolsurface {name}\b.*(?:\n {{2,}}.*)*", synopsis, re.MULTILINE)
        assert lines, f"the synopsis has no `toolsurface {name}`"
        missing = takes - set(re.findall(r"--[a-z][a-z-]*", lines[0]))
        assert not missing, f"the synopsis of `toolsurface {name}` lacks {', '.join(sorted(missing))}"


def run_guard_example(hooks, facts=()):
    """The guard page's host example, run as written on three admitted OpenAI tools, with `hooks`
    as its recovery and hooks and `facts` in its owners' store: what the model was sent, what the
    ledger settled, and the refusal raised, if any."""
    example = blocks("docs/guards.md", "## A host of your own", "python")[0]
    admitted = [
        {
            "type": "function",
            "function": {"name": f"tool_{i}", "description": f"tool {i}", "parameters": {"type": "object"}},
        }
        for i in range(3)
    ]
    sent, events = [], []
    client = SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **request: sent.append(request["tools"])))
    )
    given = {
        "ledger": Ledger("main", events),
        "fact_store": OwnerFacts(tuple(facts)),
        "incoming": SimpleNamespace(binding=BINDING, id="req_1"),
        "admitted_tools": admitted,
        "web_tools": WebTools("tool_0", "tool_1"),
        "run_hooks": lambda tools, messages: (hooks(tools), messages),
        "messages": [{"role": "user", "content": "Compare the two funds."}],
        "fit_context": lambda messages: messages,
        "client": client,
        "model": "a-model",
    }
    try:
        exec(example, given)
        refused = None
    except RequestRefused as refusal:
        refused = refusal
    settled = [(event.request, event.settlement.value) for event in events if event.settlement]
    return admitted, sent, settled, refused


BINDING = Binding("run_1", "scope:research", "inv_1", "conn_1")


def test_the_guard_example_sends_the_admitted_tools_and_settles_them_as_dispatched():
    admitted, sent, settled, refused = run_guard_example(lambda tools: tools)
    assert (sent, settled, refused) == ([admitted], [("req_1", "dispatched")], None)


def test_the_guard_example_starts_a_request_from_the_tools_a_trusted_fact_leaves():
    # A run deadline the host itself recorded for this request hides both web tools from the start:
    # the request goes out without them, not refused as if it had dropped them itself.
    deadline = OwnerFact(FactKind.RUN_DEADLINE_EXHAUSTED, "host", BINDING)
    admitted, sent, settled, refused = run_guard_example(lambda tools: tools, facts=[deadline])
    assert (sent, settled, refused) == ([[admitted[2]]], [("req_1", "dispatched")], None)
    # The same fact bound to another run is not this request's: all three go.
    elsewhere = OwnerFact(
        FactKind.RUN_DEADLINE_EXHAUSTED, "host", Binding("run_2", "scope:research", "inv_1", "conn_1")
    )
    assert run_guard_example(lambda tools: tools, facts=[elsewhere])[1] == [admitted]


def test_the_guard_example_refuses_an_edited_schema_before_the_model_and_settles_it_once():
    def edited(tools):
        tools[1]["function"]["parameters"]["additionalProperties"] = True
        return tools

    admitted, sent, settled, refused = run_guard_example(edited)
    assert isinstance(refused, SurfaceRefused)
    assert (sent, settled) == ([], [("req_1", "pre_dispatch_rejected")])
    # The hook edited the request's own copies, never the admitted list the next request starts from.
    assert "additionalProperties" not in admitted[1]["function"]["parameters"]


#: A subject a sentence may send the reader elsewhere for → what the page it links must hold for it.
SUBJECTS = {
    "pytest plugin": "pytest --toolsurface",
    "expectations file": "## Expectations",
    "GitHub Actions workflow": "runs-on:",
}


def mislinked(readme):
    """Each link of the README that sends a subject to a page without it, as `page: subject`. (The
    pages themselves link asides inside a subject's sentences, which this would misread.)"""
    found = []
    for clause in re.split(r"(?<=[.;|])\s", " ".join(prose(readme.read_text()).split())):
        pages = [path for path, _ in re.findall(r"\]\(([^)#\s]+\.md)(#[^)]*)?\)", clause) if ":" not in path]
        for subject, covered in SUBJECTS.items():
            found += [
                f"{path}: {subject}"
                for path in (pages if subject in clause else ())
                if covered not in (readme.parent / path).read_text()
            ]
    return found


def test_the_readme_sends_each_subject_to_the_page_that_covers_it():
    assert mislinked(ROOT / "README.md") == []


def test_the_subject_check_finds_a_link_to_a_page_without_the_subject(tmp_path):
    (tmp_path / "docs").mkdir()
    for name in ("ci.md", "commands.md"):
        shutil.copy(ROOT / "docs" / name, tmp_path / "docs" / name)
    (tmp_path / "README.md").write_text(
        "The pytest plugin and the expectations file are in [docs/ci.md](docs/ci.md) and "
        "[docs/commands.md](docs/commands.md#the-pytest-plugin).\n"
    )
    assert mislinked(tmp_path / "README.md") == ["docs/ci.md: pytest plugin", "docs/commands.md: expectations file"]
