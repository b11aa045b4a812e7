"""The equivalents file: source mutants no input can tell from the original, each with its reason.

A table per mutated file, named by the end of its path (`["contract/_facts.py"]`, which matches
the module wherever it is installed), maps a mutant id to one line saying why no case can kill it:

    ["contract/_facts.py"]
    "EmptyString@101:16" = "only the text of a ruling's `keeps`, which no decision reads"

Ids hold the line and column, so an edit above a listed mutant makes its entry name another place:
`toolsurface mutants` then reports the entry as stale, rather than silently excusing a mutant.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from toolsurface.common._errors import ExpectationsError
from toolsurface.common._toml import TomlError, read_toml
from toolsurface.scan._operators import CLASSIC
from toolsurface.scan._seams import SEAMS

_ID = re.compile(r"(?P<operator>[A-Za-z]+)@[1-9][0-9]*:[1-9][0-9]*")


@dataclass(frozen=True, slots=True)
class Equivalents:
    """The mutants declared equivalent, by file suffix and mutant id."""

    #: The file they were read from, to name in a stale entry's reason.
    path: str = ""
    #: `{"contract/_facts.py": {"EmptyString@101:16": "reason"}}`.
    by_file: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def of(self, mutated: str) -> Mapping[str, str]:
        """The entries for the file at `mutated`: every table whose name ends its resolved path."""
        parts = Path(mutated).resolve().parts
        found: dict[str, str] = {}
        for suffix, entries in self.by_file.items():
            tail = PurePosixPath(suffix).parts
            if parts[-len(tail) :] == tail:
                found.update(entries)
        return found


#: No equivalents file: every survivor counts.
NONE_EQUIVALENT = Equivalents()


def load_equivalents(path: Path) -> Equivalents:
    """The equivalents file at `path`; every problem in it, one line each naming the file and key, as
    an `ExpectationsError`."""
    try:
        document = read_toml(path)
    except OSError as error:
        raise ExpectationsError([f"{path}: cannot read: {error.strerror or error}"], option="equivalents") from None
    except TomlError as error:
        raise ExpectationsError([str(error)]) from None
    problems = []
    by_file: dict[str, dict[str, str]] = {}
    for suffix, entries in document.items():
        if not isinstance(entries, dict):
            problems.append(f"{path}:{suffix}: expected a table of mutant ids, found {type(entries).__name__}")
            continue
        by_file[suffix] = {}
        for mutant, reason in entries.items():
            problems += _problems(path, suffix, mutant, reason)
            by_file[suffix][mutant] = reason
    if problems:
        raise ExpectationsError(problems)
    return Equivalents(str(path), by_file)


def _problems(path: Path, suffix: str, mutant: str, reason: Any) -> list[str]:
    where = f"{path}:[{suffix!r}].{mutant!r}"
    problems = []
    if not (match := _ID.fullmatch(mutant)) or match["operator"] not in (*SEAMS, *CLASSIC):
        problems.append(f"{where}: expected a mutant id, an operator's name at line:column (`EmptyString@101:16`)")
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        problems.append(f"{where}: expected the reason it is equivalent, one line of text")
    return problems
