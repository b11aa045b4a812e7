"""`toolsurface explore` end to end, through the installed command: it finds a host's near-miss flaw
on a change no planned case makes, saves it, and `run` and `reproduce` take it from there."""

import json
import re
from pathlib import Path

import jsonschema

from tests.test_cli import ROOT, results, toolsurface

#: One recording keeps each search to a few seconds.
RECORDING = str(ROOT / "scenarios" / "bundled" / "etf-compare-main-openai.json")
EXAMPLE_SCHEMA = json.loads((ROOT / "harness" / "example.schema.json").read_text())


def explore(target: str, folder: Path, *more: str):
    return toolsurface(
        "explore", "--target", target, "--scenarios", RECORDING, "--examples", str(folder), "--budget", "200", *more
    )


def saved(folder: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))]


def test_a_near_miss_flaw_is_found_saved_and_run_from_then_on(tmp_path: Path) -> None:
    target = "tests.fixtures.explore_hosts:CasefoldDescriptions"
    folder = tmp_path / "examples"
    done = explore(target, folder)
    assert done.returncode == 1, done.stdout + done.stderr
    (example,) = saved(folder)
    jsonschema.validate(example, EXAMPLE_SCHEMA)
    assert example["mutation"]["mutator"] == "description.near_miss"
    assert example["verdict"]["kind"] == "survived"
    assert f"case     {example['id']}" in done.stdout
    assert f"toolsurface reproduce {example['id']} --target {target}" in done.stdout

    out = tmp_path / "out"
    ran = toolsurface(
        "run",
        "--target",
        target,
        "--red-target",
        "none",
        "--scenarios",
        RECORDING,
        "--examples",
        str(folder),
        "--select",
        "explored/*",
        "--out",
        str(out),
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    (record,) = results(out).cases
    assert record.case.id == example["id"] and record.verdict.kind.value == "survived"

    again = toolsurface(
        "reproduce", example["id"], "--target", target, "--scenarios", RECORDING, "--examples", str(folder)
    )
    assert again.returncode == 1 and "survived" in again.stdout, again.stdout + again.stderr


def test_the_same_seed_finds_the_same_change(tmp_path: Path) -> None:
    target = "tests.fixtures.explore_hosts:NfkcNames"
    # A budget of 400: the search under seed 1 meets its first failure after some 200 changes.
    first, second = (explore(target, tmp_path / name, "--seed", "1", "--budget", "400") for name in ("a", "b"))
    assert first.returncode == second.returncode == 1, first.stdout + first.stderr
    assert saved(tmp_path / "a") == saved(tmp_path / "b")
    # The same search, change for change: only how long it took may differ.
    shown = [
        re.sub(r"in [0-9.]+ s", "", done.stdout.replace(str(tmp_path / name), ""))
        for done, name in ((first, "a"), (second, "b"))
    ]
    assert shown[0] == shown[1]


def test_a_correct_host_gives_nothing_and_saves_nothing(tmp_path: Path) -> None:
    done = explore("reference:guarded", tmp_path / "examples", "--budget", "25")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "nothing found" in done.stdout
    assert not (tmp_path / "examples").exists()


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    for args, named in (
        (("--budget", "0"), "--budget 0"),
        (("--time-limit", "-1"), "--time-limit -1"),
        (("--examples", str(tmp_path / "file")), "--examples"),
    ):
        done = toolsurface("explore", "--scenarios", RECORDING, *args)
        assert done.returncode == 2, done.stdout + done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith(f"error: {named}"), line


def test_run_refuses_an_example_edited_after_it_was_saved(tmp_path: Path) -> None:
    folder = tmp_path / "examples"
    assert explore("tests.fixtures.explore_hosts:NfkcNames", folder).returncode == 1
    (path,) = folder.glob("*.json")
    edited = json.loads(path.read_text())
    edited["mutation"]["aim"]["place"] = "description"
    path.write_text(json.dumps(edited))
    done = toolsurface("run", "--scenarios", RECORDING, "--examples", str(folder), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert f"{path}:$.id:" in line and "edited after it was saved" in line
