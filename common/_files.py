"""Files written whole or not at all: a temporary file beside the target, renamed into place.

A reader (CI, a reviewer, a second run) never sees half a report, and a write that fails leaves
nothing behind: any `OSError` (a full disk, a file size limit, a folder in the way) is one input
error naming the file. A temporary is named `.<name>-<pid>-<random>.part`: a process killed
outright (SIGKILL, a lost machine) cannot remove its own, so the next write into the folder
removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

from ._errors import UsageError

#: A temporary's name, with the id of the process that writes it.
_TEMPORARY = re.compile(r"\..+-(?P<pid>\d+)-[a-z0-9_]+\.part")


def cannot_write(path: Path, error: OSError, option: str) -> UsageError:
    """The one-line error for `path` that could not be written; `option` names the input that gave it."""
    return UsageError(f"{path}: cannot write there: {error.strerror or error}", option=option)


def temporary(path: Path) -> tuple[IO[bytes], Path]:
    """A new temporary file beside `path`, open for writing, and its path.

    Creating it is a write into the folder, so it first removes what killed writers left there.
    """
    remove_abandoned(path.parent)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}-{os.getpid()}-", suffix=".part", dir=path.parent)
    return os.fdopen(handle, "wb"), Path(name)


def through_symlink(path: Path) -> Path | None:
    """The first part of `path` that is a symbolic link, walked from where the path starts (the
    working directory for a relative path, the root for an absolute one); None when no part is."""
    walked = Path(path.anchor)
    for part in path.parts[1 if path.anchor else 0 :]:
        walked /= part
        try:
            if walked.is_symlink():
                return walked
        except OSError:  # a name the system cannot look up (too long): writing there says why
            return None
    return None


def refuse_symlinks(folder: Path, option: str) -> None:
    """Refuse an output folder reached through a symbolic link: a link committed where a report
    goes (`toolsurface-report -> /etc`) would have the run write wherever it points."""
    if (link := through_symlink(folder)) is not None:
        where = os.readlink(link)
        raise UsageError(
            f"{link}: is a symbolic link (to {where}); give --follow-symlinks to write through it", option=option
        )


def remove_abandoned(folder: Path) -> None:
    """Remove the temporaries in `folder` whose writer is gone; a live writer's (another run's) stay."""
    for entry in folder.glob(".*.part"):
        match = _TEMPORARY.fullmatch(entry.name)
        if match and not _running(int(match["pid"])):
            with contextlib.suppress(OSError):  # another run may be removing it too
                entry.unlink()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists but is not ours to signal: someone else's live writer
    return True


def publish(temporary: Path, path: Path) -> None:
    """Rename a finished temporary file into place, readable as any new file would be.

    `mkstemp` makes it private (0600); a report is for CI artifacts and reviewers, so it gets the
    mode the umask gives an ordinary new file.
    """
    umask = os.umask(0)
    os.umask(umask)
    temporary.chmod(0o666 & ~umask)
    os.replace(temporary, path)


def write_report(path: Path, data: bytes | Iterable[bytes], *, option: str) -> None:
    """Write `data`, or each of its chunks in turn, to `path` whole or not at all (a chunk that
    fails to come leaves nothing); `option` names the input that gave the path
    (`output`, `out`), for the error when it cannot be written. A folder that does not exist is
    not made: a mistyped `--output` is an error, never a new folder."""
    try:
        file, name = temporary(path)
    except OSError as error:
        raise cannot_write(path, error, option) from None
    try:
        with file:
            for chunk in [data] if isinstance(data, bytes) else data:
                file.write(chunk)
        publish(name, path)
    except BaseException as error:
        name.unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise cannot_write(path, error, option) from None
        raise


class Publication:
    """Files that appear in one folder together or not at all: results.json and the reports of a run.

    Each is first written whole as a temporary beside its place, and `publish` renames them into
    place. If the block ends any other way — a write or rename that fails, an interrupt, a bug —
    leaving it removes this run's temporaries, what it already renamed, and the previous files of
    the same names: the folder then holds none of this run's outputs and nothing a reader (an
    artifact upload that always runs) could take for them. It never holds a mix of two runs.

    Temporaries beside each file rather than a staging folder swapped into place: the folder may
    hold other files (`--out .`), so only these names may be replaced.
    """

    def __init__(self, paths: Sequence[Path], option: str, replaces: Sequence[Path] = ()) -> None:
        #: The files, in the order they are renamed into place.
        self.paths = tuple(paths)
        #: The input that gave the folder, named in errors.
        self.option = option
        #: Files an earlier run may have left beside them that these do not overwrite (a report in a
        #: format this run does not write): removed whether these are published or not, so the
        #: folder never holds one run's results.json beside another's report.
        self.replaces = tuple(replaces)
        self._temporaries: dict[Path, Path] = {}
        self._published = False

    def __enter__(self) -> Publication:
        """Check that every file can be written before any work is done: its folder made, no folder in its place."""
        for path in self.paths:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise cannot_write(path.parent, error, self.option) from None
            if path.is_dir():
                raise cannot_write(path, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)), self.option)
        return self

    def stage(self, temporary: Path, path: Path) -> None:
        """Take a finished temporary, to be renamed into `path` by `publish`."""
        self._temporaries[path] = temporary

    def temporary(self, path: Path) -> Path:
        """The finished temporary staged for `path`."""
        return self._temporaries[path]

    def write(self, path: Path, data: bytes | Iterable[bytes]) -> None:
        """Write `data`, or each of its chunks in turn, into a temporary for `path`."""
        try:
            file, self._temporaries[path] = temporary(path)
            with file:
                for chunk in [data] if isinstance(data, bytes) else data:
                    file.write(chunk)
        except OSError as error:
            raise cannot_write(path, error, self.option) from None

    def publish(self) -> None:
        """Remove what this publication replaces, then rename every staged temporary into place,
        in the order of `paths`."""
        for path in self.replaces:
            try:
                path.unlink(missing_ok=True)
            except IsADirectoryError:
                pass  # a folder of that name is the user's, not a report
            except OSError as error:
                raise cannot_write(path, error, self.option) from None
        for path in self.paths:
            try:
                publish(self._temporaries[path], path)
            except OSError as error:
                raise cannot_write(path, error, self.option) from None
        self._published = True

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._published:
            return
        for path in (*self.paths, *self.replaces):
            for file in (self._temporaries.get(path), path):
                if file is not None:
                    with contextlib.suppress(OSError):  # a folder of that name is the user's: keep it
                        file.unlink(missing_ok=True)
