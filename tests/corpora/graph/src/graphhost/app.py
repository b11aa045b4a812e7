"""Wires a deployment together: catalogue, graph, providers, middleware and ledger."""

from __future__ import annotations

from copy import copy as duplicate
from typing import Sequence

import plugins.paging as paging
from plugins import builtin, guards
from plugins.registry import default_registry as mw
from providers import AdapterSet, AnthropicAdapter, Gateway, OpenAIAdapter

from . import nodes
from .catalog import ToolCatalog
from .graph import END, Graph
from .ledger import Ledger
from .models import ToolResult, ToolSpec
from .runtime import GraphRunner, ToolExecutor
from .settings import SETTINGS, Settings
from .state import CheckpointStore


async def _no_tools(call) -> ToolResult:
    return ToolResult(call_id=call.id, name=call.name, content={"error": "no executor configured"}, is_error=True)


def build(tool_specs: Sequence[ToolSpec], budgets: dict[str, int], *, settings: Settings = SETTINGS,
          execute_tool: ToolExecutor = _no_tools, routes: dict[str, str] | None = None) -> GraphRunner:
    catalog = ToolCatalog(settings)
    catalog.adopt(tool_specs)
    admitted = catalog.admit()

    store = CheckpointStore()
    store.pin("default", admitted.tools)

    pinned = duplicate(admitted.tools)
    gate = guards.FinalGate()
    mw.register_middleware("pre_invoke", guards.ParityInterceptor(pinned))
    mw.register_middleware("pre_invoke", guards.validate_schemas)
    mw.register_middleware("pre_invoke", guards.scrub_internal_args)
    mw.register_middleware("pre_invoke", guards.TenantScoper(settings.tenant))
    mw.register_middleware("pre_invoke", paging.widen_for_followups)
    mw.register_middleware("pre_invoke", builtin.OutputPager(threshold_chars=12_000))
    mw.register_middleware("post_invoke", gate.record)

    graph = Graph(admitted, catalog, settings)
    graph.add_node("plan", nodes.plan)
    graph.add_node("select", nodes.select_tools)
    graph.add_node("guard", nodes.guard)
    graph.add_node("call", nodes.call)
    graph.add_node("tools", nodes.run_tools)
    graph.set_entry("plan")
    graph.add_edge("plan", "select").add_edge("select", "guard").add_edge("guard", "call")
    graph.add_conditional_edges("call", nodes.route)
    graph.add_edge("tools", "plan")

    gateway = Gateway(routes or {"primary": "http://localhost:8700/v1/chat"})
    adapters = AdapterSet({
        "gpt": OpenAIAdapter(gateway, settings),
        "claude": AnthropicAdapter(gateway, settings),
    })
    runner = GraphRunner(graph, gateway, adapters, Ledger(budgets), mw, settings, execute_tool)
    runner.store = store
    runner.gate = gate
    return runner


__all__ = ["build", "END"]
