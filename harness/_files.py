"""Files written whole or not at all: a temporary file beside the target, renamed into place.

A reader (CI, a reviewer, a second run) never sees half a report, and a write that fails leaves
nothing behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ._errors import UsageError


def publish(temporary: Path, path: Path) -> None:
    """Rename a finished temporary file into place, readable as any new file would be.

    `mkstemp` makes it private (0600); a report is for CI artifacts and reviewers, so it gets the
    mode the umask gives an ordinary new file.
    """
    umask = os.umask(0)
    os.umask(umask)
    temporary.chmod(0o666 & ~umask)
    os.replace(temporary, path)


def write_report(path: Path, data: bytes, *, option: str) -> None:
    """Write `data` to `path` whole or not at all; `option` names the input that gave the path
    (`output`, `out`), for the error when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".part", dir=path.parent)
    except OSError as error:
        raise UsageError(f"{path}: cannot write there: {error.strerror}", option=option) from None
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        publish(Path(name), path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
