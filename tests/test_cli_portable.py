"""End to end: results.json names its recordings the same on every machine, so two checkouts of one
commit at different absolute paths write, and merge, the same bytes; and what reads the names
back (`reproduce`, `verify`, `report`) still finds the recordings."""

import shutil

import orjson
import pytest

from tests.test_cli import ROOT, toolsurface
from toolsurface.harness._sources import portable_path, portable_source

SELECT = ("--select", "web-read-child-single-tool/*", "--select", "etf-compare-main-openai/*/hook/*")


def checkout(base, *parts):
    """A copy of the bundled recordings at `base/…/scen`, as another runner's checkout holds them."""
    folder = base.joinpath(*parts)
    shutil.copytree(ROOT / "scenarios" / "bundled", folder / "scen")
    return folder


@pytest.fixture(scope="module")
def two_checkouts(tmp_path_factory):
    return checkout(tmp_path_factory.mktemp("runner-a"), "w"), checkout(
        tmp_path_factory.mktemp("runner-b"), "home", "ci", "w"
    )


def test_two_checkouts_write_the_same_results_json(two_checkouts):
    first, second = two_checkouts
    # One given relative to its folder, one as an absolute path under it: both read as `scen`.
    done = [toolsurface("run", "--scenarios", "scen", *SELECT, "--out", "out", cwd=first),
            toolsurface("run", "--scenarios", str(second / "scen"), *SELECT, "--out", "out", cwd=second)]  # fmt: skip
    assert [d.returncode for d in done] == [0, 0], done[0].stderr + done[1].stderr
    written = (first / "out" / "results.json").read_bytes()
    assert written == (second / "out" / "results.json").read_bytes()
    run = orjson.loads(written)["run"]
    files = sorted(f"scen/{path.name}" for path in (first / "scen").glob("*.json"))
    # Each recording by its place; a scenario derived at a limit's edge names the recording it is of.
    recordings = [s["source"] for s in run["scenarios"] if "@" not in s["id"]]
    assert run["scenario_paths"] == ["scen"] and recordings == files
    assert {s["source"] for s in run["scenarios"]} == set(files)
    assert str(first) not in written.decode() and str(second) not in written.decode()
    # What reads the names back finds the recordings from the run's folder.
    verified = toolsurface("verify", "out/results.json", "--sample", "3", cwd=first)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_shards_from_two_checkouts_merge_as_shards_from_one(two_checkouts):
    first, second = two_checkouts
    # The other checkout's shard is given its recordings by absolute path, as a CI step may.
    for folder, scenarios, shard in (
        (first, "scen", "1/2"),
        (first, "scen", "2/2"),
        (second, str(second / "scen"), "1/2"),
    ):
        done = toolsurface(
            "run", "--scenarios", scenarios, *SELECT, "--shard", shard, "--out", f"shard-{shard[0]}", cwd=folder
        )
        assert done.returncode == 0, done.stderr
    one = toolsurface("merge", "shard-1/results.json", "shard-2/results.json", "--out", "merged", cwd=first)
    # The merge takes what ran from its first shard: here the other checkout's.
    two = toolsurface(
        "merge", str(second / "shard-1" / "results.json"), "shard-2/results.json", "--out", "merged-two", cwd=first
    )
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    assert (first / "merged" / "results.json").read_bytes() == (first / "merged-two" / "results.json").read_bytes()


def test_the_bundled_recordings_are_named_by_their_place_in_the_package(tmp_path):
    done = toolsurface("run", "--select", "web-read-child-single-tool/*", "--out", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = orjson.loads((tmp_path / "out" / "results.json").read_bytes())["run"]
    bundled = sorted(
        f"toolsurface/scenarios/bundled/{path.name}" for path in (ROOT / "scenarios" / "bundled").glob("*.json")
    )
    recordings = [s["source"] for s in run["scenarios"] if "@" not in s["id"]]
    assert run["scenario_paths"] == [] and recordings == bundled
    assert {s["source"] for s in run["scenarios"]} == set(bundled)


def test_a_recording_outside_the_working_directory_is_named_by_its_content(tmp_path):
    outside = tmp_path / "elsewhere" / "a.json"
    assert portable_source(str(outside), "ab" * 32, cwd=tmp_path / "work") == f"sha256:{'ab' * 32}"
    assert portable_source(str(tmp_path / "work" / "s" / "a.json"), "ab" * 32, cwd=tmp_path / "work") == "s/a.json"
    assert portable_source("./s/a.json", "ab" * 32, cwd=tmp_path) == "s/a.json"
    # A path outside is kept as given: it is all `reproduce` and `verify` can find the recordings by.
    assert portable_path(str(outside), cwd=tmp_path / "work") == str(outside)
    assert portable_path(str(tmp_path), cwd=tmp_path) == "."
