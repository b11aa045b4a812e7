"""Objects that outlive a block, kept out of the garbage collector's sight while it runs."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def frozen() -> Iterator[None]:
    """Every object alive now frozen (no collection walks it) until the block ends, then thawed.
    Where some are frozen already, the caller froze them on purpose: this leaves them so and
    freezes nothing more."""
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
