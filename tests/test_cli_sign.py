"""End to end: signed results through the installed `toolsurface` command, with the key in the
environment as CI passes a secret, and `verify` re-running a sample of a file's cases."""

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.forgery import first_killed, forge

ROOT = Path(__file__).resolve().parent.parent
SELECT = ["--select", "web-read-child-single-tool/*"]
KEY = "the CI secret"
MISMATCH = "signature does not match: altered after it was signed, or signed with another key"


def toolsurface(*args, key=None, require=None, cwd=ROOT):
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    env = {name: value for name, value in os.environ.items() if not name.startswith("TOOLSURFACE_")}
    env |= {"TOOLSURFACE_SIGNING_KEY": key} if key is not None else {}
    env |= {"TOOLSURFACE_REQUIRE_SIGNATURE": require} if require is not None else {}
    return subprocess.run([command, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """A signed run, whole and in two shards."""
    out = tmp_path_factory.mktemp("signed")
    for name, shard in (("whole", []), ("shard-1", ["--shard", "1/2"]), ("shard-2", ["--shard", "2/2"])):
        done = toolsurface("run", *SELECT, *shard, "--out", str(out / name), key=KEY)
        assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_signed_shards_merge_with_a_required_signature_into_the_signed_unsharded_file(tmp_path, signed):
    shards = [str(signed / name / "results.json") for name in ("shard-1", "shard-2")]
    done = toolsurface("merge", *shards, "--require-signature", "--out", str(tmp_path), key=KEY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "results.json").read_bytes() == (signed / "whole" / "results.json").read_bytes()
    assert b'"signature":"hmac-sha256:' in (tmp_path / "results.json").read_bytes()
    reported = toolsurface("report", str(tmp_path / "results.json"), key=KEY, require="1")
    assert reported.returncode == 0 and reported.stderr == "" and reported.stdout.startswith("# ")


def test_a_signed_file_read_without_the_key_is_read_and_said_unverified(signed):
    path = signed / "whole" / "results.json"
    done = toolsurface("report", str(path), "--format", "json")
    assert done.returncode == 0 and '"ok": true' in done.stdout
    assert done.stderr == f"{path}: signed, but not verified: TOOLSURFACE_SIGNING_KEY is not set\n"


@pytest.mark.parametrize(
    ("command", "key", "require", "problem"),
    [
        (
            ["report", "{signed}", "--require-signature"],
            None,
            None,
            "signed, but TOOLSURFACE_SIGNING_KEY is not set to verify it, and --require-signature "
            "demands a verified signature: "
            "set it to the key the file was signed with",
        ),
        (
            ["merge", "{unsigned}", "--out", "{out}"],
            None,
            "1",
            "not signed, and TOOLSURFACE_REQUIRE_SIGNATURE=1 demands a verified signature: write it with "
            "TOOLSURFACE_SIGNING_KEY set, "
            "and set the same key to read it",
        ),
        (
            ["merge", "{unsigned}", "--out", "{out}"],
            KEY,
            None,
            "not signed, but TOOLSURFACE_SIGNING_KEY is set: its signature was stripped, or it was "
            "written without the key; "
            "write it again with the key set",
        ),
        (["report", "{signed}"], "another key", None, MISMATCH),
        (["verify", "{signed}", "--sample", "3", "--seed", "1"], "another key", None, MISMATCH),
    ],
)
def test_a_file_whose_signature_cannot_be_accepted_is_one_line_and_exit_2(
    tmp_path, signed, command, key, require, problem
):
    unsigned = tmp_path / "unsigned"
    assert toolsurface("run", *SELECT, "--shard", "1/1", "--out", str(unsigned)).returncode == 0
    paths = {
        "signed": signed / "whole" / "results.json",
        "unsigned": unsigned / "results.json",
        "out": tmp_path / "merged",
    }
    done = toolsurface(*(word.format(**paths) for word in command), key=key, require=require)
    assert done.returncode == 2, done.stdout + done.stderr
    path = paths["signed"] if "{signed}" in command else paths["unsigned"]
    assert done.stderr == f"error: {path}: {problem}\n" and done.stdout == ""
    assert not (tmp_path / "merged").exists()


def test_a_forged_shard_is_refused_by_merge_with_the_key(tmp_path, signed):
    forged = tmp_path / "results.json"
    shutil.copy(signed / "shard-1" / "results.json", forged)
    forge(forged, cases=first_killed)
    other = signed / "shard-2" / "results.json"
    done = toolsurface("merge", str(forged), str(other), "--out", str(tmp_path / "merged"), key=KEY)
    assert done.returncode == 2 and done.stderr == f"error: {forged}: {MISMATCH}\n"
    assert not (tmp_path / "merged").exists()
    # Without the key only a note says the file was not verified: the forgery merges.
    unkeyed = toolsurface("merge", str(forged), str(other), "--out", str(tmp_path / "merged"))
    assert unkeyed.returncode == 1 and "signed, but not verified" in unkeyed.stderr


def test_a_run_that_must_be_signed_and_has_no_key_stops_before_it_starts(tmp_path):
    done = toolsurface("run", *SELECT, "--out", str(tmp_path / "out"), require="1")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr == (
        "error: TOOLSURFACE_REQUIRE_SIGNATURE=1 demands signed results, but TOOLSURFACE_SIGNING_KEY is not set: "
        "set it to the signing key (a secret)\n"
    )


def test_verify_passes_an_honest_file_and_prints_the_seed_it_drew(signed):
    path = signed / "whole" / "results.json"
    done = toolsurface("verify", str(path), "--sample", "4", key=KEY)
    assert done.returncode == 0, done.stdout + done.stderr
    (seed,) = re.findall(
        r"^sample drawn with --seed (\d+): give it again to re-run the same cases$", done.stderr, re.MULTILINE
    )
    assert done.stdout.splitlines()[-1] == "PASS: every re-run verdict is the recorded one (4 cases)"
    assert "re-ran 4 of its " in done.stdout and f"(sample --seed {seed})" in done.stdout
    again = toolsurface("verify", str(path), "--sample", "4", "--seed", seed, key=KEY)
    assert again.returncode == 0 and again.stdout == done.stdout and "sample drawn" not in again.stderr


def test_verify_finds_a_forged_verdict_and_prints_the_command_that_reproduces_it(tmp_path, signed):
    path = tmp_path / "results.json"
    shutil.copy(signed / "whole" / "results.json", path)
    (forged_id,) = forge(path, cases=first_killed, sign=KEY.encode())  # forged by someone who holds the key
    done = toolsurface("verify", str(path), "--sample", "1000", "--seed", "0", key=KEY)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    at = lines.index(f"  {forged_id}")
    assert lines[at + 1] == "    recorded      error — target timed out"
    assert lines[at + 2].startswith("    re-run        killed — ")
    assert lines[at + 3] == f"    toolsurface reproduce {forged_id} --target reference:guarded --seed 0"
    assert lines[-1].startswith("FAIL: 1 of ") and lines[-1].endswith(" re-run cases differ from the recorded verdicts")


@pytest.mark.parametrize(
    ("flags", "problem"),
    [
        (["--sample", "0"], "--sample 0 must be at least 1"),
        (["--sample", "2", "--seed", "-1"], "--seed -1 must be an integer from 0 to 2**63 - 1"),
    ],
)
def test_verify_refuses_a_sample_or_seed_that_cannot_work(signed, flags, problem):
    done = toolsurface("verify", str(signed / "whole" / "results.json"), *flags)
    assert done.returncode == 2 and done.stderr == f"error: {problem}\n"


def test_verify_says_when_the_file_was_written_by_another_version_of_toolsurface(tmp_path, signed):
    path = tmp_path / "results.json"
    shutil.copy(signed / "whole" / "results.json", path)
    forge(
        path,
        run=lambda run: dataclasses.replace(run, tool=dataclasses.replace(run.tool, version="0.0.1")),
        sign=KEY.encode(),
    )
    done = toolsurface("verify", str(path), "--sample", "1", "--seed", "0", key=KEY)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{path} was written by toolsurface 0.0.1, and this is " in done.stderr
    assert (
        "written by toolsurface"
        not in toolsurface(
            "verify", str(signed / "whole" / "results.json"), "--sample", "1", "--seed", "0", key=KEY
        ).stderr
    )
