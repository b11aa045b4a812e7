"""Aims depend only on the scenario and the rng: not on hash seeds, object ids or global state."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Lists every aim of every mutator for 20 seeds, on a scenario whose eligible controls form a
#: set of several names: any iteration over that set shows up as output that varies with the seed.
SCRIPT = """
import random
from toolsurface import mutators
from toolsurface.mutators._fixtures import (
    CONVERSATION,
    HOLDINGS,
    PROFILE,
    READ_TOOL_RESULT,
    SEARCH,
    WEB_READ,
    WEB_SEARCH,
)
from toolsurface.mutators._testing import descriptor, minimal_scenario

names = ("read_tool_result", "recall_context", "expand_result", "page_result", "list_results")
controls = [descriptor({**READ_TOOL_RESULT, "name": name}) for name in names]
scenario = minimal_scenario(
    map(descriptor, (SEARCH, PROFILE, WEB_SEARCH, WEB_READ)),
    controls=controls,
    eligible_controls=names[1:],
    admitted_elsewhere=[descriptor(HOLDINGS)],
    messages=CONVERSATION,
)
for seed in range(20):
    for mutator in mutators.MUTATORS:
        print(mutator.key(), list(mutator.aims(scenario, random.Random(seed))))
"""


def _aims_under(hash_seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def test_aims_do_not_depend_on_the_hash_seed() -> None:
    first = _aims_under("1")
    picked = {f"control.remove [Tool(name={name!r})]" for name in ("recall_context", "expand_result")}
    assert any(line in first for line in picked)
    assert all(_aims_under(seed) == first for seed in ("2", "3", "4"))
