"""Request interceptors: hooks and middleware that adjust a request before it is sent."""

from __future__ import annotations

import logging
from typing import Protocol

from agentcore import AgentMiddleware, ModelRequest, ModelResponse, clone_schema, register_hook
from agentcore.middleware import Handler
from desktools.controls import fetch_artifact as artifact_tool
from desktools.controls import read_tool_result

log = logging.getLogger(__name__)

_GLOSSARY = {
    "de": {"What to search the web for.": "Wonach im Web gesucht werden soll."},
    "fr": {"What to search the web for.": "Ce qu'il faut chercher sur le web."},
}


def _translate(text: str, locale: str) -> str:
    return _GLOSSARY.get(locale, {}).get(text, text)


def attach_result_reader(request: ModelRequest) -> None:
    """Offer the result reader when an earlier tool result was stored rather than inlined."""
    stored = [m for m in request.messages if m.role == "tool" and m.metadata.get("stored_result")]
    if stored and all(definition.name != read_tool_result.name for definition in request.tools):
        log.info("%d stored results in %s; offering the reader", len(stored), request.run_id)
        request.tools.append(read_tool_result)


class ArtifactStore(Protocol):
    def has_artifacts(self, run_id: str) -> bool: ...


class ArtifactMiddleware(AgentMiddleware):
    """Lets the model fetch artifacts that earlier turns of the run produced."""

    name = "artifacts"

    def __init__(self, store: ArtifactStore) -> None:
        self._store = store

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        if self._store.has_artifacts(request.run_id):
            request.tools = [*request.tools, artifact_tool]
        return handler(request)


@register_hook("before_send")
def cap_query_length(request: ModelRequest) -> None:
    """Providers reject very long search queries; state the limit in the schema."""
    for definition in request.tools:
        props = definition.parameters.get("properties", {})
        query = props.get("query")
        if isinstance(query, dict) and "maxLength" not in query:
            query["maxLength"] = 512


@register_hook("before_send")
def localise_descriptions(request: ModelRequest) -> None:
    """Translate tool descriptions for desks that run in another language."""
    locale = request.settings.get("locale")
    if not locale:
        return
    for index, definition in enumerate(request.tools):
        shape = clone_schema(definition.parameters)
        shape["description"] = _translate(shape.get("description", ""), locale)
        request.tools[index] = definition.model_copy(
            update={"parameters": shape, "description": _translate(definition.description, locale)}
        )


@register_hook("before_send")
def mark_read_only(request: ModelRequest) -> None:
    """Annotate lookup tools so the model prefers them for cheap questions."""
    for index, definition in enumerate(request.tools):
        if definition.name.endswith(("__read", "__quote")):
            shape = dict(definition.parameters)
            shape["x-read-only"] = True
            request.tools[index] = definition.model_copy(update={"parameters": shape})


class DescriptionTrimmer:
    """Trims argument descriptions longer than a provider accepts."""

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit

    def __call__(self, request: ModelRequest) -> None:
        for definition in request.tools:
            for prop in definition.parameters.get("properties", {}).values():
                text = prop.get("description")
                if isinstance(text, str) and len(text) > self.limit:
                    prop["description"] = text[: self.limit - 1] + "…"
