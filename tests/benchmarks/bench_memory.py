"""Peak memory of `toolsurface run` as the plan grows, each run in a new process.

- The bundled recordings, once and 16 times over (each copy under an id of its own), on the
  default settings: the peak at 16× must stay within 2× of the peak at 1×.
- A plan of a million cases, generated from copies of one small recording (581 cases each),
  on the reference guard alone: the peak must stay under 500 MB.

The peak is the largest resident set of the command or any of its worker processes
(`RUSAGE_CHILDREN` of a process that runs only the command). Takes about 40 minutes on 2 cores.
"""

import json
import math
import subprocess
import sys
import sysconfig
from pathlib import Path

from toolsurface.scenarios import bundled_dir

#: The recording the million-case plan is generated from: small, and rich in cases.
SMALL = "news-scan-child-anthropic-hooked"
MILLION = 1_000_000
#: Peak resident sets, in KB, by run, printed at the end.
PEAKS: dict[str, int] = {}


def copies(folder: Path, recordings: list[Path], times: int) -> Path:
    """Each recording `times` over, each copy with an id of its own."""
    folder.mkdir()
    for path in recordings:
        document = json.loads(path.read_text())
        for copy in range(times):
            (folder / f"{path.stem}-{copy}.json").write_text(json.dumps({**document, "id": f"{document['id']}-{copy}"}))
    return folder


def peak(*args: str) -> int:
    """The peak resident set (KB) of `toolsurface run` with these flags, workers included."""
    command = [str(Path(sysconfig.get_path("scripts")) / "toolsurface"), "run", *args]
    measure = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=False); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    shown = subprocess.run([sys.executable, "-c", measure, *command], capture_output=True, text=True, check=True)
    assert "PASS" in shown.stdout, shown.stdout + shown.stderr
    return int(shown.stdout.split()[-1])


def test_sixteen_times_the_bundled_set_peaks_within_twice_once(tmp_path):
    recordings = sorted(bundled_dir().glob("*.json"))
    once = peak("--scenarios", str(copies(tmp_path / "x1", recordings, 1)), "--out", str(tmp_path / "out1"))
    sixteen = peak("--scenarios", str(copies(tmp_path / "x16", recordings, 16)), "--out", str(tmp_path / "out16"))
    PEAKS["bundled set, 1×"], PEAKS["bundled set, 16×"] = once, sixteen
    assert sixteen <= 2 * once, f"16×: {sixteen} KB, 1×: {once} KB"


def test_a_million_case_plan_peaks_under_500_mb(tmp_path):
    small = bundled_dir() / f"{SMALL}.json"
    folder = copies(tmp_path / "million", [small], math.ceil(MILLION / 581))
    found = peak("--scenarios", str(folder), "--red-target", "none", "--out", str(tmp_path / "out"))
    PEAKS["a million cases"] = found
    assert found < 500 * 1024, f"{found} KB"


def teardown_module() -> None:
    for run, kilobytes in PEAKS.items():
        print(f"peak resident set, {run}: {kilobytes / 1024:.0f} MB")
