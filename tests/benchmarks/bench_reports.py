"""What `report` and `merge` cost against the run they read, on the default matrix.

The run is what `toolsurface run` does on the default settings (the guard paired with the legacy
path), in one process so its time is its CPU: plan, run every case, write results.json. A report
is what `toolsurface report` does: read results.json back checked (every case decoded and held to
its evidence, the digest and the summary recomputed), the audit, and one format rendered. A merge
is what `toolsurface merge` does before its reports: read four shards checked, write the merged
results.json, and the audit of it. All in the same benchmark run.
"""

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._results import merge_results, open_results, write_results
from toolsurface.reports import Audit, ReportFormat

RUN = "run: default settings, in one process"


def run(folder, **options):
    session = prepare(RunOptions(jobs=0, grace=0, **options))
    return write_results(folder, session, session.results())


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reports")
    return run(folder / "whole"), [run(folder / str(k), shard=f"{k}/4") for k in range(1, 5)]


def test_run(benchmark, written, tmp_path):
    benchmark.group = "reports"
    benchmark.name = RUN
    benchmark.pedantic(lambda: run(tmp_path), rounds=3, iterations=1)


@pytest.mark.parametrize("fmt", list(ReportFormat))
def test_report(benchmark, written, fmt):
    benchmark.group = "reports"
    benchmark.name = f"report --format {fmt.value}: read checked, audit, render"
    benchmark.extra_info["against"] = RUN
    benchmark.pedantic(lambda: fmt.render(Audit(open_results(written[0]))), rounds=3, iterations=1)


def test_merge_of_four_shards(benchmark, written, tmp_path):
    benchmark.group = "reports"
    benchmark.name = "merge of 4 shards: read each checked, write, audit"
    benchmark.extra_info["against"] = RUN
    whole, shards = written
    merged = tmp_path / "results.json"

    def merge():
        merge = merge_results([open_results(path) for path in shards])
        merged.write_bytes(b"".join(merge))
        return Audit(merge.record(merged))

    benchmark.pedantic(merge, rounds=3, iterations=1)
    assert merged.read_bytes() == whole.read_bytes()
