"""Scenario files already found valid, remembered by their content in the user's cache folder.

Validating a recording (its JSON Schema, the checks the schema cannot make, and the metaschema
check of every tool's input schema) costs far more than building it, and a run loads the same
files every time. A file found valid is remembered under the sha256 of its bytes, salted with
what decides validity: the toolsurface version, the scenario JSON Schema, the loader's own
code and the version of jsonschema that applies them (its metaschemas and format checks decide
too), so an edited file, schema or check, or another jsonschema, validates again. Only valid files are remembered: a
broken file is validated on every load, so it is always refused with its own problems.

The cache only ever saves time: a folder that cannot be read or written is a miss, and an entry
that is not exactly what `remember` writes is ignored.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from importlib import metadata, resources
from pathlib import Path

from toolsurface.common._version import version

#: What `remember` writes; any other content of an entry is a miss.
_VALID = b"valid scenario\n"
#: The modules whose code decides whether a recording is valid, by package.
_CHECKS = (
    ("toolsurface.scenarios", "scenario.schema.json"),
    ("toolsurface.scenarios", "_loader.py"),
    ("toolsurface.scenarios", "_model.py"),
    ("toolsurface.contract", "_facts.py"),
    ("toolsurface.contract", "_formats.py"),
)


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/toolsurface/scenarios`, or `~/.cache/toolsurface/scenarios` (the scan's
    results live beside it, in `scan`)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "toolsurface" / "scenarios"


@functools.cache
def _salt() -> bytes:
    """What every key starts with: the versions, the scenario schema and the checks' code, read once per process."""
    digest = hashlib.sha256(version().encode() + b"\0" + metadata.version("jsonschema").encode() + b"\0")
    for package, name in _CHECKS:
        digest.update(name.encode() + b"\0" + resources.files(package).joinpath(name).read_bytes() + b"\0")
    return digest.digest()


def key(raw: bytes) -> str:
    """The cache key of a scenario file's bytes."""
    return hashlib.sha256(_salt() + raw).hexdigest()


def _entry(folder: Path, name: str) -> Path:
    return folder / name[:2] / name


def known_valid(name: str, folder: Path | None = None) -> bool:
    """Whether a file with this key was found valid before."""
    try:
        return _entry(folder or cache_dir(), name).read_bytes() == _VALID
    except (OSError, ValueError, RuntimeError):  # no entry or folder, a path the system refuses, no home folder
        return False


def remember(name: str, folder: Path | None = None) -> None:
    """Record that the file with this key is valid; a folder that cannot be written only costs time."""
    try:
        target = _entry(folder or cache_dir(), name)
    except RuntimeError:  # no home folder to find the cache in
        return
    temporary = target.with_suffix(f".{os.getpid()}.part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(_VALID)
        os.replace(temporary, target)  # readers see the whole entry or none
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError):
            temporary.unlink(missing_ok=True)
