"""relay: an agent host over MCP tool servers."""

from relay.agent import Agent, AgentBase
from relay.context import ModelResponse, TurnRequest
from relay.errors import BudgetRefused, SurfaceDrift
from relay.ledger import Ledger, Reservation
from relay.runner import RunResult, Runner
from relay.surface import SurfaceGate, assert_surface_parity, diff_surface, freeze_surface
from relay.tools import FunctionTool, ToolProvider, Toolset, function_tool, read_tool_output

__all__ = [
    "Agent",
    "AgentBase",
    "BudgetRefused",
    "FunctionTool",
    "Ledger",
    "ModelResponse",
    "Reservation",
    "RunResult",
    "Runner",
    "SurfaceDrift",
    "SurfaceGate",
    "ToolProvider",
    "Toolset",
    "TurnRequest",
    "assert_surface_parity",
    "diff_surface",
    "freeze_surface",
    "function_tool",
    "read_tool_output",
]
