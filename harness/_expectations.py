"""Known, accepted deviations, and how each one stands against a run.

An expectation lets the cases it names end with one failing verdict, for a stated reason, until a
date. It is judged against every run: it is *accepted* while it still describes what happens,
*expired* after its date, and *stale* when it names no planned case or its cases no longer end
that way — a drifted expectation must be reviewed, never silently kept. Accepted entries keep
their cases from failing the gate; expired and stale ones fail it themselves. An entry whose
pattern names a large share of the plan (`BROAD_SHARE`, a bare `*` among them) is *broad*: it
still counts, but every report flags it with how many cases it names, so it cannot quietly
accept a failing contract wholesale.
"""

from __future__ import annotations

import datetime
import enum
import fnmatch
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from jsonschema.exceptions import best_match

from toolsurface.common._errors import ExpectationsError
from toolsurface.common._toml import TomlError, read_toml, wide, wide_integer

from ._types import VerdictKind


@dataclass(frozen=True, slots=True)
class Expectation:
    """Cases whose id matches `case` may end with `verdict`, for `reason`, through `expires`."""

    #: A case id, or a glob over case ids (`fnmatch` rules, case-sensitive).
    case: str
    verdict: VerdictKind
    reason: str
    #: The last day the entry is accepted.
    expires: datetime.date

    def matches(self, case_id: str) -> bool:
        return fnmatch.fnmatchcase(case_id, self.case)


class Standing(enum.StrEnum):
    ACCEPTED = "accepted"
    EXPIRED = "expired"
    STALE = "stale"
    #: It names planned cases, but none of them ran here (`--select`, `--shard`): judged on merge.
    UNJUDGED = "unjudged"

    @property
    def ok(self) -> bool:
        """Whether this standing lets the gate pass."""
        return self in (Standing.ACCEPTED, Standing.UNJUDGED)


#: An entry that names at least this share of the planned cases is broad.
BROAD_SHARE = 0.10


@dataclass(frozen=True, slots=True)
class Judged:
    """One expectation as it stands against one run."""

    expectation: Expectation
    standing: Standing
    #: Why, in words a reviewer acts on.
    why: str
    #: How many planned cases its pattern names (before `--select` and `--shard`).
    planned: int
    #: The cases of this run it accepts (or, once expired, would have accepted).
    cases: tuple[str, ...]

    def broad(self, plan: int) -> bool:
        """Whether it names at least `BROAD_SHARE` of a plan of `plan` cases."""
        return self.planned >= BROAD_SHARE * plan > 0


def planned_matches(expectations: Sequence[Expectation], case_ids: Iterable[str]) -> tuple[int, ...]:
    """How many of the planned case ids each expectation names."""
    counts = [0] * len(expectations)
    for case_id in case_ids:
        for index, expectation in enumerate(expectations):
            counts[index] += expectation.matches(case_id)
    return tuple(counts)


def judge_expectations(
    expectations: Sequence[Expectation],
    planned: Sequence[int],
    outcomes: Sequence[tuple[str, VerdictKind]],
    today: datetime.date,
) -> tuple[Judged, ...]:
    """How each expectation stands, given the (case id, verdict) pairs of the cases that ran."""
    judged: list[Judged] = []
    for expectation, named in zip(expectations, planned, strict=True):
        ran = [(case_id, verdict) for case_id, verdict in outcomes if expectation.matches(case_id)]
        hits = tuple(case_id for case_id, verdict in ran if verdict is expectation.verdict)
        if not named:
            standing, why = Standing.STALE, "names no planned case"
        elif not ran:
            standing, why = Standing.UNJUDGED, f"none of its {named} planned cases ran here"
        elif today > expectation.expires:
            standing, why = Standing.EXPIRED, f"expired on {expectation.expires.isoformat()}"
        elif not hits:
            now = ", ".join(sorted({verdict.value for _, verdict in ran}))
            standing, why = Standing.STALE, f"its {len(ran)} cases now end as {now}, not {expectation.verdict}"
        else:
            standing, why = (
                Standing.ACCEPTED,
                f"accepts {len(hits)} of its {len(ran)} cases until {expectation.expires.isoformat()}",
            )
        judged.append(Judged(expectation, standing, why, named, hits))
    return tuple(judged)


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    schema = orjson.loads(resources.files(__package__).joinpath("expectations.schema.json").read_bytes())
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


def _plain(value: Any) -> Any:
    """TOML values as JSON ones, so one schema checks both: dates become ISO strings."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def load_expectations(path: Path) -> tuple[Expectation, ...]:
    """Read an expectations file (TOML, `[[expect]]` tables); raise `ExpectationsError` naming every problem."""
    try:
        read = read_toml(path)
    except OSError as error:
        raise ExpectationsError([f"{path}: cannot read: {error.strerror or error}"], option="expectations") from None
    except TomlError as error:
        raise ExpectationsError([str(error)]) from None
    if (found := wide_integer(read)) is not None:
        at, value = found
        raise ExpectationsError(
            [
                f"{path}:$"
                + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in at)
                + f": {wide(value)}"
            ]
        )
    document = _plain(read)
    problems = []
    for entry_errors in _errors_by_entry(_validator().iter_errors(document)):
        best = best_match(entry_errors)
        problems.append(f"{path}:{best.json_path}: {best.message}")
    if problems:
        raise ExpectationsError(sorted(problems))
    return tuple(
        Expectation(
            case=entry["case"],
            verdict=VerdictKind(entry["verdict"]),
            reason=entry["reason"].strip(),
            expires=datetime.date.fromisoformat(entry["expires"]),
        )
        for entry in document["expect"]
    )


def _errors_by_entry(errors: Iterable[jsonschema.ValidationError]) -> list[list[jsonschema.ValidationError]]:
    """Group errors by the entry they are in, so each entry gets its one best message."""
    groups: dict[tuple[Any, ...], list[jsonschema.ValidationError]] = {}
    for error in errors:
        groups.setdefault(tuple(error.absolute_path)[:2], []).append(error)
    return [groups[key] for key in sorted(groups, key=str)]
