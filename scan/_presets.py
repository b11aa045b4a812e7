"""Framework presets: the seams of an agent framework, by the names its own API gives them.

`preset = "langchain"` in `[tool.toolsurface.scan]` adds these names to the defaults, so a project
built on the framework is scanned in its own words without writing a seam list. A setting the
project writes itself replaces the preset's and the default's names for that setting.

Only names that mean the same thing wherever they are called are listed. A middleware's
`handler(request)` or a wrapper model's `self.wrapped.request(...)` hands the request on to the
framework rather than sending it, so neither is a dispatch: the send is the call that binds or
posts the tools to the provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

_Preset = Mapping[str, tuple[str, ...]]

PRESETS: Mapping[str, _Preset] = MappingProxyType(
    {
        "langchain": MappingProxyType(
            {
                # `model.bind_tools(tools)` is where a LangChain chat model takes the tools it sends.
                "dispatch": ("bind_tools",),
                "tool_words": ("tools", "tool_list", "surface", "selected_tools", "available_tools"),
                "schema_keys": ("input_schema", "inputSchema", "parameters", "args_schema", "tool_call_schema"),
            }
        ),
        "pydantic-ai": MappingProxyType(
            {
                "tool_words": ("tools", "tool_list", "surface", "tool_defs", "function_tools", "tool_definitions"),
                "schema_keys": ("input_schema", "inputSchema", "parameters", "parameters_json_schema", "json_schema"),
            }
        ),
        "openai-agents": MappingProxyType(
            {
                # The Responses and Chat Completions calls a `Model` makes with the converted tools.
                "dispatch": ("responses.create", "chat.completions.create"),
                "tool_words": ("tools", "tool_list", "surface", "all_tools", "function_tools", "converted_tools"),
                "schema_keys": ("input_schema", "inputSchema", "parameters", "params_json_schema"),
            }
        ),
        "mcp": MappingProxyType(
            {
                # An MCP host sends the listed tools through a provider SDK; `session.send_request`
                # is JSON-RPC to the server, never a model call.
                "dispatch": ("chat.completions.create", "responses.create", "messages.create"),
                "schema_keys": ("input_schema", "inputSchema", "outputSchema", "parameters"),
            }
        ),
    }
)


def with_presets(defaults: Mapping[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The default names of each setting, with every named preset's names added once, in order."""
    merged = dict(defaults)
    for name in names:
        for setting, added in PRESETS[name].items():
            merged[setting] = tuple(dict.fromkeys((*merged[setting], *added)))
    return merged
