"""Run a function with room to recurse: valid Python nested thousands deep is still analysed.

libcst's parser, its position metadata and CPython's own AST construction recurse once per level
of nesting, and a 1,500-term sum `1 + 1 + … + 1` is 1,500 levels deep. The main thread's stack
(8 MiB) and the default recursion limit (1,000) give up long before such a file ends, so the
work runs in a thread of its own with a large stack and a raised limit. The stack is reserved
address space: pages a shallow file never touches cost nothing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Bytes of stack for the thread: enough for 100,000 levels of libcst's recursion.
STACK_BYTES = 1 << 30
#: Python frames the thread may nest; the stack above holds this many of libcst's with room to spare.
RECURSION_LIMIT = 200_000

#: `threading.stack_size` and the recursion limit are process-wide: one deep call sets them at a time.
_lock = threading.Lock()


def with_deep_stack(function: Callable[[], T]) -> T:
    """`function()`, run in a thread with a large stack and a raised recursion limit; it re-raises."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function())
        except BaseException as error:  # handed to the caller's thread, raised there
            failure.append(error)

    with _lock:
        previous_size, previous_limit = threading.stack_size(), sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
        try:
            try:
                threading.stack_size(STACK_BYTES)
                thread = threading.Thread(target=run, name="toolsurface-scan-deep")
                thread.start()
            except (RuntimeError, ValueError, MemoryError):
                # No room for such a stack here (a small address-space limit): the file is
                # analysed on this thread's stack, and only the deepest nesting is refused.
                sys.setrecursionlimit(previous_limit)
                run()
            else:
                thread.join()
            finally:
                threading.stack_size(previous_size)
        finally:
            sys.setrecursionlimit(previous_limit)
    if failure:
        raise failure[0]
    return outcome[0]
