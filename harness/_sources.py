"""Where a run's recordings came from, named the same on every machine.

results.json names each recording's file (`run.scenarios[].source`) and the scenario paths given
(`run.scenario_paths`). Written as this machine has them, two CI runners of one commit — checked
out and installed at other absolute paths — would write files that differ, and shards of one run
would merge into a record that depends on which shard came first. So a recording is named:

- shipped with toolsurface: by its path inside the package, `toolsurface/scenarios/bundled/…`;
- given by the user: relative to the run's working directory, as it was given or found under it;
- anywhere else: by its content, `sha256:<digest>`, which `run.scenarios[].digest` pins anyway.

A scenario path given outside the working directory is kept as given: it is what `reproduce` and
`verify` read the recordings from, and there is nothing else to find them by.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from toolsurface.scenarios import bundled_dir

#: How the bundled recordings are named: their folder inside the installed package.
BUNDLED = PurePosixPath("toolsurface", "scenarios", "bundled")


def portable_source(source: str, digest: str, cwd: Path | None = None) -> str:
    """The name results.json gives the recording loaded from `source`, whose content has `digest`."""
    path = Path(source)
    if (inside := _under(path, bundled_dir())) is not None:
        return str(BUNDLED / inside)
    if not path.is_absolute() or _under(path, cwd or _working_directory()) is not None:
        return portable_path(source, cwd)
    return f"sha256:{digest}"


def portable_path(given: str, cwd: Path | None = None) -> str:
    """A path as given, or relative to the working directory when it lies under it (POSIX
    separators): the same text on every checkout of one repository."""
    path = Path(given)
    if not path.is_absolute():
        return PurePosixPath(*path.parts).as_posix() if path.parts else given
    inside = _under(path, cwd or _working_directory())
    return given if inside is None else (inside.as_posix() or ".")


def _working_directory() -> Path:
    try:
        return Path.cwd()
    except OSError:  # removed from under the run: nothing lies under it
        return Path("/nonexistent-working-directory")


def _under(path: Path, root: Path) -> PurePosixPath | None:
    """`path` relative to `root` when it lies under it, as written or with links resolved; else None."""
    for mine, theirs in ((path, root), (_resolved(path), _resolved(root))):
        try:
            return PurePosixPath(*mine.relative_to(theirs).parts)
        except ValueError:
            continue
    return None


def _resolved(path: Path) -> Path:
    """`path` absolute, with links resolved where they can be (a path too long to look up stays as it is)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return Path(os.path.abspath(path))
