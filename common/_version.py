"""The installed toolsurface version, for reports and cache keys."""

from __future__ import annotations

import functools
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _installed


@functools.cache
def version() -> str:
    try:
        return _installed("toolsurface")
    except PackageNotFoundError:
        return "0+unknown"
