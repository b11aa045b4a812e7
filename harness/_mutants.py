"""Source mutants of a target's guard, run against the cases: is every seam load-bearing?

Each mutant is the target's module with one seam weakened, executed as a module of its own next
to the original (the file is never modified, nothing replaces the original in `sys.modules`). A
mutant is killed by the first case it lets survive or falsely rejects; a mutant that only makes
cases error is a runtime error, never a kill.
"""

from __future__ import annotations

import inspect
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsurface.common._errors import UsageError
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.scan import ScanConfig
from toolsurface.scan._seams import SourceMutant, source_mutants

from ._api import RunOptions, Session, prepare
from ._reference import REFERENCE_TARGETS
from ._reference._guarded import GuardedPipeline, variant
from ._runner import Runner
from ._targets import NO_TARGET
from ._types import Case, Target, VerdictKind

_KILLS = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})


@dataclass(frozen=True, slots=True)
class MutantResult:
    mutant: SourceMutant
    #: Stryker's words: `Killed`, `Survived`, `CompileError`, `RuntimeError`, or `Ignored` for a
    #: mutant equivalent to the original or to an earlier one (it is not run).
    status: str
    #: The first case that killed it.
    killed_by: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class MutantRun:
    target: str
    path: str
    source: str
    #: The cases that pass on the unmutated target: the only ones that can kill a mutant.
    cases: int
    results: tuple[MutantResult, ...]

    @property
    def killed(self) -> int:
        return sum(result.status == "Killed" for result in self.results)

    @property
    def counted(self) -> int:
        """Mutants that count towards the score: all but the ignored equivalents."""
        return sum(result.status != "Ignored" for result in self.results)

    @property
    def score(self) -> float:
        """Killed over counted mutants, as a percentage (100 when there are none to kill)."""
        return 100.0 * self.killed / self.counted if self.counted else 100.0

    @property
    def ok(self) -> bool:
        return self.killed == self.counted


def run_mutants(options: RunOptions, source: Path | None = None, config: ScanConfig = ScanConfig()) -> MutantRun:
    """Weaken each seam of the target's module in turn and run the selected cases on it.

    `config` names the seams, as `[tool.toolsurface.scan]` does for `toolsurface scan`.
    """
    session = prepare(RunOptions(**{**options.__dict__, "red_target": NO_TARGET}))
    target = session.runner.target
    module = sys.modules[_guard_of(target).__module__]
    path = source or Path(inspect.getsourcefile(module) or "")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        # Without --source, the path is the target module's own: no input of the user's to name.
        raise UsageError(f"{path}: cannot read: {error.strerror}", option="source" if source else None) from None
    green = [result.case for result in session.records() if result.verdict.kind.ok]
    results = []
    seen: dict[str, str | None] = {text: None}
    for index, mutant in enumerate(source_mutants(text, str(path), config)):
        if mutant.source in seen:
            twin = seen[mutant.source]
            reason = f"the same source as mutant {twin}" if twin else "the mutated source equals the original"
            results.append(MutantResult(mutant, "Ignored", None, f"equivalent: {reason}"))
            continue
        seen[mutant.source] = mutant.id
        results.append(_try(mutant, index, module, options.target, target, session, green))
    return MutantRun(session.info.target, str(path), text, len(green), tuple(results))


def _try(
    mutant: SourceMutant,
    index: int,
    original: types.ModuleType,
    spec: str,
    target: Target,
    session: Session,
    green: list[Case],
) -> MutantResult:
    name = f"{original.__name__}__mutant_{index}"
    module = types.ModuleType(name)
    module.__package__ = original.__package__
    module.__file__ = original.__file__
    sys.modules[name] = module  # dataclasses and typing look their module up while it executes
    try:
        try:
            exec(compile(mutant.source, f"{original.__file__} ({mutant.id})", "exec"), module.__dict__)
            mutated = _build(module, spec, target)
        except Exception as error:
            return MutantResult(mutant, "CompileError", None, f"{type(error).__name__}: {error}")
        errors: list[str] = []
        runner = Runner(session.scenarios, mutated, timeout=session.options.timeout)
        for result in map(runner.run_case, green):
            if result.verdict.kind in _KILLS:
                return MutantResult(mutant, "Killed", result.case.id, result.verdict.reason)
            if result.verdict.kind is VerdictKind.ERROR and not errors:
                errors.append(f"{result.case.id}: {result.verdict.reason}")
        if errors:
            return MutantResult(mutant, "RuntimeError", None, errors[0])
        return MutantResult(mutant, "Survived", None, f"all {len(green)} cases that pass on the target still pass")
    finally:
        del sys.modules[name]


def _guard_of(target: Target) -> type:
    """The class whose module holds the target's guard: for `reference:guarded`, the shipped guard
    it drives (the pipeline only asks it); for a reference defect, its flaw; else the target's own."""
    if not isinstance(target, GuardedPipeline):
        return type(target)
    if type(target) is GuardedPipeline:
        return GuardedRequest
    flawed = [cls for cls in (target.guard_type, target.request_type) if cls not in (SurfaceGuard, GuardedRequest)]
    return flawed[0] if flawed else type(target)


def _build(module: types.ModuleType, spec: str, target: Target) -> Target:
    """The target again, from the mutated module: its factory if the module has it, else its class
    (the shipped guard or a reference defect's flaw, made a pipeline again)."""
    if type(target) is GuardedPipeline:
        shipped = {"guard_type": module.SurfaceGuard, "request_type": module.GuardedRequest}
        return type("MutatedGuard", (GuardedPipeline,), shipped)()
    if spec in REFERENCE_TARGETS:
        return variant(getattr(module, _guard_of(target).__name__))()
    factory: Any = module
    for part in spec.partition(":")[2].split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            factory = getattr(module, type(target).__name__)
            break
    return factory() if callable(factory) else factory
