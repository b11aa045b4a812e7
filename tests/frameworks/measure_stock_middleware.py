"""Measure each framework's stock middleware, unguarded and guarded, and print the table of
docs/frameworks.md ("Stock middleware").

    python tests/frameworks/measure_stock_middleware.py [--only ROW ...] [--framework langchain ...]

Each row is a pair of factories in tests/fixtures/agents/stock_middleware_*.py (`NAME` and
`NAME_guarded`), run with `toolsurface run` on the same fixed slice of the default matrix, one
run at a time. A row's legitimate cases (`legit.*`: no change injected) that fail unguarded are
the framework's or the middleware's own doing; the two most common reasons are listed. Not collected by pytest.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "tests" / "fixtures" / "agents"
#: The slice every row runs: the same part of each agent's own matrix.
SHARD = "1/10"
#: Seconds one run may take before it is counted as not measured.
TIMEOUT = 1200
MODULES = {
    "langchain": "stock_middleware_langchain",
    "pydantic-ai": "stock_middleware_pydantic_ai",
    "openai-agents": "stock_middleware_openai_agents",
}
DIGITS = re.compile(r"\d+")
KINDS = ("killed", "passed", "survived", "false_reject", "error", "equivalent")


def run(framework: str, factory: str, out: Path) -> dict[str, object]:
    """One `toolsurface run` of FRAMEWORK:MODULE:FACTORY on the slice: its totals and failures."""
    target = f"{framework}:{MODULES[framework]}:{factory}"
    command = [str(Path(sys.executable).with_name("toolsurface")), "run", "--target", target]
    command += ["--shard", SHARD, "--out", str(out), "--red-target", "none"]
    env = {**os.environ, "PYTHONPATH": str(AGENTS)}
    try:
        done = subprocess.run(command, env=env, cwd=out.parent, capture_output=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        return {"target": target, "not_run": f"timed out after {TIMEOUT} s"}
    if not (out / "results.json").is_file():
        return {"target": target, "not_run": done.stderr.decode().strip().splitlines()[-1][:200]}
    results = json.loads((out / "results.json").read_text())
    totals = results["summary"]["totals"]
    own = collections.Counter()
    errors = collections.Counter()
    for case in results["cases"]:
        verdict = case["verdict"]
        if case["case"]["mutation"]["kind"] == "legit" and verdict["kind"] in ("survived", "false_reject"):
            own[DIGITS.sub("N", verdict["reason"].split("; ")[0])] += 1
        if verdict["kind"] == "error":
            errors[verdict["reason"].splitlines()[0][:160]] += 1
    return {"target": target, "totals": totals, "own": dict(own.most_common(2)), "errors": dict(errors.most_common(3))}


def cell(measured: dict[str, object]) -> str:
    if "not_run" in measured:
        return f"not run: {measured['not_run']}"
    totals = measured["totals"]
    assert isinstance(totals, dict)
    return f"{totals['cases']:,}: " + ", ".join(f"{totals[kind]:,} {kind}" for kind in KINDS if totals[kind])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--framework", action="append", choices=list(MODULES))
    parser.add_argument("--only", action="append", help="row names (default: every row)")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    options = parser.parse_args()
    sys.path.insert(0, str(AGENTS))
    measured: list[dict[str, object]] = []
    print("| framework | row | unguarded | guarded | unguarded legit failures (first two reasons) |")
    print("| --- | --- | --- | --- | --- |")
    for framework in options.framework or list(MODULES):
        module = importlib.import_module(MODULES[framework])
        rows = [*module.ROWS, *getattr(module, "OWN_TOOLS_ROWS", ())]
        for name in options.only or list(rows):
            if name not in rows:
                continue
            with tempfile.TemporaryDirectory(prefix="toolsurface-stock-") as scratch:
                stock = run(framework, name, Path(scratch) / "stock")
                guarded = run(framework, f"{name}_guarded", Path(scratch) / "guarded")
            measured.append({"framework": framework, "row": name, "unguarded": stock, "guarded": guarded})
            own = "; ".join(f"{count} × {reason}" for reason, count in dict(stock.get("own", {})).items())
            print(f"| {framework} | `{name}` | {cell(stock)} | {cell(guarded)} | {own or 'none'} |", flush=True)
            for label, result in (("unguarded", stock), ("guarded", guarded)):
                for reason, count in dict(result.get("errors", {})).items():
                    print(f"    {label} error × {count}: {reason}", file=sys.stderr, flush=True)
    if options.json:
        options.json.write_text(json.dumps(measured, indent=2) + "\n")


if __name__ == "__main__":
    main()
