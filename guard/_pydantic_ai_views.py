"""How the pydantic-ai guard reads pydantic-ai's objects: tool definitions and messages as the
logical dicts the core compares and estimates.

- a tool view is `{"name", "description", "input_schema"}` whose `input_schema` *is* the
  definition's `parameters_json_schema` dict (read, never copied: the check serialises it);
- a message view is `{"role", "content"}` per visible part of a message: system prompt, user
  prompt, assistant text and tool return with text content. Tool calls, and parts without text,
  are not shown: a summary or a token estimate reads the text a conversation carries.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    SystemPromptPart,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.tools import ToolDefinition

from toolsurface.contract._formats import LOGICAL

#: The guard compares name, description and input schema: a pydantic-ai tool definition's wire
#: fields (`strict`, metadata, return schema) are the provider conversion's business, not the surface's.
VIEWS = LOGICAL.only(())

#: The role each part type a message view shows is shown as.
ROLE_OF: dict[type, str] = {
    SystemPromptPart: "system",
    UserPromptPart: "user",
    TextPart: "assistant",
    ToolReturnPart: "tool",
}


def tool_view(tool: ToolDefinition) -> dict[str, Any]:
    """The logical dict of a tool definition, sharing its live schema."""
    return {"name": tool.name, "description": tool.description or "", "input_schema": tool.parameters_json_schema}


def shown_as(part: Any) -> tuple[str, str] | None:
    """The (role, content) a message part is shown as, or None for a part the views do not show."""
    role = ROLE_OF.get(type(part))
    if role is None or not isinstance(part.content, str):
        return None
    return role, part.content


def message_views(messages: Iterable[ModelMessage]) -> Iterator[dict[str, str]]:
    """The conversation as `{"role", "content"}` dicts, one per visible part, in order, made as
    they are read: a check that reads no message reads none."""
    for message in messages:
        for part in message.parts:
            if (shown := shown_as(part)) is not None:
                yield {"role": shown[0], "content": shown[1]}
