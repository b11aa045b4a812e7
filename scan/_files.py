"""Which paths a scan reads, and their text: every path is scanned, reported or named as skipped.

Nothing is skipped silently. A FIFO, socket or device is named and never opened (opening a FIFO
waits for a writer forever); a folder reached again through a symlink is walked once and the
link is named; a folder or file that cannot be read is an error of its own. Folders give their
`*.py` files only: a `.pyi` stub holds signatures, no bodies that dispatch or check, so stubs
are read only when given by name.
"""

from __future__ import annotations

import io
import os
import stat
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path

from toolsurface.common._errors import UsageError

from ._types import FileFailed, FileSkipped

#: Folders that hold no source of the project's own.
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
#: Suffixes a path given by name may have to be read as Python source.
_SOURCE_SUFFIXES = (".py", ".pyi")
#: Kinds of file that are never opened, by the name a line reports them with.
_SPECIAL = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)

#: One path of a walk: a file to read, or what happened to a path that will not be read.
Found = Path | FileFailed | FileSkipped


def python_files(paths: Iterable[Path | str]) -> list[Found]:
    """Files as given, and every `*.py` below each folder (hidden folders skipped), sorted per folder."""
    found: list[Found] = []
    for raw in paths:
        path = Path(raw)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            if path.is_symlink():
                found.append(FileFailed(str(path), f"{path}: cannot read: a symlink to nothing"))
                continue
            raise UsageError(f"{path}: no such file or folder to scan") from None
        except OSError as error:
            found.append(FileFailed(str(path), f"{path}: cannot read: {error.strerror or error}"))
            continue
        if stat.S_ISDIR(mode):
            found.extend(sorted(_walk(path), key=lambda item: _parts(item, path)))
        elif stat.S_ISREG(mode):
            found.append(
                path
                if _is_source(path)
                else FileFailed(
                    str(path),
                    f"{path}: not Python source (expected a .py or .pyi file, or a script that starts "
                    "with a python #! line)",
                )
            )
        else:
            found.append(FileSkipped(str(path), f"{_kind(mode)}, never opened"))
    return found


def _walk(root: Path) -> Iterator[Found]:
    """The `*.py` files below `root`, following folder links, each real folder walked once."""
    walked: dict[tuple[int, int], Path] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            identity = os.stat(folder)
            entries = list(os.scandir(folder))
        except OSError as error:
            yield FileFailed(str(folder), f"{folder}: cannot read folder: {error.strerror or error}")
            continue
        key = (identity.st_dev, identity.st_ino)
        if key in walked:
            first = walked[key]
            loop = first == root or first in folder.parents or _resolves_inside(folder, first)
            yield FileSkipped(
                str(folder),
                f"a link back to {first}, a loop; walked once" if loop else f"the same folder as {first}, walked once",
            )
            continue
        walked[key] = folder
        for entry in entries:
            yield from _entry(entry, stack)


def _entry(entry: os.DirEntry[str], stack: list[Path]) -> Iterator[Found]:
    path = Path(entry.path)
    try:
        if entry.is_dir():
            if not (entry.name.startswith(".") or entry.name in _SKIPPED_DIRS):
                stack.append(path)
            return
        if not entry.name.endswith(".py"):
            return
        mode = entry.stat().st_mode
    except FileNotFoundError:
        yield FileFailed(str(path), f"{path}: cannot read: a symlink to nothing")
        return
    except OSError as error:
        yield FileFailed(str(path), f"{path}: cannot read: {error.strerror or error}")
        return
    if stat.S_ISREG(mode):
        yield path
    else:
        yield FileSkipped(str(path), f"{_kind(mode)}, never opened")


def _resolves_inside(folder: Path, first: Path) -> bool:
    try:
        return folder.resolve().is_relative_to(first.resolve())
    except OSError:
        return False


def _parts(item: Found, root: Path) -> tuple[str, ...]:
    path = item if isinstance(item, Path) else Path(item.path)
    return path.relative_to(root).parts if path.is_relative_to(root) else path.parts


def _kind(mode: int) -> str:
    return next((name for test, name in _SPECIAL if test(mode)), "not a regular file")


def _is_source(path: Path) -> bool:
    if path.suffix in _SOURCE_SUFFIXES:
        return True
    if path.suffix:
        return False
    try:
        with path.open("rb") as handle:
            first = handle.readline(256)
    except OSError:
        return True  # reading it again reports why, as for any file
    return first.startswith(b"#!") and b"python" in first


def read_source(path: Path) -> tuple[bytes, str] | FileFailed:
    """A file's bytes and its text, decoded as PEP 263 says (a coding line, a UTF-8 BOM, else UTF-8)."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        return FileFailed(str(path), f"{path}: cannot read: {error.strerror or error}")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as error:  # an unknown codec, or a coding line that contradicts the BOM
        return FileFailed(str(path), f"{path}: cannot decode: {error.msg if hasattr(error, 'msg') else error}")
    try:
        return raw, raw.decode(encoding)
    except UnicodeDecodeError as error:
        return FileFailed(str(path), f"{path}: not valid {_shown(encoding)} text (byte {error.start})")


def _shown(encoding: str) -> str:
    return "UTF-8" if encoding in ("utf-8", "utf-8-sig") else encoding
