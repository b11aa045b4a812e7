"""How LangChain hands tools to the model after an agent's last boundary, and what a user can do about it.

A `create_agent` agent binds the request's tools to its chat model, and the provider integrations
convert each with `convert_to_openai_tool`: a `StructuredTool` whose `args_schema` is a JSON-schema
dict comes out with its `$ref`s inlined and its `$defs` and `title`s dropped. The harness's offline
models convert the same way (`GatewayModel.bind_tools`), so a target declares this form
(`framework_form`), and a failure it explains is reported as LangChain's own (`_attribution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.utils.function_calling import convert_to_openai_tool

from toolsurface.guard._langchain_views import tool_view

from ._langchain_views import new_tool

#: What a user can do about a failure LangChain's conversion causes: every report shows it beside those causes.
REMEDY = (
    "LangChain converts each tool on its way to the model (convert_to_openai_tool inlines $refs and drops "
    "$defs and titles of a JSON-schema tool): install the guard as docs/guards.md says (guard.last hands the "
    "model the checked tools as dicts, which the conversion passes on unchanged), or give the tools as "
    "JSON-schema dicts already in the provider's form"
)


def as_sent(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Logical tool dicts as LangChain hands them to a chat model: each the `StructuredTool` its
    JSON schema makes, converted as the provider integrations convert it, in the same order."""
    return [tool_view(convert_to_openai_tool(new_tool(t["name"], t["description"], t["input_schema"]))) for t in tools]
