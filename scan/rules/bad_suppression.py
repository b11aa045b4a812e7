"""TS100 bad-suppression: a `# toolsurface:` comment that is not a well-formed suppression."""

from __future__ import annotations

from collections.abc import Iterator

from .. import _suppressions
from .._outline import Outline, Unit
from .._rule import Invalid, Match, Needs, Rule, Tree, shown
from .._text import Text
from .._types import ScanConfig


class BadSuppression(Rule):
    """A suppression with a lowercase, misspelt or unknown rule id, or text where the rule list
    should be: it silences nothing, so the finding it was meant for is still reported."""

    id = "TS100"
    name = "bad-suppression"
    message = (
        "write `# toolsurface: ignore[TS1xx, …]` naming rules that exist, or `# toolsurface: ignore`; this "
        "one silences nothing"
    )
    reads_comments = True
    valid = (
        "tools = list(run.tools)  # toolsurface: ignore[TS104]\n",
        "tools = list(run.tools)  # toolsurface: ignore[TS104, TS107]  # frozen upstream\n",
        "tools = list(run.tools)  # toolsurface: ignore\n",
        'note = "# toolsurface: ignore[ts107]"  # a string, not a comment\n',
        "#: Silenced by a trailing `# toolsurface: ignore[RULE]` comment: prose about the syntax\n",
    )
    invalid = (
        Invalid(
            "tools = run.tools[:8]  # toolsurface: ignore[ts107]\n",
            line=1,
            flow=((1, "suppression `# toolsurface: ignore[ts107]` silences nothing"),),
        ),
        Invalid("tools = run.tools[:8]  # toolsurface: ignore[TS-107]\n", line=1),
        Invalid("\n# toolsurface: ignore[TS999]\ntools = run.tools[:8]\n", line=2),
        Invalid("tools = run.tools[:8]  # toolsurface: ignore [TS107]\n", line=1),
        Invalid("tools = run.tools[:8]  # toolsurface: ignore TS107\n", line=1),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (("toolsurface",), ("ignore",))

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A suppression is a comment: in the unit's text as written, not in the words of its code.
        return all(map(Text(unit.source).meets, self.needs(config)))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # nothing it finds depends on another function

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        from .._engine import known_ids  # the engine imports this module, so it is read when the rule runs

        known = known_ids()
        for comment in tree.comments():
            found = _suppressions.read(comment.value, known)
            if found is not None and found.problem is not None:
                yield Match(comment, f"suppression {shown(comment)} silences nothing")
