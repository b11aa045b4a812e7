"""Score the scan on the labelled corpora of host code in this folder: recall and precision per
corpus and per rule.

Each corpus is a folder with `src/` (the code, as its authors wrote it), `pyproject.toml` (its
`[tool.toolsurface.scan]` settings, as a team would write them on first use) and `labels.toml`:
every place the scan should report (`[[hazard]]`: file, line, rule) and look-alikes it should not
(`[[lookalike]]`). A finding is right when a hazard of the same file and rule lies within two lines
of it; "any rule" recall counts a hazard found under another rule too. Precision counts every
finding the scan makes in the corpus, labelled or not.

`scores.toml` keeps, per corpus, the figures it scored when it was written, before any change it
prompted, and the floor CI holds the scan to now (tests/scan/test_corpora.py).

    python tests/corpora/score.py            # every corpus, with the misses and the false alarms
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from toolsurface.scan import FileScanned, load_config, scan_paths

HERE = Path(__file__).parent
#: How far a finding may be from its label's line: a multi-line statement is reported at its start.
NEAR = 2


@dataclass(frozen=True)
class Label:
    file: str
    line: int
    rule: str


@dataclass(frozen=True)
class Score:
    corpus: str
    hazards: tuple[Label, ...]
    findings: tuple[Label, ...]

    def _hit(self, finding: Label, hazard: Label, same_rule: bool = True) -> bool:
        return (
            finding.file == hazard.file
            and abs(finding.line - hazard.line) <= NEAR
            and (finding.rule == hazard.rule or not same_rule)
        )

    def found(self, same_rule: bool = True) -> list[Label]:
        return [h for h in self.hazards if any(self._hit(f, h, same_rule) for f in self.findings)]

    def missed(self) -> list[Label]:
        found = set(self.found())
        return [h for h in self.hazards if h not in found]

    def right(self) -> list[Label]:
        return [f for f in self.findings if any(self._hit(f, h) for h in self.hazards)]

    def wrong(self) -> list[Label]:
        right = set(self.right())
        return [f for f in self.findings if f not in right]

    @property
    def recall(self) -> float:
        return len(self.found()) / len(self.hazards) if self.hazards else 1.0

    @property
    def recall_any_rule(self) -> float:
        return len(self.found(same_rule=False)) / len(self.hazards) if self.hazards else 1.0

    @property
    def precision(self) -> float:
        return len(self.right()) / len(self.findings) if self.findings else 1.0

    def by_rule(self) -> dict[str, tuple[int, int, int, int]]:
        """Rule → (hazards, found, findings, right findings)."""
        hazards = Counter(h.rule for h in self.hazards)
        found = Counter(h.rule for h in self.found())
        findings = Counter(f.rule for f in self.findings)
        right = Counter(f.rule for f in self.right())
        return {rule: (hazards[rule], found[rule], findings[rule], right[rule]) for rule in sorted(hazards | findings)}


def corpora() -> list[str]:
    return sorted(path.parent.name for path in HERE.glob("*/labels.toml"))


def score(name: str, jobs: int | None = None) -> Score:
    """Scan one corpus as its users would (its own settings, no cache) and compare with its labels."""
    folder = HERE / name
    labels = tomllib.loads((folder / "labels.toml").read_text())
    hazards = tuple(Label(h["file"], h["line"], h["rule"]) for h in labels.get("hazard", ()))
    config = load_config(folder / "pyproject.toml")
    findings = tuple(
        Label(Path(result.path).relative_to(folder).as_posix(), finding.line, finding.rule)
        for result in scan_paths([folder / "src"], config, jobs=jobs, cache_dir=None)
        if isinstance(result, FileScanned)
        for finding in result.findings
        if not finding.suppressed
    )
    return Score(name, hazards, findings)


def _report(result: Score) -> None:
    print(
        f"{result.corpus}: recall {len(result.found())}/{len(result.hazards)} ({result.recall:.2f}), "
        f"any rule {result.recall_any_rule:.2f}; precision {len(result.right())}/{len(result.findings)} "
        f"({result.precision:.2f})"
    )
    for rule, (hazards, found, findings, right) in result.by_rule().items():
        print(f"  {rule}: found {found}/{hazards}, right {right}/{findings}")
    for label in result.missed():
        print(f"  missed      {label.file}:{label.line} {label.rule}")
    for label in result.wrong():
        print(f"  false alarm {label.file}:{label.line} {label.rule}")


if __name__ == "__main__":
    for name in sys.argv[1:] or corpora():
        _report(score(name))
