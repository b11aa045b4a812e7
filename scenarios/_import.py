"""Scenario skeletons from what a host logged: an OpenAI or Anthropic request body, an MCP
`tools/list` response, or an OTLP export of OpenTelemetry GenAI spans (one skeleton per model call).

A logged request shows what was sealed and sent, nothing of the stages before it, so a skeleton
holds the request's function tools as its admitted contract, its messages, identities (the trace
and span ids of a span; placeholders for a body, whose log does not say which run it was) and a
single `seal` stage; the host's own stages, lane and identity are for its owner to fill in. Tools
that are not the host's to admit (a provider's built-in and server tools) are kept out of the
contract and named in the skeleton's description and in a note. A document that is another kind
of log than the one asked for is named as such. Each skeleton is checked by the scenario loader
before it is returned, so what this module gives always loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from toolsurface.contract._json import loads as exact_json

from ._errors import ScenarioError
from ._import_bodies import read_anthropic, read_mcp, read_openai, shape_of
from ._import_common import Logged, Problem, kept_out_notes
from ._import_otel import ModelCall, read_export
from ._loader import parse

_ID_UNSAFE = re.compile(r"[^a-z0-9-]+")
#: Identity placeholders: the log of one request body does not say which run, scope or connection it was.
_IDENTITY = {
    "run": "run_imported",
    "scope": "scope:imported",
    "invocation": "inv_imported",
    "connection": "conn_imported",
    "request": "req_imported",
}
_BODIES: dict[str, Callable[[Any], Logged]] = {"openai": read_openai, "anthropic": read_anthropic, "mcp": read_mcp}
#: The logs `toolsurface import` reads: one request body each, or (`otel`) a span export.
IMPORT_KINDS = (*_BODIES, "otel")


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import made of one log: its scenario skeletons (each loads), and one line for each
    tool it kept out of a contract, each span it skipped and each thing the log lacked."""

    scenarios: tuple[dict[str, Any], ...]
    notes: tuple[str, ...] = ()


def import_file(kind: str, path: Path, scenario_id: str | None = None) -> dict[str, Any]:
    """The skeleton for the request body in `path` (id: from the file name unless given)."""
    _check_body(kind)
    (scenario,) = import_log_file(kind, path, scenario_id).scenarios
    return scenario


def import_scenario(kind: str, document: Any, source: str, scenario_id: str) -> dict[str, Any]:
    """A skeleton for `document`, which `source` logged as a `kind` body; `ScenarioError` otherwise."""
    _check_body(kind)
    (scenario,) = import_log(kind, [(source, document)], scenario_id).scenarios
    return scenario


def import_log_file(kind: str, path: Path, scenario_id: str | None = None) -> Imported:
    """The skeletons for the log in `path`; their id (for `otel`, each one's prefix, followed by
    its span id) comes from the file name unless given. An `otel` file may hold one JSON document
    or one per line (JSON Lines)."""
    if kind not in IMPORT_KINDS:
        raise ValueError(f"{kind=} must be one of {', '.join(IMPORT_KINDS)}")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ScenarioError([f"{path}: cannot read: {error.strerror}"]) from None
    return import_log(kind, _documents(kind, raw, str(path)), scenario_id or scenario_id_for(path.stem))


def import_log(kind: str, documents: list[tuple[str, Any]], scenario_id: str) -> Imported:
    """The skeletons for decoded `documents` (`(source, JSON)` each: one for a body, several for
    the lines of an `otel` export), which were logged as `kind`; `ScenarioError` otherwise."""
    if kind not in IMPORT_KINDS:
        raise ValueError(f"{kind=} must be one of {', '.join(IMPORT_KINDS)}")
    for source, document in documents:
        shape = shape_of(document)
        if shape is not None and shape.kind != kind:
            problem = shape.mismatch()
            raise ScenarioError([f"{source}:{problem.path}: {problem}"])
    if kind == "otel":
        return _from_spans(documents, scenario_id)
    ((source, document),) = documents
    try:
        logged = _BODIES[kind](document)
        if not logged.tools:
            kept = f" (kept out: {', '.join(tool.label for tool in logged.kept_out)})" if logged.kept_out else ""
            raise Problem("$", f"the log lists no function tools{kept}: a research scenario admits at least one")
    except Problem as problem:
        raise ScenarioError([f"{source}:{problem.path}: {problem}"]) from None
    about = f"Imported from {kind} log {source}"
    skeleton = _skeleton(scenario_id, about, kind, logged, _IDENTITY, source)
    return Imported((skeleton,), tuple(kept_out_notes(logged.kept_out)))


def scenario_id_for(stem: str) -> str:
    """A scenario id made from a file name: lower case, letters, digits and dashes."""
    return _ID_UNSAFE.sub("-", stem.lower()).strip("-")[:64] or "imported"


def _check_body(kind: str) -> None:
    if kind not in _BODIES:
        raise ValueError(
            f"{kind=} must be one of {', '.join(_BODIES)}: an otel export gives one scenario per span (import_log_file)"
        )


def _documents(kind: str, raw: bytes, source: str) -> list[tuple[str, Any]]:
    """The file as one JSON document; an `otel` file that is not one, but whose first line is, is
    read as JSON Lines."""
    try:
        return [(source, exact_json(raw))]
    except orjson.JSONDecodeError as error:
        whole = ScenarioError([f"{source}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"])
    lines = [(number, line) for number, line in enumerate(raw.splitlines(), start=1) if line.strip()]
    if kind != "otel" or len(lines) < 2:
        raise whole
    documents = []
    for number, line in lines:
        try:
            documents.append((f"{source}:{number}", exact_json(line)))
        except orjson.JSONDecodeError as error:
            if not documents:  # not JSON Lines either: one document, broken where the whole file says
                raise whole from None
            raise ScenarioError(
                [f"{source}:{number}:{error.colno}: invalid JSON (read as JSON Lines): {error.msg}"]
            ) from None
    return documents


def _from_spans(documents: list[tuple[str, Any]], prefix: str) -> Imported:
    """One skeleton per model-call span, its id the prefix and the span id; every problem listed."""
    found, notes = read_export(documents)
    scenarios: list[dict[str, Any]] = []
    problems: list[str] = []
    first_seen: dict[str, str] = {}
    for call in found:
        scenario_id = f"{prefix[:47].rstrip('-')}-{call.span_id}"
        if scenario_id in first_seen:
            problems.append(f"{call.source}: {call.label} appears twice (also in {first_seen[scenario_id]})")
            continue
        first_seen[scenario_id] = call.source
        notes.extend(f"{call.label}: {line}" for line in kept_out_notes(call.logged.kept_out))
        notes.extend(call.logged.gaps)
        about = f"Imported from {call.label} of trace {call.trace_id} in {call.source}"
        try:
            scenarios.append(
                _skeleton(
                    scenario_id, about, call.tool_format, call.logged, _identity(call), f"{call.source} {call.label}"
                )
            )
        except ScenarioError as error:
            problems.extend(error.problems)
    if problems:
        raise ScenarioError(problems)
    return Imported(tuple(scenarios), tuple(notes))


def _identity(call: ModelCall) -> dict[str, str]:
    """The trace is the run and the span the request; its parent span, the invocation it was made in."""
    return {
        **_IDENTITY,
        "run": call.trace_id,
        "scope": call.conversation or _IDENTITY["scope"],
        "invocation": call.parent_id or _IDENTITY["invocation"],
        "request": call.span_id,
    }


def _skeleton(
    scenario_id: str, about: str, tool_format: str, logged: Logged, identity: dict[str, str], source: str
) -> dict[str, Any]:
    kept = f" Kept out of the contract: {', '.join(tool.label for tool in logged.kept_out)}." if logged.kept_out else ""
    skeleton = {
        "format": "toolsurface.scenario/1",
        "id": scenario_id,
        "description": f"{about}: review the lane, identity and stages before relying on it.{kept}",
        "mode": "research",
        "lane": "main",
        "identity": dict(identity),
        "tool_format": tool_format,
        "contract": {"admitted": list(logged.tools)},
        "messages": list(logged.messages) or [{"role": "user", "content": "(no messages were logged)"}],
        "hooks": False,
        "stages": [{"stage": "seal"}],
    }
    parse(skeleton, source=f"{source} (imported)")
    return skeleton
