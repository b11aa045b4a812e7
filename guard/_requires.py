"""The framework import gate, written once: a framework integration (a guard here, a target of the
engine's) imports its framework through it, so a missing or unsupported framework ends the import
with one line that says what to install, whichever module asked for it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType


@contextlib.contextmanager
def requires(install: str) -> Iterator[None]:
    """Around a module's framework imports: an `ImportError` among them is re-raised as `install`
    (what needs what, and the pip command) with the import's own words after it."""
    try:
        yield
    except ImportError as error:  # not installed, or a version without the APIs imported
        raise ImportError(f"{install} ({error})") from error


def require_version(install: str, module: ModuleType, distribution: str, prefix: str) -> None:
    """Refuse a framework whose `__version__` does not start with `prefix` (the supported major or
    minor): its APIs may import and still behave otherwise. `distribution` names it as pip does."""
    found = getattr(module, "__version__", None)
    if not isinstance(found, str) or not found.startswith(prefix):
        raise ImportError(f"{install} (found {distribution} {found or 'of unknown version'})")
