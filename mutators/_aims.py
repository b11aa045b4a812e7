"""What a mutation aims at: a closed set of small typed values, one class per kind of aim.

A mutator yields its aims from `aims()` and reads one back in `apply()`. `str(aim)` is the aim's
part of a case id (`…/add.replace:foreign:portfolio__transfer_cash@1`), and ids are how people
select, reproduce and accept cases: it must never change by a byte. Every field is plain (`str`,
non-negative `int`, or a `StrEnum`), so a generic codec can write an aim as
`{"type": tag, **fields}` and build it back from that.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import ClassVar, TypeAlias, TypeVar

from toolsurface.contract._facts import FactKind
from toolsurface.contract._lossy import Lossy

_E = TypeVar("_E", bound=enum.StrEnum)


class LooksLike(enum.StrEnum):
    """What the diagnostics of an unrelated tool result pretend to report."""

    BUDGET = "budget"
    DEADLINE = "deadline"
    PROVIDER_ATTEMPT = "provider_attempt"


class FactField(enum.StrEnum):
    """The one field a forged owner fact gets wrong: an identity it is bound to, or its owner."""

    RUN = "run"
    SCOPE = "scope"
    INVOCATION = "invocation"
    CONNECTION = "connection"
    OWNER = "owner"


class Where(enum.StrEnum):
    """Where a look-alike value differs from the real one: its first, a middle or its last character."""

    START = "start"
    MIDDLE = "middle"
    END = "end"


def _check_positions(**positions: int) -> None:
    # A bool is an int to Python but never a position; a str here would change the id's text.
    for name, value in positions.items():
        if type(value) is not int or value < 0:
            raise ValueError(f"{name}={value!r} must be an int >= 0")


def _check_named(**names: str) -> None:
    for name, value in names.items():
        if not isinstance(value, str) or not value:
            raise ValueError(f"{name}={value!r} must be a non-empty str")


def _member(cls: type[_E], name: str, value: str) -> _E:
    """`value` as a member of `cls`; a decoder hands over the plain string."""
    try:
        return cls(value)
    except ValueError:
        raise ValueError(f"{name}={value!r} must be one of {', '.join(cls)}") from None


@dataclass(frozen=True, slots=True)
class Tool:
    """One tool by name: a live tool to drop, rename, reword or duplicate, or a tool (a control,
    an admitted tool a fact hid) from a catalogue of the scenario to put in."""

    tag: ClassVar[str] = "tool"
    name: str

    def __post_init__(self) -> None:
        _check_named(name=self.name)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class Insert:
    """A tool from a mutator's catalogue, inserted before the live tool at `position`."""

    tag: ClassVar[str] = "insert"
    name: str
    position: int

    def __post_init__(self) -> None:
        _check_named(name=self.name)
        _check_positions(position=self.position)

    def __str__(self) -> str:
        return f"{self.name}@{self.position}"


@dataclass(frozen=True, slots=True)
class SchemaPath:
    """A place inside one tool's input schema, as a JSON Pointer (RFC 6901; a last `-` appends)."""

    tag: ClassVar[str] = "path"
    tool: str
    pointer: str

    def __post_init__(self) -> None:
        _check_named(tool=self.tool)
        # The root itself is never a place an edit lands: every edit changes a key or an item.
        if not isinstance(self.pointer, str) or not self.pointer.startswith("/"):
            raise ValueError(f"pointer={self.pointer!r} must be a JSON Pointer starting with '/'")

    def __str__(self) -> str:
        return f"{self.tool}:{self.pointer}"


@dataclass(frozen=True, slots=True)
class Swap:
    """Two positions of the live tool list that trade places."""

    tag: ClassVar[str] = "swap"
    first: int
    second: int

    def __post_init__(self) -> None:
        _check_positions(first=self.first, second=self.second)

    def __str__(self) -> str:
        return f"{self.first}<->{self.second}"


@dataclass(frozen=True, slots=True)
class Reverse:
    """The whole live tool list, reversed."""

    tag: ClassVar[str] = "reverse"

    def __str__(self) -> str:
        return "reverse"


@dataclass(frozen=True, slots=True)
class Rotate:
    """The live tool list rotated left: the first `by` tools (modulo its length) move to the end."""

    tag: ClassVar[str] = "rotate"
    by: int

    def __post_init__(self) -> None:
        _check_positions(by=self.by)

    def __str__(self) -> str:
        return f"rotate+{self.by}"


@dataclass(frozen=True, slots=True)
class Messages:
    """The conversation handed over with the tools, not any tool."""

    tag: ClassVar[str] = "messages"

    def __str__(self) -> str:
        return "messages"


@dataclass(frozen=True, slots=True)
class Request:
    """The request as it stands, touched nowhere: a derived scenario's limit is what is tried."""

    tag: ClassVar[str] = "request"

    def __str__(self) -> str:
        return "request"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A tool result whose diagnostics look like an availability signal."""

    tag: ClassVar[str] = "diagnostic"
    looks_like: LooksLike

    def __post_init__(self) -> None:
        object.__setattr__(self, "looks_like", _member(LooksLike, "looks_like", self.looks_like))

    def __str__(self) -> str:
        return self.looks_like.value


@dataclass(frozen=True, slots=True)
class Forgery:
    """A search-budget fact recorded with one field forged."""

    tag: ClassVar[str] = "forgery"
    field: FactField

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", _member(FactField, "field", self.field))

    def __str__(self) -> str:
        return self.field.value


@dataclass(frozen=True, slots=True)
class LookAlike:
    """A search-budget fact bound to a value of one identity field that differs from the real one
    only `at` one place: a host comparing prefixes, suffixes or last segments takes it for ours."""

    tag: ClassVar[str] = "lookalike"
    field: FactField
    at: Where

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", _member(FactField, "field", self.field))
        object.__setattr__(self, "at", _member(Where, "at", self.at))
        if self.field is FactField.OWNER:
            raise ValueError("field='owner' is no identity field: a look-alike binds another identity")

    def __str__(self) -> str:
        return f"{self.field}@{self.at}"


@dataclass(frozen=True, slots=True)
class ForeignOwner:
    """A correctly bound fact of `kind` produced by `owner`, a real owner but not this kind's."""

    tag: ClassVar[str] = "foreignowner"
    owner: str
    kind: FactKind

    def __post_init__(self) -> None:
        _check_named(owner=self.owner)
        object.__setattr__(self, "kind", _member(FactKind, "kind", self.kind))

    def __str__(self) -> str:
        return f"{self.owner}:{self.kind}"


@dataclass(frozen=True, slots=True)
class ParentBound:
    """A fact of `kind` from its owner, bound to the parent of a child request."""

    tag: ClassVar[str] = "parent"
    kind: FactKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _member(FactKind, "kind", self.kind))

    def __str__(self) -> str:
        return self.kind.value


@dataclass(frozen=True, slots=True)
class Narrowing:
    """A trusted fact of `kind`, bound to this very request, that its owner records mid-run."""

    tag: ClassVar[str] = "narrowing"
    kind: FactKind

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", _member(FactKind, "kind", self.kind))

    def __str__(self) -> str:
        return self.kind.value


@dataclass(frozen=True, slots=True)
class Claim:
    """One capability's line in an entry request's capability summary, by capability id."""

    tag: ClassVar[str] = "claim"
    capability: str

    def __post_init__(self) -> None:
        _check_named(capability=self.capability)

    def __str__(self) -> str:
        return self.capability


@dataclass(frozen=True, slots=True)
class WireField:
    """A wire field of one tool beyond its name, description and input schema (`strict`, `title`,
    `annotations`, `output_schema`), or a place inside an object-valued one as a JSON Pointer."""

    tag: ClassVar[str] = "wire"
    tool: str
    field: str
    #: "" for the whole field.
    pointer: str = ""

    def __post_init__(self) -> None:
        _check_named(tool=self.tool, field=self.field)
        if not isinstance(self.pointer, str) or (self.pointer and not self.pointer.startswith("/")):
            raise ValueError(f"pointer={self.pointer!r} must be empty or a JSON Pointer starting with '/'")

    def __str__(self) -> str:
        return f"{self.tool}:{self.field}{self.pointer}"


@dataclass(frozen=True, slots=True)
class Cut:
    """One tool's name or description cut to at most `length` characters, as a length limit would."""

    tag: ClassVar[str] = "cut"
    name: str
    length: int

    def __post_init__(self) -> None:
        _check_named(name=self.name)
        _check_positions(length=self.length)

    def __str__(self) -> str:
        return f"{self.name}~{self.length}"


@dataclass(frozen=True, slots=True)
class Keep:
    """The first `count` tools of the live list kept, the rest dropped: a cap on the list's length."""

    tag: ClassVar[str] = "keep"
    count: int

    def __post_init__(self) -> None:
        _check_positions(count=self.count)

    def __str__(self) -> str:
        return f"first{self.count}"


@dataclass(frozen=True, slots=True)
class Selection:
    """What a tool selector keeps: `keep` tools in their listed order, then the `always` included
    tool moved to the end (LangChain's `LLMToolSelectorMiddleware(max_tools=…, always_include=…)`)."""

    tag: ClassVar[str] = "selection"
    keep: int
    always: str

    def __post_init__(self) -> None:
        _check_positions(keep=self.keep)
        _check_named(always=self.always)

    def __str__(self) -> str:
        return f"keep{self.keep}+{self.always}"


@dataclass(frozen=True, slots=True)
class Text:
    """One string of one tool changed so that a `lossy` comparison cannot see it: the tool's `name`,
    its `description`, or a string inside its input schema at a JSON Pointer."""

    tag: ClassVar[str] = "text"
    tool: str
    #: `name`, `description`, or a JSON Pointer into the input schema.
    place: str
    lossy: Lossy

    def __post_init__(self) -> None:
        _check_named(tool=self.tool, place=self.place)
        if self.place not in ("name", "description") and not self.place.startswith("/"):
            raise ValueError(f"place={self.place!r} must be 'name', 'description' or a JSON Pointer")
        object.__setattr__(self, "lossy", _member(Lossy, "lossy", self.lossy))

    def __str__(self) -> str:
        return f"{self.tool}:{self.place}~{self.lossy}"


@dataclass(frozen=True, slots=True)
class FieldText:
    """A search-budget fact whose one identity field (or owner) differs from the real one only in a
    way a `lossy` comparison cannot see."""

    tag: ClassVar[str] = "fieldtext"
    field: FactField
    lossy: Lossy

    def __post_init__(self) -> None:
        object.__setattr__(self, "field", _member(FactField, "field", self.field))
        object.__setattr__(self, "lossy", _member(Lossy, "lossy", self.lossy))

    def __str__(self) -> str:
        return f"{self.field}~{self.lossy}"


@dataclass(frozen=True, slots=True)
class ClaimText:
    """One capability's line of an entry request's summary changed so that a `lossy` comparison
    cannot see it."""

    tag: ClassVar[str] = "claimtext"
    capability: str
    lossy: Lossy

    def __post_init__(self) -> None:
        _check_named(capability=self.capability)
        object.__setattr__(self, "lossy", _member(Lossy, "lossy", self.lossy))

    def __str__(self) -> str:
        return f"{self.capability}~{self.lossy}"


@dataclass(frozen=True, slots=True)
class Steps:
    """Edits made one after another at one boundary: the explorer's composed change. `edits` is
    their JSON, `[{"mutator": key, "delivery": …, "aim": {"type": tag, …fields}}, …]`, so that this
    aim stays one plain field as every other; `mutators/_composed.py` reads it."""

    tag: ClassVar[str] = "steps"
    edits: str

    def __post_init__(self) -> None:
        try:
            edits = json.loads(self.edits)
        except (TypeError, ValueError):
            raise ValueError(f"edits={self.edits!r} must be a JSON list of edits") from None
        if not (isinstance(edits, list) and len(edits) >= 2 and all(_an_edit(edit) for edit in edits)):
            raise ValueError(f"edits={self.edits!r} must list two or more edits, each a mutator, a delivery and an aim")

    def __str__(self) -> str:
        return " then ".join(
            f"{edit['mutator']}.{edit['delivery']}:{_spelled(edit['aim'])}" for edit in json.loads(self.edits)
        )


def _an_edit(edit: object) -> bool:
    return isinstance(edit, dict) and set(edit) == {"mutator", "delivery", "aim"} and isinstance(edit["aim"], dict)


def _spelled(aim: dict[str, object]) -> str:
    fields = dict(aim)
    return str(_BY_TAG[str(fields.pop("type"))](**fields))


#: Every kind of aim. Each mutator takes exactly one of them.
Aim: TypeAlias = (
    Tool
    | Insert
    | SchemaPath
    | Swap
    | Reverse
    | Rotate
    | Messages
    | Request
    | Diagnostic
    | Forgery
    | LookAlike
    | ForeignOwner
    | ParentBound
    | Narrowing
    | Claim
    | WireField
    | Cut
    | Keep
    | Selection
    | Text
    | FieldText
    | ClaimText
    | Steps
)

#: Each single edit's aim by its tag (a composed change's `Steps` holds them as JSON).
_BY_TAG: dict[str, type] = {
    cls.tag: cls
    for cls in (
        Tool, Insert, SchemaPath, Swap, Reverse, Rotate, Messages, Request, Diagnostic, Forgery, LookAlike,
        ForeignOwner, ParentBound, Narrowing, Claim, WireField, Cut, Keep, Selection, Text, FieldText, ClaimText,
    )
}  # fmt: skip
