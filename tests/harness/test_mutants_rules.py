"""Every branch of the rules decides a case: each mutant of the guard core, the owner-fact rule
and the capacity rule, seams and classic operators alike, is killed by the default matrix on
`reference:guarded` or, where that host never uses the guard so, on `reference:framework` or (the
guard core) the MCP example host, or is listed with its reason in tests/mutants/equivalents.toml.

Hours of CPU time in all (the guard core's six parts took 82 minutes on 2 cores; docs/mutants.md
has the measured times): marked `mutants`, which
the default run leaves out and the scheduled job (`.ci/run scheduled`) runs, in interleaved parts
so that `-n auto` spreads them over the workers.
"""

from collections import Counter
from pathlib import Path

import pytest

from toolsurface.harness._api import RunOptions
from toolsurface.harness._equivalents import load_equivalents
from toolsurface.harness._mutants import operator_names, run_mutants

ROOT = Path(__file__).resolve().parents[2]
EQUIVALENTS = ROOT / "tests" / "mutants" / "equivalents.toml"
#: Each module, and the functions of it mutated (None: the defaults, which are every function of
#: the guard's module and every module-level one of a module it calls). Of `_canonical.py`, what
#: `capture` runs: the guard's snapshots' classes stay the originals beside a mutant, and the rest
#: of the module is the harness's or the pipeline's.
MODULES = {
    "contract/_guard.py": None,
    "contract/_facts.py": None,
    "contract/_canonical.py": frozenset({"capture", "_as_found", "_canonical_of", "_remember", "canonical_json"}),
}
#: Parts per module: a survivor runs all the matrix's cases, and some thirty survive to be listed.
PARTS = {"contract/_guard.py": 6, "contract/_facts.py": 1, "contract/_canonical.py": 2}
#: The hosts that judge what `reference:guarded` lets through. The MCP example host imports the
#: guard and narrows its tools by the owner-fact rule itself as it makes a request, which no
#: reference host does: the guard core's record of the hidden set in force then is decided there.
ALSO = {
    "contract/_guard.py": ["reference:framework", "mcp-host:guarded"],
    "contract/_facts.py": ["reference:framework"],
    "contract/_canonical.py": ["reference:framework"],
}


@pytest.mark.mutants
@pytest.mark.parametrize(
    ("module", "part"),
    [(module, (k, n)) for module, n in PARTS.items() for k in range(1, n + 1)],
    ids=[f"{module}-{k}of{n}" for module, n in PARTS.items() for k in range(1, n + 1)],
)
def test_every_mutant_of_the_rules_is_killed_or_a_listed_equivalent(module, part):
    run = run_mutants(
        RunOptions(target="reference:guarded"),
        ROOT / module,
        operators=operator_names(["seams,classic"]),
        functions=MODULES[module],
        equivalents=load_equivalents(EQUIVALENTS),
        part=part,
        also=ALSO[module],
    )
    # The part's tally, for the scheduled job's log (`-rP`) and docs/mutants.md's table.
    print(module, part, Counter(r.status for r in run.results), f"{run.cases} cases")
    survivors = [f"{r.mutant.id}: {r.mutant.description}" for r in run.results if r.status == "Survived"]
    broken = [f"{r.mutant.id}: {r.reason}" for r in run.results if r.status == "CompileError"]
    assert not survivors, "survivors a case must kill, or equivalents to list with a reason:\n" + "\n".join(survivors)
    assert not broken and not run.stale, "\n".join((*broken, *run.stale))
