"""A small graph of nodes over a RunState, compiled once per deployment."""

from __future__ import annotations

import inspect
import itertools
from typing import Any, Awaitable, Callable, Union

from .catalog import ToolCatalog
from .models import ToolSpec, Toolset
from .settings import Settings
from .state import RunState

END = "__end__"

NodeFn = Callable[[RunState, Any], Union[RunState, Awaitable[RunState]]]
Router = Callable[[RunState], str]


class GraphError(RuntimeError):
    pass


class Graph:
    def __init__(self, admitted: Toolset, catalog: ToolCatalog, settings: Settings) -> None:
        self.admitted = admitted
        self.baseline = admitted.model_copy()
        self.catalog = catalog
        self.settings = settings
        self._nodes: dict[str, NodeFn] = {}
        self._edges: dict[str, Union[str, Router]] = {}
        self._entry: str | None = None

    def add_node(self, name: str, fn: NodeFn) -> "Graph":
        if name in self._nodes or name == END:
            raise GraphError(f"node {name!r} already defined")
        self._nodes[name] = fn
        return self

    def add_edge(self, source: str, target: str) -> "Graph":
        self._edges[source] = target
        return self

    def add_conditional_edges(self, source: str, router: Router) -> "Graph":
        self._edges[source] = router
        return self

    def set_entry(self, name: str) -> "Graph":
        self._entry = name
        return self

    def shortlist(self) -> list[ToolSpec]:
        """Tools for a quick single-shot call: the first few enabled ones."""
        cap = max(1, self.settings.max_tools // 4)
        return list(itertools.islice(self.catalog.enabled(), cap))

    def initial_state(self, graph_id: str) -> RunState:
        return RunState(graph_id=graph_id, tools=list(self.admitted.tools))

    async def run(self, state: RunState, runner: Any, *, max_steps: int = 50) -> RunState:
        if self._entry is None:
            raise GraphError("no entry node")
        current = self._entry
        for _ in range(max_steps):
            if current == END:
                return state
            out = self._nodes[current](state, runner)
            state = await out if inspect.isawaitable(out) else out
            edge = self._edges.get(current, END)
            current = edge(state) if callable(edge) else edge
        raise GraphError(f"graph did not finish in {max_steps} steps")
