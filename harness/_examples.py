"""Explored examples: the changes `toolsurface explore` found a target failing on, kept as files.

A project commits its examples folder (default `.toolsurface/examples/`), as Hypothesis keeps its
database, and every later `run` runs each example as one more case after the plan, with the id it
was saved under (`explored/<12 hex digits>`). The id is the digest of what the case is (recording,
boundary, change), so the same change found twice is one file, and an edited file is refused
rather than run as something it does not say. One file per example, one codec for all (`_codec`);
`harness/example.schema.json` is the files' JSON Schema, derived from `Explored`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from toolsurface.common._errors import UsageError
from toolsurface.common._files import write_report
from toolsurface.mutators import Mutation, by_key
from toolsurface.scenarios import Boundary, Scenario

from ._codec import DecodeError, decode, dumps, schema
from ._types import Case, Verdict

#: Where `explore` saves and `run` looks when no `--examples` is given.
DEFAULT_EXAMPLES = Path(".toolsurface/examples")
#: What every explored case id starts with: `--select 'explored/*'` takes them all.
PREFIX = "explored/"
EXAMPLE_VERSION = 1


@dataclass(frozen=True, slots=True)
class Explored:
    """One change a target was found failing on, as its example file holds it."""

    #: Always `EXAMPLE_VERSION`: a file of another version is refused, by name.
    example_version: int
    #: `explored/` and the first 12 hex digits of the sha256 of the three fields below.
    id: str
    #: The recording the case runs on, by its id.
    scenario: str
    #: Where the change lands: after a recorded stage, before the `call`-th model call.
    boundary: Boundary
    mutation: Mutation
    #: The target it was found on, the seed of the search, and the verdict it gave: for a reader;
    #: a later run judges the case afresh on whatever target it runs.
    target: str
    seed: int
    verdict: Verdict

    @property
    def file_name(self) -> str:
        return f"{self.id.removeprefix(PREFIX)}.json"


def explored_id(scenario: str, boundary: Boundary, mutation: Mutation) -> str:
    """The stable id of a change: the same on every machine and seed, whatever else was explored."""
    what = orjson.dumps({"scenario": scenario, "boundary": str(boundary), "mutation": orjson.loads(dumps(mutation))})
    return PREFIX + hashlib.sha256(what).hexdigest()[:12]


def explored_case(scenario: Scenario, boundary: Boundary, mutation: Mutation, index: int) -> Case:
    """The change as a case, its change worked out as the plan works out its own (`dry_run`)."""
    from ._plan import dry_run  # the plan imports this module to run examples after its own cases

    return Case(
        id=explored_id(scenario.id, boundary, mutation),
        index=index,
        scenario=scenario.id,
        lane=scenario.lane,
        hooks=scenario.hooks,
        point=boundary.point,
        mutation=mutation,
        change=dry_run(scenario, by_key(mutation.mutator), mutation, boundary.call),
        call=boundary.call,
    )


def save(folder: Path, example: Explored) -> Path:
    """Write the example into `folder` (made if missing), whole or not at all; its path."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"{folder}: cannot make the folder: {error.strerror or error}", option="examples") from None
    path = folder / example.file_name
    write_report(path, _pretty(example), option="examples")
    return path


def _pretty(example: Explored) -> bytes:
    # Indented: a reviewer reads the file in the change that commits it.
    return orjson.dumps(orjson.loads(dumps(example)), option=orjson.OPT_INDENT_2) + b"\n"


def check_folder(folder: Path) -> None:
    """Refuse, before a search, a folder to save into that cannot be one."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"{folder}: not a folder of explored examples", option="examples")


def example_folders(given: Sequence[Path]) -> tuple[Path, ...]:
    """The folders a run reads examples from: those given (each must be a folder), and the default
    one where it exists."""
    for folder in given:
        if not folder.is_dir():
            raise UsageError(f"{folder}: not a folder of explored examples", option="examples")
    default = (DEFAULT_EXAMPLES,) if DEFAULT_EXAMPLES.is_dir() else ()
    return tuple(dict.fromkeys((*given, *default)))


def load_examples(folders: Iterable[Path]) -> tuple[Explored, ...]:
    """Every `*.json` example in the folders, by id; every file that is not one is an error naming it."""
    found: dict[str, Explored] = {}
    problems = [problem for path in _files(folders) for problem in _load(path, found)]
    if problems:
        raise UsageError("; ".join(problems), option="examples")
    return tuple(found[key] for key in sorted(found))


def _files(folders: Iterable[Path]) -> Iterator[Path]:
    for folder in folders:
        yield from sorted(folder.glob("*.json"))


def _load(path: Path, found: dict[str, Explored]) -> Iterator[str]:
    try:
        data: Any = orjson.loads(path.read_bytes())
        example = decode(Explored, data)
    except OSError as error:
        yield f"{path}: cannot read: {error.strerror or error}"
        return
    except orjson.JSONDecodeError as error:
        yield f"{path}: not JSON: {error}"
        return
    except DecodeError as error:
        yield f"{path}:{error.path}: {error.message}"
        return
    try:
        by_key(example.mutation.mutator)
    except KeyError as error:
        yield f"{path}:$.mutation.mutator: {error.args[0]}"
        return
    if example.example_version != EXAMPLE_VERSION:
        yield f"{path}:$.example_version: {example.example_version}, but this toolsurface reads {EXAMPLE_VERSION}"
    elif example.id != (digest := explored_id(example.scenario, example.boundary, example.mutation)):
        yield f"{path}:$.id: {example.id!r}, but its change hashes to {digest!r}: edited after it was saved"
    else:
        found[example.id] = example


def cases_of(examples: Iterable[Explored], scenarios: Iterable[Scenario], first_index: int) -> Iterator[Case]:
    """The examples on these recordings as cases, indexed on from `first_index`; an example of a
    recording the run does not load is not the run's."""
    by_id = {scenario.id: scenario for scenario in scenarios}
    index = first_index
    for example in examples:
        if (scenario := by_id.get(example.scenario)) is not None:
            yield explored_case(scenario, example.boundary, example.mutation, index)
            index += 1


def example_schema() -> dict[str, object]:
    """The JSON Schema of an example file, derived from `Explored`."""
    document = schema(
        Explored,
        **{"$id": f"https://toolsurface.dev/schemas/example-{EXAMPLE_VERSION}.json"},
        title="toolsurface explored example",
        description="One change `toolsurface explore` found a target failing on; every later `toolsurface run` "
        "runs it as a case.",
    )
    document["$defs"]["Explored"]["properties"]["example_version"] = {"const": EXAMPLE_VERSION}
    return document
