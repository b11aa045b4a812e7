"""Files written whole or not at all, published together or not at all, and the temporaries of
killed writers removed by the next write into their folder."""

import os
import subprocess
import sys

import pytest

from toolsurface.common import _files
from toolsurface.common._errors import UsageError
from toolsurface.common._files import (
    Publication,
    remove_abandoned,
    temporary,
    write_report,
)


@pytest.fixture
def full_disk(monkeypatch):
    """Every temporary written from now on is on a full disk (/dev/full fails writes with ENOSPC)."""

    def on_full_disk(path):
        _, name = temporary(path)
        return open("/dev/full", "wb"), name

    monkeypatch.setattr(_files, "temporary", on_full_disk)


def names(folder):
    return sorted(path.name for path in folder.iterdir())


def a_finished_process():
    process = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    return int(process.stdout)


def test_a_temporary_is_hidden_beside_its_file_and_names_its_writer(tmp_path):
    file, name = temporary(tmp_path / "results.json")
    file.close()
    assert name.parent == tmp_path
    assert name.name.startswith(f".results.json-{os.getpid()}-") and name.name.endswith(".part")


def test_a_report_on_a_full_disk_is_one_error_naming_it_and_leaves_the_previous_one(tmp_path, full_disk):
    report = tmp_path / "audit.md"
    report.write_text("previous")
    with pytest.raises(UsageError) as refused:
        write_report(report, b"x" * 100_000, option="output")
    assert (
        str(refused.value) == f"{report}: cannot write there: No space left on device"
        and refused.value.option == "output"
    )
    assert names(tmp_path) == ["audit.md"] and report.read_text() == "previous"


def chunks_then_a_failure():
    yield b"<?xml version='1.0'?>\n<testsuites>\n"
    raise RuntimeError("a renderer failed half way")


def test_a_report_whose_chunks_stop_half_way_leaves_the_previous_one_and_no_temporary(tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text("previous")
    with pytest.raises(RuntimeError):
        write_report(report, chunks_then_a_failure(), option="output")
    assert names(tmp_path) == ["junit.xml"] and report.read_text() == "previous"
    write_report(report, iter([b"<a>", b"</a>"]), option="output")
    assert report.read_text() == "<a></a>"


def test_a_publication_whose_chunks_stop_half_way_publishes_nothing(tmp_path):
    paths = [tmp_path / "junit.xml", tmp_path / "results.json"]
    with pytest.raises(RuntimeError), Publication(paths, option="out") as publication:
        publication.write(paths[1], b"{}")
        publication.write(paths[0], chunks_then_a_failure())
    assert names(tmp_path) == []


def test_a_publication_puts_every_file_in_place_together(tmp_path):
    paths = [tmp_path / "out" / "audit.md", tmp_path / "out" / "results.json"]
    with Publication(paths, option="out") as publication:
        for path in paths:
            publication.write(path, path.name.encode())
        assert not any(path.exists() for path in paths)  # written, but not yet in place
        publication.publish()
    assert names(tmp_path / "out") == ["audit.md", "results.json"]
    assert [path.read_text() for path in paths] == ["audit.md", "results.json"]


def test_a_failed_publication_leaves_none_of_its_files_new_or_old(tmp_path, monkeypatch):
    for name in ("audit.md", "results.json", "notes.txt"):
        (tmp_path / name).write_text("previous run")
    paths = [tmp_path / "audit.md", tmp_path / "results.json"]

    def full_disk(path):
        return open("/dev/full", "wb"), tmp_path / ".unused"

    with pytest.raises(UsageError) as refused, Publication(paths, option="out") as publication:
        publication.write(paths[0], b"new")
        monkeypatch.setattr(_files, "temporary", full_disk)
        publication.write(paths[1], b"x" * 100_000)
    assert str(refused.value) == f"{paths[1]}: cannot write there: No space left on device"
    assert names(tmp_path) == ["notes.txt"]


def test_a_rename_that_fails_takes_back_what_went_into_place(tmp_path):
    paths = [tmp_path / "audit.md", tmp_path / "results.json"]
    with pytest.raises(UsageError) as refused, Publication(paths, option="out") as publication:
        for path in paths:
            publication.write(path, b"new")
        (tmp_path / "results.json").mkdir()  # after the check, before the rename
        publication.publish()
    assert str(refused.value) == f"{paths[1]}: cannot write there: Is a directory"
    assert names(tmp_path) == ["results.json"] and (tmp_path / "results.json").is_dir()


def test_a_folder_in_the_way_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "report.html").mkdir()
    with pytest.raises(UsageError) as refused, Publication([tmp_path / "report.html"], option="out"):
        pytest.fail("the block must not run")
    assert str(refused.value) == f"{tmp_path / 'report.html'}: cannot write there: Is a directory"


def test_only_the_temporaries_of_finished_writers_are_abandoned(tmp_path):
    gone = a_finished_process()
    kept = [f".audit.md-{os.getpid()}-abc_1234.part", "notes.part", ".results.json-final.part", "audit.md"]
    for name in [f".results.json-{gone}-abc_1234.part", *kept]:
        (tmp_path / name).write_text("")
    remove_abandoned(tmp_path)
    assert names(tmp_path) == sorted(kept)
