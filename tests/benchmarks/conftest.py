"""Print each benchmark group's ratios against its named alternatives at the end of the run, and
the installed frameworks the whole-program benchmarks read, copied to a folder of their own."""

import importlib.util
import shutil
import tempfile
from pathlib import Path

import pytest

#: What the whole-program benchmarks read: three frameworks at once, as one program.
FRAMEWORKS = ("langchain_core", "agents", "mcp")


@pytest.fixture(scope="module")
def framework_tree():
    specs = [importlib.util.find_spec(name) for name in FRAMEWORKS]
    if not all(spec is not None and spec.origin for spec in specs):
        pytest.skip("the frameworks are not installed here: install the `dev` extra")
    root = Path(tempfile.mkdtemp())
    for name, spec in zip(FRAMEWORKS, specs, strict=True):
        shutil.copytree(Path(spec.origin).parent, root / name)
    yield root
    shutil.rmtree(root)


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None or not session.benchmarks:
        return
    groups = {}
    for bench in session.benchmarks:
        groups.setdefault(bench.group, []).append(bench)
    write = terminalreporter.write_line
    write("")
    write("toolsurface benchmark ratios (medians, same run)")
    for group, benches in groups.items():
        by_name = {bench.name: bench for bench in benches}
        # A benchmark may name the alternatives it is measured against; the rest compare with the first.
        named = [bench for bench in benches if _against(bench) and set(_against(bench)) <= set(by_name)]
        for bench in named:
            for against in _against(bench):
                other = by_name[against]
                write(
                    f"  [{group}] {bench.name}: {bench.stats.median / other.stats.median:.3f}× the time of {other.name}"
                )
        rest = [bench for bench in benches if bench not in named]
        if len(rest) < 2:
            continue
        first = rest[0]
        for other in rest[1:]:
            ratio = first.stats.median / other.stats.median
            if ratio >= 1:
                write(f"  [{group}] {first.name}: {ratio:.2f}× the time of {other.name}")
            else:
                write(f"  [{group}] {first.name}: {1 / ratio:.1f}× faster than {other.name}")
        for bench in rest:
            cases = bench.extra_info.get("cases")
            if cases:
                write(f"  [{group}] {bench.name}: {cases / bench.stats.median:,.0f} cases/s")
        _write_growth(write, group, benches)


def _write_growth(write, group: str, benches) -> None:
    """For benchmarks of one thing at several sizes (`extra_info["tools"]`, and `["per"]` runs a
    round): the time of one, and how it grows from each size to the next against the sizes' ratio.
    The fastest round: a larger surface spills from the caches a neighbour shares, so it swings more
    under load than a small one does, and anything else running only adds time."""
    sized = sorted(
        (bench for bench in benches if bench.extra_info.get("tools")), key=lambda bench: bench.extra_info["tools"]
    )
    previous = None
    for bench in sized:
        tools, each = bench.extra_info["tools"], bench.stats.min / bench.extra_info.get("per", 1)
        line = f"  [{group}] {tools} tools: {each * 1000:.2f} ms each"
        if previous is not None:
            before, before_each = previous
            line += (
                f"; cost({tools})/cost({before}) = {each / before_each:.2f} against {tools / before:.2f} for the tools"
            )
        write(line)
        previous = tools, each


def _against(bench) -> list[str]:
    """The names a benchmark is measured against: one name or a list of them."""
    named = bench.extra_info.get("against", [])
    return [named] if isinstance(named, str) else list(named)
