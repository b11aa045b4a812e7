"""In-source suppressions, read strictly: a directive that is not exactly right silences nothing.

`# toolsurface: ignore` silences every rule on its line, `# toolsurface: ignore[TS104, TS107]`
the rules it names. Anything else after `toolsurface:` — a lowercase or misspelt id, an id no
rule has, an empty list, text where the list should end — silences nothing and is itself
reported (TS100), so a typo can never turn into a blanket `ignore`. Another comment may follow
a directive: `# toolsurface: ignore[TS104]  # the baseline is frozen upstream`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

#: Where a directive starts: a `#` that opens a comment (or a second comment after the first),
#: not one quoted inside prose such as "write `# toolsurface: ignore[RULE]`".
_MARK = re.compile(r"(?<!\S)#\s*toolsurface\s*:")
_DIRECTIVE = re.compile(r"\s*ignore(?:\[(?P<rules>[^\]]*)\])?\s*(?:#.*)?")
RULE_ID = re.compile(r"TS\d{3}")


@dataclass(frozen=True, slots=True)
class Suppression:
    """One directive as read: the rules it silences (None: every rule), or why it silences none."""

    rules: frozenset[str] | None
    #: Set when the directive is malformed or names a rule that does not exist; it then silences nothing.
    problem: str | None = None

    def silences(self, rule: str) -> bool:
        return self.problem is None and (self.rules is None or rule in self.rules)


def read(text: str, known: Collection[str]) -> Suppression | None:
    """The directive in a line or comment, if it has one; `known` holds the rule ids that exist."""
    mark = _MARK.search(text)
    if mark is None:
        return None
    rest = text[mark.end() :]
    directive = _DIRECTIVE.fullmatch(rest)
    if directive is None:
        return Suppression(
            frozenset(), f"expected `ignore` or `ignore[TS1xx, …]` after `toolsurface:`, found {rest.strip()!r}"
        )
    listed = directive.group("rules")
    if listed is None:
        return Suppression(None)
    ids = [part.strip() for part in listed.split(",")]
    malformed = [rule for rule in ids if not RULE_ID.fullmatch(rule)]
    if malformed:
        return Suppression(
            frozenset(), f"{', '.join(map(repr, malformed))} is not a rule id (expected TS and three digits)"
        )
    unknown = [rule for rule in ids if rule not in known]
    if unknown:
        return Suppression(frozenset(), f"no rule has the id {', '.join(unknown)}")
    return Suppression(frozenset(ids))


def suppressed(line: str, rule: str, known: Collection[str]) -> bool:
    """Whether a well-formed trailing directive on `line` silences `rule`."""
    found = read(line, known)
    return found is not None and found.silences(rule)
