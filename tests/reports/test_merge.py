import dataclasses
import datetime
import re
from array import array

import pytest

from tests.fixtures.forgery import forge
from tests.fixtures.frameworks import catalogue_at
from toolsurface.common._errors import UsageError
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._expectations import Standing
from toolsurface.harness._results import (
    merge_results,
    open_results,
    read_results,
    write_results,
)
from toolsurface.harness._signing import Signed, Trust

#: Two recordings, one on each lane: the catalogue's cases of one, one point of the other.
SELECT = [*catalogue_at("web-read-child-single-tool/*"), "etf-compare-main-openai/*/evidence/*"]
TODAY = datetime.date(2026, 12, 2)
KEY = b"the CI secret"


#: The legacy path paired: a merge carries the red verdicts too. The refusals below need no pairing.
PAIRED = {"red_target": "reference:legacy"}


def write(tmp_path, name, key=None, **options):
    session = prepare(RunOptions(**{"select": SELECT, "today": TODAY, "red_target": "none", **options}))
    return write_results(tmp_path / name, session, session.results(), key=key)


def shards(tmp_path, count, key=None, **options):
    paths = [write(tmp_path, f"shard{k}", key=key, shard=f"{k}/{count}", **options) for k in range(1, count + 1)]
    return [open_results(path, trust=Trust(key)) for path in paths]


def merged(parts, tmp_path, key=None):
    """The merge written to a file; the record it gives is the record read back from that file."""
    path = tmp_path / "merged.json"
    merge = merge_results(parts, key)
    path.write_bytes(b"".join(merge))
    given, read = merge.record(path), open_results(path, trust=Trust(key))
    assert (given.run, given.summary, tuple(given.cases), given.tallies) == (
        read.run,
        read.summary,
        tuple(read.cases),
        read.tallies,
    )
    assert (given.offsets, given.indices) == (read.offsets, read.indices)
    return path


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_shards_are_byte_for_byte_the_unsharded_run(tmp_path, count):
    whole = write(tmp_path, "whole", **PAIRED)
    assert merged(shards(tmp_path, count, **PAIRED), tmp_path).read_bytes() == whole.read_bytes()


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_signed_shards_are_byte_for_byte_the_signed_unsharded_run(tmp_path, count):
    whole = write(tmp_path, "whole", key=KEY, **PAIRED)
    parts = shards(tmp_path, count, key=KEY, **PAIRED)
    assert all(part.signed is Signed.VERIFIED for part in parts)
    path = merged(parts, tmp_path, KEY)
    assert path.read_bytes() == whole.read_bytes() and read_results(path).summary.signature is not None
    # Merged without the key, the same shards give the unsigned run's file.
    unsigned = merged([open_results(part.path) for part in parts], tmp_path)
    assert unsigned.read_bytes() == write(tmp_path, "unsigned", **PAIRED).read_bytes()


def test_shards_forged_to_pass_merge_into_a_pass_without_the_key_and_are_refused_with_it(tmp_path):
    """The forgery the digest cannot stop: each failing case of the legacy path given the verdict and
    evidence the guard gives it, the digest, totals and gate of each shard worked out again."""
    legacy = {"target": "reference:legacy", "red_target": "none"}
    paths = [write(tmp_path, f"shard{k}", key=KEY, shard=f"{k}/2", **legacy) for k in (1, 2)]
    assert not read_results(merged([open_results(path) for path in paths], tmp_path)).summary.gate.ok
    guarded = {
        record.id: record for record in prepare(RunOptions(select=SELECT, today=TODAY, red_target="none")).records()
    }
    for path in paths:
        assert forge(
            path, cases=lambda cases: tuple(case if case.verdict.kind.ok else guarded[case.id] for case in cases)
        )
    parts = [open_results(path) for path in paths]
    assert [part.signed for part in parts] == [Signed.UNVERIFIED] * 2
    assert read_results(merged(parts, tmp_path)).summary.gate.ok  # what the digest alone lets through
    for path in paths:
        with pytest.raises(
            UsageError,
            match=re.escape(
                f"{path}: signature does not match: altered after it was signed, or signed with another key"
            ),
        ):
            open_results(path, trust=Trust(KEY))


def test_a_stale_expectation_is_judged_over_every_shard(tmp_path):
    known = tmp_path / "known.toml"
    case = "web-read-child-single-tool/child/no-hooks/evidence/delete.replace:first:market__web_read"
    known.write_text(f'[[expect]]\ncase = "{case}"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\n')
    parts = shards(tmp_path, 3, expectations=known)
    standings = [results.summary.gate.expectations[0].standing for results in parts]
    assert sorted(standings) == [Standing.STALE, Standing.UNJUDGED, Standing.UNJUDGED]
    path = merged(parts, tmp_path)
    summary = read_results(path).summary
    assert summary.gate.expectations[0].standing is Standing.STALE and not summary.gate.ok
    whole = write(tmp_path, "whole", expectations=known)
    assert path.read_bytes() == whole.read_bytes()


def test_overlapping_shards_are_refused(tmp_path):
    first, second = shards(tmp_path, 2)
    taken = next(iter(first.cases))
    # The first shard's first case, also held by the second (both still in plan order).
    cases = (taken, *second.cases)
    overlapping = dataclasses.replace(second, cases=cases, indices=array("q", (case.case.index for case in cases)))
    overlap = f"{second.path}: case '{taken.id}' is also in {first.path}: shards overlap"
    with pytest.raises(UsageError, match=re.escape(overlap)):
        merge_results([first, overlapping])


def test_a_shard_out_of_plan_order_is_refused(tmp_path):
    first, second = shards(tmp_path, 2)
    cases = tuple(reversed(tuple(second.cases)))
    shuffled = dataclasses.replace(second, cases=cases, indices=array("q", (case.case.index for case in cases)))
    with pytest.raises(
        UsageError,
        match=re.escape(f"{second.path}:$.cases[1].case.index: ") + r"\d+ comes after \d+: not in plan order",
    ):
        merge_results([first, shuffled])


def test_a_missing_or_repeated_shard_is_refused(tmp_path):
    parts = shards(tmp_path, 3)
    with pytest.raises(UsageError, match=r"shard 2/3 missing"):
        merge_results([parts[0], parts[2]])
    with pytest.raises(UsageError, match=r"\$\.run\.shard: shard 1/3 is also"):
        merge_results([parts[0], parts[0], parts[1], parts[2]])


def test_shards_of_different_runs_are_refused(tmp_path):
    first = shards(tmp_path, 2)[0]
    second = shards(tmp_path / "other", 2, seed=1)[1]
    with pytest.raises(UsageError, match=r"\$\.run\.seed: differs from"):
        merge_results([first, second])
    recorded = shards(tmp_path / "third", 2)[1]
    # Unedited, this shard merges: what is refused below is the other recording alone.
    assert read_results(merged([first, recorded], tmp_path)).run.shard is None
    scenarios = (dataclasses.replace(recorded.run.scenarios[0], digest="0" * 64), *recorded.run.scenarios[1:])
    recorded = dataclasses.replace(recorded, run=dataclasses.replace(recorded.run, scenarios=scenarios))
    with pytest.raises(UsageError, match=r"\$\.run\.scenarios: differs from .*other recordings"):
        merge_results([first, recorded])


def test_shards_judged_against_other_expectations_are_refused(tmp_path):
    known = tmp_path / "known.toml"
    known.write_text(
        '[[expect]]\ncase = "web-read-child-single-tool/*"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\n'
    )
    first = shards(tmp_path / "plain", 2)[0]
    second = shards(tmp_path / "known", 2, expectations=known)[1]
    with pytest.raises(UsageError, match=r"\$\.summary\.gate\.expectations: other expectations than"):
        merge_results([first, second])


def test_an_unsharded_file_is_not_a_shard(tmp_path):
    path = write(tmp_path, "whole")
    with pytest.raises(UsageError, match=r"\$\.run\.shard: not a shard"):
        merge_results([open_results(path)])
