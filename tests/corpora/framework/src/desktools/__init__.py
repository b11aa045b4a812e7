"""desktools: the desk's tool definitions, catalogue and provider formats."""

from .controls import CONTROL_NAMES, fetch_artifact, is_control, read_tool_result
from .converters import convert_all, to_anthropic, to_mcp, to_openai
from .market import MarketToolset, default_toolset, market_tools
from .mcp_bridge import McpToolset, list_all
from .registry import ToolCatalog, drop_examples, register_schema, schema_for, wrap_function

__all__ = [
    "CONTROL_NAMES",
    "McpToolset",
    "MarketToolset",
    "ToolCatalog",
    "convert_all",
    "default_toolset",
    "drop_examples",
    "fetch_artifact",
    "is_control",
    "list_all",
    "market_tools",
    "read_tool_result",
    "register_schema",
    "schema_for",
    "to_anthropic",
    "to_mcp",
    "to_openai",
    "wrap_function",
]
