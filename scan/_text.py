"""What a text mentions, read once: the words and identifiers the rules' needs are tested against.

The scan tests every rule's needs against a file's text before it parses anything, and the first
pass tests them again against each function's text; both read the text once into sets.
"""

from __future__ import annotations

import functools
import re

from ._rule import Mentions

#: A run of letters and digits. Letters and digits bound a word, `_` does not: `take_baseline`
#: mentions `baseline`, `checked` no `check`.
_TOKEN = re.compile(r"[a-z0-9]+")
#: What an identifier may be made of, read anywhere in the text (a superset of its identifiers).
_IDENTIFIER = re.compile(r"[a-z0-9_]+")
_BOUNDING = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


@functools.lru_cache(maxsize=256)
def _spellings(words: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The configured names as the text filter looks for them: each as its lower-case parts. A
    dotted name matches a call only when the callee ends with every one of its parts, so text that
    lacks one of them (`create` without `responses`) cannot hold such a call, however it aliases."""
    spelled = {tuple(part for part in word.lower().split(".") if part) for word in words}
    return tuple(sorted(spelling for spelling in spelled if spelling))


@functools.lru_cache(maxsize=1024)
def _runs(part: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(part))


class Text:
    """Lower-cased text, with its identifier-like runs and their letter-and-digit words, each
    taken once as a set for every rule.

    A word made only of letters and digits is in the text exactly when it is one of those words:
    a set lookup, where a search would read the whole text for each word, each rule. A word with
    `_` or another sign (`tool_list`, `__class__`) is searched for, once each of its runs is in
    the set. Case is ignored throughout: a need met in another case only costs a parse.
    """

    def __init__(self, source: str) -> None:
        self.lowered = source.lower()
        self.identifiers = frozenset(_IDENTIFIER.findall(self.lowered))
        self.words = frozenset(word for run in self.identifiers for word in run.split("_") if word)

    def meets(self, need: tuple[str, ...] | Mentions) -> bool:
        if not isinstance(need, Mentions):
            return self.mentions(need)
        return self.mentions(need.words) or self.names(need.names) or any(map(self.ends, need.endings))

    def mentions(self, words: tuple[str, ...]) -> bool:
        return any(all(map(self.has, spelling)) for spelling in _spellings(words))

    def has(self, part: str) -> bool:
        if part in self.words:
            return True
        runs = _runs(part)
        if runs == (part,) or not all(run in self.words for run in runs):
            return False
        return self._found(part, left=True)

    def names(self, names: tuple[str, ...]) -> bool:
        """Whether the text holds one of these names as `named` reads a callee: its last part a
        whole identifier, each owner one too, or with underscores before it."""
        return any(
            spelling[-1] in self.identifiers and all(self._owner(owner) for owner in spelling[:-1])
            for spelling in _spellings(names)
        )

    def _owner(self, part: str) -> bool:
        return part in self.identifiers or any(
            run.lstrip("_") == part for run in self.identifiers if run.endswith(part)
        )

    def ends(self, ending: str) -> bool:
        """Whether a word of the text ends with `ending` (`inputschema` with `schema`)."""
        return self._found(ending.lower(), left=False)

    def _found(self, part: str, left: bool) -> bool:
        """Whether `part` occurs with no letter or digit after it, nor before it when `left` (a
        search loop: a pattern that looks behind reads every byte of the text in Python's `re`)."""
        text, start = self.lowered, self.lowered.find(part)
        while start >= 0:
            end = start + len(part)
            if (not left or start == 0 or text[start - 1] not in _BOUNDING) and (
                end == len(text) or text[end] not in _BOUNDING
            ):
                return True
            start = text.find(part, start + 1)
        return False
