"""Print each benchmark group's ratios against its named alternatives at the end of the run."""


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
                write(f"  [{group}] {bench.name}: {bench.stats.median / other.stats.median:.3f}× the time of {other.name}")
        if named:
            continue
        first = benches[0]
        for other in benches[1:]:
            ratio = first.stats.median / other.stats.median
            if ratio >= 1:
                write(f"  [{group}] {first.name}: {ratio:.2f}× the time of {other.name}")
            else:
                write(f"  [{group}] {first.name}: {1 / ratio:.1f}× faster than {other.name}")
        for bench in benches:
            cases = bench.extra_info.get("cases")
            if cases:
                write(f"  [{group}] {bench.name}: {cases / bench.stats.median:,.0f} cases/s")


def _against(bench) -> list[str]:
    """The names a benchmark is measured against: one name or a list of them."""
    named = bench.extra_info.get("against", [])
    return [named] if isinstance(named, str) else list(named)
