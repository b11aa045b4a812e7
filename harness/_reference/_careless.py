"""What careless hosts do: the flaws, never the rule.

Only defect variants and the legacy path call these. Diagnostic fields in a tool result say what
happened to that tool's own upstream; taking them for the web gateway's word is the mistake
`diagnostic-authority` and `recovery-reparse` make. A fitter that keeps the first tools that fit
is `topn-drop`'s and `silent-capacity-drop`'s; a baseline read back from live objects is
`shared-ref`'s and the legacy path's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

from toolsurface.contract._canonical import Snapshot, capture
from toolsurface.contract._facts import WebTools
from toolsurface.contract._formats import ToolFormat
from toolsurface.contract._guard import estimate_tokens


def diagnostic_hides(messages: Iterable[dict[str, Any]], web: WebTools | None) -> frozenset[str]:
    """The web tools a host would hide if it believed the diagnostics in these tool results."""
    if web is None:
        return frozenset()
    hidden: set[str] = set()
    for message in messages:
        if message.get("role") != "tool":
            continue
        for path, value, siblings in _leaves(_payload(str(message.get("content", "")))):
            key = path[-1].lower()
            # `is True` and `type(...) is int`: JSON false and 0 must stay apart, as must true and 1.
            if "deadline" in key and (value is True or (type(value) is int and value == 0)):
                hidden |= {web.search, web.read}
            elif key.endswith("exhausted") and value is True and _names_a_budget(path):  # noqa: SIM114
                hidden.add(web.search)
            elif key == "provider_attempt" and type(value) is int and value >= siblings.get("max_provider_attempts", 1):
                hidden.add(web.search)
    return frozenset(hidden)


def _names_a_budget(path: tuple[str, ...]) -> bool:
    return any(word in "/".join(path) for word in ("quota", "budget"))


def _payload(content: str) -> Any:
    """The JSON object a tool result carries after its `[tool]` prefix, if any."""
    start = content.find("{")
    if start < 0:
        return None
    try:
        return orjson.loads(content[start:])
    except orjson.JSONDecodeError:
        return None


def _leaves(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any, dict[str, Any]]]:
    """(path, value, the dict holding it) for every non-container value under `node`."""
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, dict | list):
                yield from _leaves(value, (*path, str(key)))
            else:
                yield (*path, str(key)), value, node
    elif isinstance(node, list):
        for item in node:
            yield from _leaves(item, path)


def first_that_fit(tools: list[Any], messages: list[Any], budget: int, fmt: ToolFormat) -> list[Any]:
    """The first tools that fit what `budget` leaves beside `messages`: the cut a careless fitter makes."""
    room, kept = budget - estimate_tokens(messages), []
    for tool in tools:
        room -= estimate_tokens(fmt.logical(tool))
        if room < 0:
            break
        kept.append(tool)
    return kept


def recapture(tools: list[Any], fmt: ToolFormat) -> Callable[[], Snapshot]:
    """A 'baseline' read from live objects at check time: edits to anything they share reach it."""
    return lambda: capture(tools, fmt)
