"""Scenarios derived from an agent's own tools, where there is no recording of it to replay.

An agent built with tools of its own (`langchain:myapp:build` with `build(model)`) is tested on
requests made for its tools: each derived scenario admits every tool the agent registers, in the
order it registers them, and puts one of the shapes the case families need around them:

- `own-request`: one model call, a system and a user message;
- `own-tool-loop`: the model calls the first tools in turn, one per model call (each tool's
  arguments made from its input schema, its result a line of text), then answers; every model call
  is prepared and checked again;
- `own-over-budget`: the same request with a context fit whose token budget is half what the tools
  and messages take (as JSON; a framework's own form of them differs by some bytes, so not at
  the edge): the request must end in an explicit capacity result;
- `own-over-tool-limit`: a provider limit of one tool fewer than the agent has (for two tools or
  more): a capacity result, never a shorter list.

No owner facts: which of an agent's tools an owner governs is the agent's to say, so the
availability cases run as on any recording without facts (an injected untrusted fact changes
nothing). `derived` loads them as any recording is loaded, checks included.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolsurface.contract._guard import estimate_tokens

from ._loader import parse
from ._model import Scenario

#: How many tools the tool loop calls, one per model call, before the model answers.
LOOP_CALLS = 2
#: Placeholder identities: a derived request belongs to no recorded run.
_IDENTITY = {
    "run": "run_derived",
    "scope": "scope:derived",
    "invocation": "inv_derived",
    "connection": "conn_derived",
    "request": "req_derived",
}
_SYSTEM = "You are the agent under test. Use the tools you are given where they help."
#: A token budget no derived request comes near.
_ROOMY = 1_000_000


def derived(tools: Sequence[Mapping[str, Any]], about: str) -> tuple[Scenario, ...]:
    """The derived scenarios for `tools`, loaded: each named as derived from `about`."""
    return tuple(parse(document, source=f"derived from {about}") for document in derive(tools, about))


def derive(tools: Sequence[Mapping[str, Any]], about: str) -> tuple[dict[str, Any], ...]:
    """The derived scenario documents for `tools` (logical descriptors: name, description,
    input_schema), which `about` names (the target spec) in each description."""
    admitted = [
        {"name": tool["name"], "description": tool.get("description") or "", "input_schema": tool["input_schema"]}
        for tool in tools
    ]
    if not admitted:
        raise ValueError(f"{about} registers no tools: there is nothing to derive a request for")
    names = ", ".join(tool["name"] for tool in admitted[:3]) + (", …" if len(admitted) > 3 else "")
    question = f"Use your tools ({names}) to answer: what do they report for the default inputs?"
    messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": question}]
    needed = sum(estimate_tokens(tool) for tool in admitted) + estimate_tokens(messages)
    loop = admitted[:LOOP_CALLS]
    documents = [
        _document("own-request", f"One model call of {about}, with every tool it registers.", admitted, messages),
        _document(
            "own-tool-loop",
            f"{about} calls {', '.join(tool['name'] for tool in loop)} in turn, one per model call, then answers.",
            admitted,
            messages,
            steps=[_step(tool) for tool in loop],
        ),
        _document(
            "own-over-budget",
            f"One model call of {about} with a token budget of half what its tools and messages take.",
            admitted,
            messages,
            fit={"budget_tokens": needed // 2},
        ),
    ]
    if len(admitted) > 1:
        documents.append(
            _document(
                "own-over-tool-limit",
                f"One model call of {about} under a provider limit of {len(admitted) - 1} tools.",
                admitted,
                messages,
                fit={"budget_tokens": _ROOMY, "max_tools": len(admitted) - 1},
            )
        )
    return tuple(documents)


def _document(
    scenario_id: str,
    description: str,
    admitted: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    fit: dict[str, Any] | None = None,
    steps: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    fitting = {"budget_tokens": _ROOMY, **(fit or {})}
    capacity = fit is not None and (fitting["budget_tokens"] < _ROOMY or "max_tools" in fitting)
    stages = [{"stage": "hook"}, {"stage": "context_fit", "keep_messages": len(messages), **fitting}, {"stage": "seal"}]
    document: dict[str, Any] = {
        "format": "toolsurface.scenario/1",
        "id": scenario_id,
        "description": description,
        "mode": "research",
        "lane": "main",
        "identity": dict(_IDENTITY),
        "tool_format": "logical",
        "contract": {"admitted": admitted},
        "messages": messages,
        "hooks": True,
        "stages": stages,
    }
    if capacity:
        document["outcome"] = "capacity"
    if steps:
        document["steps"] = steps
    return document


def _step(tool: Mapping[str, Any]) -> dict[str, Any]:
    """One more model call, after the model called `tool` with arguments its schema takes."""
    return {
        "calls": [
            {
                "name": tool["name"],
                "arguments": example(tool["input_schema"], tool["input_schema"]),
                "result": f"[{tool['name']}] done",
            }
        ],
        "stages": [{"stage": "hook"}, {"stage": "seal"}],
    }


def example(schema: Any, root: Mapping[str, Any], depth: int = 0) -> Any:
    """A value `schema` takes, made without search: its example, default, const or first enum
    value, else one built from its type (required properties only, the fewest items, the least
    number). A `pattern` is not matched: a value for it comes from the schema's own examples."""
    if not isinstance(schema, Mapping) or depth > 8:
        return {}
    if isinstance(ref := schema.get("$ref"), str) and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target.get(part, {}) if isinstance(target, Mapping) else {}
        return example(target, root, depth + 1)
    for key in ("examples", "enum"):
        if isinstance(values := schema.get(key), list) and values:
            return values[0]
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(options := schema.get(key), list) and options:
            return example(options[0], root, depth + 1)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        return {name: example(properties.get(name, {}), root, depth + 1) for name in schema.get("required", ())}
    if kind == "array":
        return [example(schema.get("items", {}), root, depth + 1) for _ in range(int(schema.get("minItems", 0)))]
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return int(low) + (1 if "exclusiveMinimum" in schema else 0) if kind == "integer" else low
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    text = "https://example.com" if schema.get("format") == "uri" else "example"
    return text.ljust(int(schema.get("minLength", 0)), "x")
