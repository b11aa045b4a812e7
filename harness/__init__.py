"""The toolsurface engine: tool formats, canonical snapshots and diffs, ports, reference targets,
the plan, the runner and its oracles, the API the CLI drives, and the CLI.

Its modules are internal and may change between releases; what hosts, guards and property tests
may rely on is the public API of `toolsurface` itself.
"""
