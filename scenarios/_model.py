"""Value types of a recorded request pipeline.

Everything here is frozen. JSON-valued fields (input schemas, stage metadata) are kept as the
bytes they were recorded as, so no caller can edit a scenario through a shared dict: each read
hands out a fresh object.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson


class Lane(enum.StrEnum):
    """Which request owner a pipeline belongs to; each has its own ledger."""

    MAIN = "main"
    CHILD = "child"


class StageKind(enum.StrEnum):
    """A recorded stage, in the only order a pipeline may run them."""

    HOOK = "hook"
    REVALIDATE = "revalidate"
    CONTEXT_FIT = "context_fit"
    EVIDENCE = "evidence"
    PUBLICATION = "publication"
    ASYNC_PREP = "async_prep"
    SEAL = "seal"

    @property
    def point(self) -> str:
        """The injection point that follows this stage."""
        return _POINT_AFTER[self]


_POINT_AFTER = {
    StageKind.HOOK: "hook",
    StageKind.REVALIDATE: "post_revalidation",
    StageKind.CONTEXT_FIT: "context_fit",
    StageKind.EVIDENCE: "evidence",
    StageKind.PUBLICATION: "publication",
    StageKind.ASYNC_PREP: "async_prep",
    StageKind.SEAL: "post_seal",
}

#: Every injection point a pipeline can expose, in pipeline order.
POINTS: tuple[str, ...] = tuple(kind.point for kind in StageKind)


@dataclass(frozen=True, slots=True)
class ToolDescriptor:
    """One logical tool: what the model is told it may call."""

    name: str
    description: str
    #: The input JSON Schema exactly as recorded (key order kept), as JSON bytes.
    schema_json: bytes

    @classmethod
    def of(cls, name: str, description: str, input_schema: Mapping[str, Any]) -> ToolDescriptor:
        return cls(name, description, orjson.dumps(input_schema))

    @property
    def input_schema(self) -> dict[str, Any]:
        """A fresh copy of the input schema; editing it changes nothing here."""
        return orjson.loads(self.schema_json)

    def as_logical(self) -> dict[str, Any]:
        """A fresh `name/description/input_schema` dict."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a request belongs to; owner facts and settlements are bound to it."""

    run: str
    scope: str
    invocation: str
    connection: str
    request: str


@dataclass(frozen=True, slots=True)
class Contract:
    """What the owners admitted for this turn."""

    admitted: tuple[ToolDescriptor, ...]
    #: Control tools the host knows how to offer, eligible or not.
    controls: tuple[ToolDescriptor, ...] = ()
    #: Names of the controls the host/fitting entry made eligible this turn.
    eligible_controls: frozenset[str] = frozenset()
    #: Tools admitted to other scopes of the same run, never to this request.
    admitted_elsewhere: tuple[ToolDescriptor, ...] = ()

    @property
    def surface(self) -> tuple[ToolDescriptor, ...]:
        """The admitted surface: admitted tools, then eligible controls in catalogue order."""
        eligible = tuple(c for c in self.controls if c.name in self.eligible_controls)
        return self.admitted + eligible

    @property
    def ineligible_controls(self) -> tuple[ToolDescriptor, ...]:
        return tuple(c for c in self.controls if c.name not in self.eligible_controls)


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class Stage:
    """One recorded stage and the legitimate effect it had on the request."""

    kind: StageKind
    #: context_fit: how many messages remain after compression.
    keep_messages: int | None = None
    #: context_fit: the token budget the request had to fit in.
    budget_tokens: int | None = None
    #: evidence: messages the stage appended.
    add_messages: tuple[Message, ...] = ()
    #: async_prep: request metadata the stage attached, as JSON bytes.
    metadata_json: bytes = b"{}"

    @property
    def point(self) -> str:
        return self.kind.point

    @property
    def metadata(self) -> dict[str, Any]:
        return orjson.loads(self.metadata_json)


@dataclass(frozen=True, slots=True)
class Publication:
    """A body that was already publishable before this request was prepared."""

    id: str
    body: str


@dataclass(frozen=True, slots=True)
class Scenario:
    """A recorded request pipeline: the contract, the request, and the stages it went through."""

    id: str
    description: str
    mode: str
    lane: Lane
    identity: Identity
    #: The shape the recorded host gives its live tool objects (see `harness.FORMATS`).
    tool_format: str
    contract: Contract
    messages: tuple[Message, ...]
    hooks: bool
    stages: tuple[Stage, ...]
    publication: Publication | None = None
    #: The file it was loaded from, for messages and reproduce commands.
    source: str = field(default="", compare=False)

    @property
    def points(self) -> tuple[str, ...]:
        """The injection points this pipeline exposes, in order."""
        return tuple(stage.point for stage in self.stages)

    def stage(self, kind: StageKind) -> Stage | None:
        return next((s for s in self.stages if s.kind is kind), None)
