import dataclasses
import datetime
import re

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._errors import UsageError
from toolsurface.harness._expectations import Standing
from toolsurface.harness._results import encode, merge_results, read_results, write_results

SELECT = ["web-read-child-single-tool/*", "etf-compare-main-openai/*/evidence/*"]
TODAY = datetime.date(2026, 12, 2)


def write(tmp_path, name, **options):
    session = prepare(RunOptions(select=SELECT, today=TODAY, **options))
    return write_results(tmp_path / name, session, session.results())


def shards(tmp_path, count, **options):
    paths = [write(tmp_path, f"shard{k}", shard=f"{k}/{count}", **options) for k in range(1, count + 1)]
    return [(path, read_results(path)) for path in paths]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_shards_are_byte_for_byte_the_unsharded_run(tmp_path, count):
    whole = write(tmp_path, "whole")
    merged = merge_results(shards(tmp_path, count))
    assert encode(merged) == whole.read_bytes()
    assert merged == read_results(whole)


def test_a_stale_expectation_is_judged_over_every_shard(tmp_path):
    known = tmp_path / "known.toml"
    case = "web-read-child-single-tool/child/no-hooks/evidence/delete.replace:first:market__web_read"
    known.write_text(f'[[expect]]\ncase = "{case}"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\n')
    parts = shards(tmp_path, 3, expectations=known)
    standings = [results.summary.gate.expectations[0].standing for _, results in parts]
    assert sorted(standings) == [Standing.STALE, Standing.UNJUDGED, Standing.UNJUDGED]
    merged = merge_results(parts)
    assert merged.summary.gate.expectations[0].standing is Standing.STALE and not merged.summary.gate.ok
    whole = write(tmp_path, "whole", expectations=known)
    assert merged == read_results(whole) and encode(merged) == whole.read_bytes()


def test_overlapping_shards_are_refused(tmp_path):
    (first, (path, second)) = shards(tmp_path, 2)
    overlapping = dataclasses.replace(second, cases=(*second.cases, first[1].cases[0]))
    overlap = f"{path}: case '{first[1].cases[0].id}' is also in {first[0]}: shards overlap"
    with pytest.raises(UsageError, match=re.escape(overlap)):
        merge_results([first, (path, overlapping)])


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
    path, recorded = shards(tmp_path / "third", 2)[1]
    # Unedited, this shard merges: what is refused below is the other recording alone.
    assert merge_results([first, (path, recorded)]).run.shard is None
    scenarios = (dataclasses.replace(recorded.run.scenarios[0], digest="0" * 64), *recorded.run.scenarios[1:])
    recorded = dataclasses.replace(recorded, run=dataclasses.replace(recorded.run, scenarios=scenarios))
    with pytest.raises(UsageError, match=r"\$\.run\.scenarios: differs from .*other recordings"):
        merge_results([first, (path, recorded)])


def test_shards_judged_against_other_expectations_are_refused(tmp_path):
    known = tmp_path / "known.toml"
    known.write_text('[[expect]]\ncase = "web-read-child-single-tool/*"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\n')
    first = shards(tmp_path / "plain", 2)[0]
    second = shards(tmp_path / "known", 2, expectations=known)[1]
    with pytest.raises(UsageError, match=r"\$\.summary\.gate\.expectations: other expectations than"):
        merge_results([first, second])


def test_an_unsharded_file_is_not_a_shard(tmp_path):
    path = write(tmp_path, "whole")
    with pytest.raises(UsageError, match=r"\$\.run\.shard: not a shard"):
        merge_results([(path, read_results(path))])
