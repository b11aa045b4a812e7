"""What the reports cost, on the default matrix: each renderer, reading results.json back typed
(every value checked against its type, the summary against the cases), and a merge of four shards — each against running the same cases on `reference:guarded`, measured in
the same run, so a reader sees them as a share of the run they report on."""

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import encode, merge_results, read_results, write_results
from toolsurface.reports import Audit, ReportFormat

RUN = "run: default matrix on reference:guarded, no pairing"


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    session = prepare(RunOptions(red_target="none"))
    whole = write_results(folder / "whole", session, session.results())
    shards = []
    for k in range(1, 5):
        part = prepare(RunOptions(red_target="none", shard=f"{k}/4"))
        shards.append(write_results(folder / str(k), part, part.results()))
    return whole, shards


def test_run(benchmark, written):
    benchmark.group = "reports"
    benchmark.name = RUN
    session = prepare(RunOptions(red_target="none"))
    benchmark.extra_info["cases"] = len(session.cases)
    benchmark.pedantic(lambda: list(session.results()), rounds=3, iterations=1)


@pytest.mark.parametrize("fmt", list(ReportFormat))
def test_render(benchmark, written, fmt):
    benchmark.group = "reports"
    benchmark.name = f"render {fmt.value} from the record (audit, render)"
    benchmark.extra_info["against"] = RUN
    record = read_results(written[0])
    benchmark.pedantic(lambda: fmt.render(Audit(record)), rounds=3, iterations=1)


def test_read_results_typed(benchmark, written):
    benchmark.group = "reports"
    benchmark.name = "read results.json back typed and checked"
    benchmark.extra_info["against"] = RUN
    benchmark.pedantic(lambda: read_results(written[0]), rounds=3, iterations=1)


def test_merge_of_four_shards(benchmark, written):
    benchmark.group = "reports"
    benchmark.name = "merge of 4 shards (already read)"
    benchmark.extra_info["against"] = RUN
    whole, shards = written
    records = [(path, read_results(path)) for path in shards]
    merged = benchmark.pedantic(lambda: merge_results(records), rounds=3, iterations=1)
    assert encode(merged) == whole.read_bytes()
