"""The scan's recall and precision on the labelled corpora of host code (tests/corpora) hold at
the floors recorded in tests/corpora/scores.toml: a change that loses a finding or adds a false
alarm there fails here, and names what it lost."""

import tomllib
from pathlib import Path

import pytest

from tests.corpora.score import corpora, score

SCORES = tomllib.loads((Path(__file__).parents[1] / "corpora" / "scores.toml").read_text())


def test_every_corpus_was_scored_when_written():
    assert set(corpora()) == set(SCORES)
    for name, recorded in SCORES.items():
        assert {"recall", "precision"} <= set(recorded["written"]), name


@pytest.mark.parametrize("name", corpora())
def test_the_scan_holds_its_floor_on_the_corpus(name):
    result = score(name, jobs=1)
    floor = SCORES[name]["floor"]
    missed = [f"{label.file}:{label.line} {label.rule}" for label in result.missed()]
    wrong = [f"{label.file}:{label.line} {label.rule}" for label in result.wrong()]
    assert result.recall >= floor["recall"], f"recall {result.recall:.3f} < {floor['recall']}: missed {missed}"
    assert result.precision >= floor["precision"], (
        f"precision {result.precision:.3f} < {floor['precision']}: false alarms {wrong}"
    )
