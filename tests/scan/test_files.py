"""Every path is scanned, reported or named as skipped: nothing hangs, raises or goes missing silently."""

import os
import socket
from pathlib import Path

import pytest

from toolsurface.scan import (
    FileFailed,
    FileScanned,
    FileSkipped,
    ScanConfig,
    _files,
    python_files,
    scan_paths,
)
from toolsurface.scan._files import read_source

CONFIG = ScanConfig()
FLAWED = "def take_baseline(run):\n    return list(run.tools)\n"
root_only = pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file, whatever its mode"
)


def scan(*paths):
    return list(scan_paths(paths, CONFIG, cache_dir=None))


def test_a_fifo_named_py_is_skipped_unopened(tmp_path):
    (tmp_path / "a.py").write_text(FLAWED)
    os.mkfifo(tmp_path / "pipe.py")
    results = scan(tmp_path)  # opening the FIFO would wait for a writer forever
    assert results[1] == FileSkipped(str(tmp_path / "pipe.py"), "a FIFO, never opened")
    assert len(results[0].findings) == 1
    assert scan(tmp_path / "pipe.py") == [FileSkipped(str(tmp_path / "pipe.py"), "a FIFO, never opened")]


def test_a_socket_is_skipped_unopened(tmp_path):
    with socket.socket(socket.AF_UNIX) as server:
        try:
            server.bind(str(tmp_path / "s.py"))
        except OSError:
            pytest.skip("no unix sockets here")
        assert scan(tmp_path) == [FileSkipped(str(tmp_path / "s.py"), "a socket, never opened")]


def test_a_device_given_by_name_is_skipped():
    assert scan("/dev/null") == [FileSkipped("/dev/null", "a character device, never opened")]


def test_linked_folders_are_followed_and_a_loop_is_named_once(tmp_path):
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    (real / "pkg" / "host.py").write_text(FLAWED)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "linked").symlink_to(real / "pkg", target_is_directory=True)
    (real / "pkg" / "back").symlink_to(real, target_is_directory=True)
    results = scan(tmp_path / "src")
    assert [r.path for r in results if isinstance(r, FileScanned)] == [str(tmp_path / "src" / "linked" / "host.py")]
    # real/ is walked through back/ once; pkg/ inside it again is the loop.
    loops = [r for r in results if isinstance(r, FileSkipped)]
    assert len(loops) == 1 and "a loop; walked once" in loops[0].reason


@root_only
def test_an_unreadable_folder_or_file_is_one_error_each(tmp_path):
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.py").write_text(FLAWED)
    (tmp_path / "secret.py").write_text(FLAWED)
    (tmp_path / "secret.py").chmod(0)
    (tmp_path / "locked").chmod(0)
    try:
        results = scan(tmp_path)
        given = scan(tmp_path / "locked" / "inner.py")
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert results == [
        FileFailed(str(tmp_path / "locked"), f"{tmp_path / 'locked'}: cannot read folder: Permission denied"),
        FileFailed(str(tmp_path / "secret.py"), f"{tmp_path / 'secret.py'}: cannot read: Permission denied"),
    ]
    assert given == [
        FileFailed(
            str(tmp_path / "locked" / "inner.py"), f"{tmp_path / 'locked' / 'inner.py'}: cannot read: Permission denied"
        )
    ]


def test_permission_errors_are_one_line_each_even_as_root(tmp_path, monkeypatch):
    # Root reads through any mode, so the kernel's refusal is stood in for where the walk asks.
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "inner.py").write_text(FLAWED)
    (tmp_path / "secret.py").write_text(FLAWED)
    denied = PermissionError(13, "Permission denied")
    real_scandir, real_stat, real_read = os.scandir, Path.stat, Path.read_bytes

    def scandir(path):
        if Path(path).name == "locked":
            raise denied
        return real_scandir(path)

    def stat(self, **kwargs):
        if self.parent.name == "locked":
            raise denied
        return real_stat(self, **kwargs)

    def read_bytes(self):
        if self.name == "secret.py":
            raise denied
        return real_read(self)

    monkeypatch.setattr(_files.os, "scandir", scandir)
    monkeypatch.setattr(Path, "stat", stat)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    assert scan(tmp_path) + scan(tmp_path / "locked" / "inner.py") == [
        FileFailed(str(tmp_path / "locked"), f"{tmp_path / 'locked'}: cannot read folder: Permission denied"),
        FileFailed(str(tmp_path / "secret.py"), f"{tmp_path / 'secret.py'}: cannot read: Permission denied"),
        FileFailed(
            str(tmp_path / "locked" / "inner.py"), f"{tmp_path / 'locked' / 'inner.py'}: cannot read: Permission denied"
        ),
    ]


def test_a_path_that_is_not_python_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("baseline = list(tools)\n")
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\n" + FLAWED)
    (tmp_path / "types.pyi").write_text("def take_baseline(run) -> list: ...\n")
    notes, script, stub = scan(tmp_path / "notes.txt", tmp_path / "tool", tmp_path / "types.pyi")
    assert notes == FileFailed(
        str(tmp_path / "notes.txt"),
        f"{tmp_path / 'notes.txt'}: not Python source (expected a .py or .pyi file, or a script that "
        "starts with a python #! line)",
    )
    assert isinstance(script, FileScanned) and len(script.findings) == 1
    assert isinstance(stub, FileScanned)
    # A folder gives its .py files only: neither the notes nor the stub.
    assert python_files([tmp_path]) == []


def test_coding_lines_and_a_bom_are_honoured(tmp_path):
    latin = tmp_path / "latin.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1"))
    assert read_source(latin)[1].endswith("name = 'café'\n")
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbf" + FLAWED.encode())
    assert read_source(bom)[1] == FLAWED
    (result,) = scan(bom)
    assert [(f.rule, f.line, f.column) for f in result.findings] == [("TS104", 2, 5)]


def test_bytes_that_do_not_decode_name_the_encoding_and_offset(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_bytes(b"x = 1\ny = '\xff'\n")
    assert read_source(bad) == FileFailed(str(bad), f"{bad}: not valid UTF-8 text (byte 11)")
    ascii_ = tmp_path / "ascii.py"
    ascii_.write_bytes(b"# coding: ascii\ny = '\xe9'\n")
    assert read_source(ascii_) == FileFailed(str(ascii_), f"{ascii_}: not valid ascii text (byte 21)")
    unknown = tmp_path / "unknown.py"
    unknown.write_bytes(b"# coding: klingon\n")
    assert read_source(unknown) == FileFailed(str(unknown), f"{unknown}: cannot decode: unknown encoding: klingon")
