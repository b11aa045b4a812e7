"""End to end: whatever a case id holds, every reproduce command a run prints — on the terminal, in
the Markdown audit, JUnit XML, the HTML page and the JSON audit — re-runs that very case when
pasted into a POSIX shell, and no output carries a character a terminal or an editor acts on."""

import html
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from toolsurface.common._printable import hidden, printable
from toolsurface.harness._results import read_results

SMALL = Path(__file__).resolve().parent.parent / "scenarios" / "bundled" / "web-read-child-single-tool.json"
#: The scenario's one tool, renamed to start with a dash (scenario.schema.json allows it).
TOOL = "-read.tool"
#: One schema property name per scenario, each holding what a shell, a terminal or Markdown reads.
NAMES = (
    "nl\nx",
    "esc\x1b]0;title\x07\x1b]52;c;cHduZWQ=\x07\x1b[2Jx",
    "bidi\u202etxt\u2066",
    "ls\u2028ps\u2029nel\x85x",
    "q'd\"$(touch pwned)`touch pwned`$HOME;x",
    "bs\\n\\x1b\\u202e\\",
    "sp  ace\u00a0 ",
    "zw\u200dj\U000e0041|pipe`tick",
)
#: The folder the scenarios are given from, relative to where the run runs: a path a shell must be handed whole.
FOLDER = "sc $(touch pwned) `x` 'q' \u202e\n-nl"
SELECT = "*/post_seal/schema.in_place:remove_property:*"
SHELLS = ("sh", "bash")


def executable():
    found = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    if found is None:
        pytest.fail("the `toolsurface` console script is not installed: run the README's install command first")
    return found


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("cli-inert")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run on one scenario per hostile name, from a hostile folder, writing every report."""
    where = tmp_path_factory.mktemp("inert")
    folder = where / FOLDER
    folder.mkdir()
    text = SMALL.read_text().replace("market__web_read", TOOL)
    for number, name in enumerate(NAMES):
        document = json.loads(text)
        document["id"] = f"hostile-{number}"
        document["description"] = f"lists as {name}"
        document["contract"]["admitted"][0]["input_schema"] = {
            "type": "object",
            "properties": {name: {"type": "string"}},
        }
        (folder / f"{number}.json").write_text(json.dumps(document))
    args = ["run", "--scenarios", FOLDER, "--target", "reference:legacy", "--red-target", "none", "--select", SELECT,
            "--format", "md,junit,html,json", "--out", "out"]  # fmt: skip
    done = subprocess.run([executable(), *args], cwd=where, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    return where, done


def ids_of(where):
    return {printable(case.id): case.id for case in read_results(where / "out" / "results.json").cases}


def commands_in_terminal(where, done):
    return [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("toolsurface reproduce ")]


def commands_in_markdown(where, done):
    tokens = MarkdownIt("commonmark").enable("table").parse((where / "out" / "audit.md").read_text())
    spans = [
        child.content
        for token in tokens
        if token.type == "inline"
        for child in token.children
        if child.type == "code_inline"
    ]
    return [span for span in spans if span.startswith("toolsurface reproduce ")]


def commands_in_junit(where, done):
    commands = []
    for testcase in ET.parse(where / "out" / "junit.xml").getroot().iter("testcase"):
        (line,) = [line for line in testcase.find("failure").text.split("\n") if line.startswith("reproduce: ")]
        command = line.removeprefix("reproduce: ")
        assert shlex.split(command)[2] == testcase.get("name")  # the command of that very testcase
        commands.append(command)
    return commands


def commands_in_html(where, done):
    page = (where / "out" / "report.html").read_text()
    summary = [html.unescape(command) for command in re.findall(r'<code class="cmd">(.*?)</code>', page)]
    (data,) = re.findall(r'<script type="application/json" id="case-data">(.*?)</script>', page)
    payload = json.loads(data)
    strings, names = payload["strings"], [name for name, _ in payload["fields"]]
    in_view = []
    for row in payload["cases"]:
        case = dict(zip(names, row, strict=True))
        case_id = "".join(strings[at] for at in case["id"])
        parts = [strings[at] for at in case["reproduce"]]  # around the id, where the command holds it verbatim
        in_view.append(case_id.join(parts))
    return summary + in_view


def commands_in_json(where, done):
    failing = json.loads((where / "out" / "audit.json").read_text())["failing"]
    for case in failing:
        assert shlex.split(case["reproduce"])[2] == printable(case["id"])
    return [case["reproduce"] for case in failing]


OUTPUTS = {
    "terminal": commands_in_terminal,
    "markdown": commands_in_markdown,
    "junit": commands_in_junit,
    "html": commands_in_html,
    "json": commands_in_json,
}


def test_the_plan_holds_a_case_for_every_hostile_name(run):
    where, _ = run
    raw = set(ids_of(where).values())
    assert len(raw) == len(NAMES)
    assert all(any(f"{TOOL}:/properties/{name}" in case_id for case_id in raw) for name in NAMES)


def test_list_shows_ids_and_descriptions_inert_and_each_listed_id_reproduces_its_case(run):
    where, _ = run
    listed = {
        what: subprocess.run(
            [executable(), "list", what, "--scenarios", FOLDER, "--select", SELECT],
            cwd=where,
            capture_output=True,
            text=True,
        )
        for what in ("cases", "scenarios")
    }
    for done in listed.values():
        assert done.returncode == 0 and not [
            char for char in done.stdout + done.stderr if hidden(char) and char != "\n"
        ]
    lines = listed["scenarios"].stdout.splitlines()
    assert len(lines) == len(NAMES) and all(
        line.endswith(printable(f"lists as {name}")) for line, name in zip(lines, NAMES, strict=True)
    )
    ids = listed["cases"].stdout.splitlines()
    assert set(ids) == set(ids_of(where))
    shown = next(case_id for case_id in ids if "\\u202e" in case_id)  # given as one argument, as printed
    again = subprocess.run(
        [executable(), "reproduce", shown, "--target", "reference:legacy", "--scenarios", FOLDER],
        cwd=where,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 1 and again.stdout.splitlines()[0] == f"case     {shown}"


def test_no_output_carries_a_character_a_terminal_or_an_editor_acts_on(run):
    where, done = run
    files = {
        name: (where / "out" / name).read_text() for name in ("audit.md", "junit.xml", "report.html", "audit.json")
    }
    for name, text in {"stdout": done.stdout, "stderr": done.stderr, **files}.items():
        assert not {hex(ord(char)) for char in text if hidden(char) and char != "\n"}, name


@pytest.fixture(scope="module")
def reproduced(run):
    """What each distinct command printed anywhere shows when a POSIX shell runs it: every output
    prints the same command for a case, so each is run once per shell."""
    where, done = run
    environment = {**os.environ, "PATH": f"{Path(executable()).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    commands = {command for read in OUTPUTS.values() for command in read(where, done)}
    return {
        (shell, command): subprocess.run(
            [shell, "-c", command], cwd=where, env=environment, capture_output=True, text=True, timeout=120
        )
        for command in sorted(commands)
        for shell in SHELLS
    }


@pytest.mark.parametrize("output", OUTPUTS)
def test_every_reproduce_command_printed_re_runs_its_case_in_a_posix_shell(run, reproduced, output):
    where, done = run
    commands = OUTPUTS[output](where, done)
    ids = ids_of(where)
    named = {shlex.split(command)[2] for command in commands}
    assert named and named <= set(ids)
    if output not in ("terminal", "markdown"):  # these show each cause by one case: the others list every failing case
        assert named == set(ids)
    for command in commands:
        shown = shlex.split(command)[2]
        for shell in SHELLS:
            again = reproduced[shell, command]
            assert again.returncode in (0, 1), (shell, command, again.stderr)
            assert again.stdout.splitlines()[0] == f"case     {shown}", (shell, command)
            assert not [char for char in again.stdout + again.stderr if hidden(char) and char != "\n"]


def test_no_command_had_the_shell_run_anything_of_the_id(run, reproduced):
    where, _ = run
    assert reproduced and not list(where.rglob("pwned"))
