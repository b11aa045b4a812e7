"""The keyword coverage table in docs/keywords.md is the default matrix's: every keyword of the
vocabulary, how many cases edit it each way, and why no case adds the keywords none adds.

`python -m tests.mutators.test_keyword_coverage` prints the table to paste into the page."""

from collections import Counter
from pathlib import Path

from toolsurface.harness._plan import planned
from toolsurface.mutators import MUTATORS
from toolsurface.mutators._keywords import _KeywordEdit
from toolsurface.mutators._pointer import split_last
from toolsurface.mutators._vocabulary import NOT_ADDED, Op, vocabulary
from toolsurface.scenarios import load

PAGE = Path(__file__).resolve().parents[2] / "docs" / "keywords.md"
BEGIN, END = "<!-- coverage: begin -->", "<!-- coverage: end -->"


def coverage_table() -> str:
    keyword_edits = [mutator for mutator in MUTATORS if isinstance(mutator, _KeywordEdit)]
    counts: Counter[tuple[str, str]] = Counter()
    for case in planned(load(), 0, keyword_edits, work_out=lambda case_id: False):
        keyword = split_last(case.mutation.aim.pointer)[1]
        counts[keyword, case.mutation.variant.removeprefix("keyword_")] += 1
    ops = [op.value for op in Op]
    lines = [
        f"| keyword | shape | {' | '.join(ops)} | cases |",
        f"| --- | --- | {' | '.join('---:' for _ in ops)} | ---: |",
    ]
    for keyword, shape in vocabulary().items():
        row = [counts[keyword, op] for op in ops]
        lines.append(f"| `{keyword}` | {shape} | {' | '.join(str(n) for n in row)} | {sum(row)} |")
    total = [sum(counts[keyword, op] for keyword in vocabulary()) for op in ops]
    lines.append(f"| all | | {' | '.join(str(n) for n in total)} | {sum(total)} |")
    lines += ["", "No case adds these keywords:", ""]
    lines += [f"- `{keyword}`: {reason}." for keyword, reason in NOT_ADDED.items()]
    return "\n".join(lines)


def test_the_coverage_table_on_the_page_is_the_default_matrix_s() -> None:
    text = PAGE.read_text()
    shown = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    assert shown == coverage_table(), "regenerate with: python -m tests.mutators.test_keyword_coverage > table"


if __name__ == "__main__":
    print(coverage_table())
