"""Measure which flaws of `tests/fixtures/unnamed_hosts*.py` the bundled cases catch.

Not a pytest test: it runs the whole matrix once per factory. From the repository's root:

    python tests/hosts/measure_unnamed.py                  # every factory, the whole matrix
    python tests/hosts/measure_unnamed.py --shard 1/2      # half of each matrix
    python tests/hosts/measure_unnamed.py --only correct   # factories whose name holds `correct`
    python tests/hosts/measure_unnamed.py --parallel 2     # two factories at a time

Each factory (of `unnamed_hosts.py` and `unnamed_hosts_more.py`) runs through the installed CLI
(`toolsurface run --target tests.fixtures.MODULE:FACTORY --red-target none --jobs 1 --out DIR`);
its results.json gives a row: whether it was caught (any case `survived`, `false_reject` or `error`), how many
cases failed, and the most common failing reason. A correct host must fail none.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MODULES = ("tests.fixtures.unnamed_hosts", "tests.fixtures.unnamed_hosts_more")
FAILING = ("survived", "false_reject", "error")


def factories(only: str | None) -> list[tuple[str, str, str]]:
    """(module, factory, flaw) for every factory, correct ones first; flaw is '' for a correct one."""
    if str(Path.cwd()) not in sys.path:  # the CLI imports the target from the working directory too
        sys.path.insert(0, str(Path.cwd()))
    found = []
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if not inspect.isfunction(value) or value.__module__ != module_name:
                continue
            style, _, rest = name.partition("_")
            if not rest or style not in ("pipeline", "registry", "journal", "guarded"):
                continue
            doc = inspect.getdoc(value) or ""
            flaw = doc.removeprefix("FLAW:").strip().splitlines()[0] if doc.startswith("FLAW:") else ""
            if only and only not in name:
                continue
            found.append((module_name, name, flaw))
    return sorted(found, key=lambda f: (bool(f[2]), f[1]))


def run_one(module: str, name: str, shard: str | None, timeout: float, keep: Path | None) -> dict:
    out = Path(tempfile.mkdtemp(prefix=f"unnamed-{name}-"))
    command = [
        str(Path(sys.executable).with_name("toolsurface")),
        "run",
        "--target",
        f"{module}:{name}",
        "--red-target",
        "none",
        "--jobs",
        "1",
        "--out",
        str(out),
    ]
    if shard:
        command += ["--shard", shard]
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        shutil.rmtree(out, ignore_errors=True)
        return {"status": "timeout", "seconds": time.monotonic() - started}
    seconds = time.monotonic() - started
    results = out / "results.json"
    if not results.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        shutil.rmtree(out, ignore_errors=True)
        return {"status": f"exit {done.returncode}: {tail[0]}", "seconds": seconds}
    cases = json.loads(results.read_text())["cases"]
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(results, keep / f"{name}.json")
    shutil.rmtree(out, ignore_errors=True)
    failing = [c for c in cases if c["verdict"]["kind"] in FAILING]
    reasons = Counter(_shape(c["verdict"]["reason"]) for c in failing)
    kinds = Counter(c["verdict"]["kind"] for c in failing)
    return {
        "status": f"exit {done.returncode}",
        "seconds": seconds,
        "cases": len(cases),
        "failing": len(failing),
        "kinds": dict(kinds),
        "reason": reasons.most_common(1)[0] if reasons else None,
    }


def _shape(reason: str) -> str:
    """A reason without the tool names and numbers that vary from case to case."""
    import re

    reason = re.sub(r"'[^']*'", "'…'", reason)
    return re.sub(r"\d+", "N", reason)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shard", help="run part K/N of each matrix, e.g. 1/2")
    parser.add_argument("--only", help="only factories whose name contains this")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per factory")
    parser.add_argument("--keep", type=Path, help="copy each results.json into this folder")
    parser.add_argument("--parallel", type=int, default=1, help="factories run at once (each --jobs 1)")
    args = parser.parse_args()

    def one(found: tuple[str, str, str]) -> tuple[str, str, dict]:
        module, name, flaw = found
        result = run_one(module, name, args.shard, args.timeout, args.keep)
        print(f"{name}: {result}", file=sys.stderr, flush=True)
        return name, flaw, result

    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        rows = list(pool.map(one, factories(args.only)))

    print(f"shard: {args.shard or 'whole matrix'}\n")
    print("| factory | flaw | caught | failing cases | verdicts | most common failing reason | seconds |")
    print("| --- | --- | --- | ---: | --- | --- | ---: |")
    detected = flaws = false_alarms = 0
    for name, flaw, result in rows:
        failing = result.get("failing")
        caught = "n/a" if failing is None else ("yes" if failing else "no")
        if flaw:
            flaws += 1
            detected += bool(failing)
        else:
            false_alarms += bool(failing) or failing is None
        reason = result.get("reason")
        reason_text = f"{reason[0]} ({reason[1]})" if reason else result["status"] if failing is None else ""
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(result.get("kinds", {}).items()))
        print(
            f"| `{name}` | {_cell(flaw) or '(correct)'} | {caught} | {failing if failing is not None else '—'} "
            f"| {kinds} | {_cell(reason_text)} | {result['seconds']:.0f} |"
        )
    correct = sum(1 for _, flaw, _ in rows if not flaw)
    print(
        f"\n{detected} of {flaws} flaws detected, {false_alarms} false alarms on correct hosts "
        f"({correct} correct hosts; {time.monotonic() - started:.0f} s in all)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
