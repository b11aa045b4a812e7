import datetime

import orjson
import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._errors import UsageError
from toolsurface.reports import merge_results, write_results

SELECT = ["web-read-child-single-tool/*", "etf-compare-main-openai/*/evidence/*"]
TODAY = datetime.date(2026, 12, 2)


def write(tmp_path, name, **options):
    session = prepare(RunOptions(select=SELECT, today=TODAY, **options))
    return write_results(tmp_path / name, session, session.results())


def shards(tmp_path, count, **options):
    paths = [write(tmp_path, f"shard{k}", shard=f"{k}/{count}", **options) for k in range(1, count + 1)]
    return [(path, orjson.loads(path.read_bytes())) for path in paths]


@pytest.mark.parametrize("count", [1, 2, 3])
def test_merged_shards_are_byte_for_byte_the_unsharded_run(tmp_path, count):
    whole = write(tmp_path, "whole").read_bytes()
    assert merge_results(shards(tmp_path, count)) == whole


def test_a_stale_expectation_is_judged_over_every_shard(tmp_path):
    known = tmp_path / "known.toml"
    case = "web-read-child-single-tool/child/no-hooks/evidence/delete.replace:first:market__web_read"
    known.write_text(f'[[expect]]\ncase = "{case}"\nverdict = "survived"\nreason = "r"\nexpires = 2027-01-01\n')
    parts = shards(tmp_path, 3, expectations=known)
    standings = [document["gate"]["expectations"][0]["standing"] for _, document in parts]
    assert sorted(standings) == ["stale", "unjudged", "unjudged"]
    merged = orjson.loads(merge_results(parts))
    assert merged["gate"]["expectations"][0]["standing"] == "stale" and not merged["gate"]["ok"]
    assert merged == orjson.loads(write(tmp_path, "whole", expectations=known).read_bytes())


def test_overlapping_shards_are_refused(tmp_path):
    (first, second) = shards(tmp_path, 2)
    second[1]["cases"].append(first[1]["cases"][0])
    with pytest.raises(UsageError, match="shards overlap"):
        merge_results([first, second])


def test_a_missing_or_repeated_shard_is_refused(tmp_path):
    parts = shards(tmp_path, 3)
    with pytest.raises(UsageError, match=r"shard 2/3 missing"):
        merge_results([parts[0], parts[2]])
    with pytest.raises(UsageError, match=r"shard 1/3 is also"):
        merge_results([parts[0], parts[0], parts[1], parts[2]])


def test_shards_of_different_runs_are_refused(tmp_path):
    first = shards(tmp_path, 2)[0]
    second = [(path, document) for path, document in shards(tmp_path / "other", 2, seed=1)][1]
    with pytest.raises(UsageError, match=r"\$\.seed: differs from"):
        merge_results([first, second])
    recorded = shards(tmp_path / "third", 2)[1]
    recorded[1]["scenarios"][0]["digest"] = "0" * 64
    with pytest.raises(UsageError, match="other recordings"):
        merge_results([first, recorded])


def test_an_unsharded_file_is_not_a_shard(tmp_path):
    path = write(tmp_path, "whole")
    with pytest.raises(UsageError, match=r"\$\.shard: not a shard"):
        merge_results([(path, orjson.loads(path.read_bytes()))])
