"""What installing the guard costs a host's process: `import toolsurface.guard` in a new process,
against Python starting and doing nothing, and against the same import with the modules the guard
loaded when it was built on the test engine (the harness's types, the scenarios and their loader,
all the mutators, jsonschema), measured in the same run."""

import subprocess
import sys

PYTHON = "python -c pass"
GUARD = "python -c 'import toolsurface.guard'"
#: What `import toolsurface.guard` loaded before the contract was its own package.
ENGINE = ("toolsurface.harness._types", "toolsurface.scenarios", "toolsurface.mutators", "jsonschema")
ENGINE_GUARD = "import toolsurface.guard with the test engine it used to load"


def started(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True)


def test_python_doing_nothing(benchmark):
    benchmark.group = "guard import"
    benchmark.name = PYTHON
    benchmark.pedantic(started, args=("pass",), rounds=20, iterations=1)


def test_guard(benchmark):
    benchmark.group = "guard import"
    benchmark.name = GUARD
    benchmark.extra_info["against"] = PYTHON
    benchmark.pedantic(started, args=("import toolsurface.guard",), rounds=20, iterations=1)


def test_guard_with_the_test_engine(benchmark):
    benchmark.group = "guard import"
    benchmark.name = ENGINE_GUARD
    benchmark.extra_info["against"] = GUARD
    benchmark.pedantic(started, args=(f"import toolsurface.guard, {', '.join(ENGINE)}",), rounds=20, iterations=1)
