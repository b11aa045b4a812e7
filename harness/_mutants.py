"""Source mutants of a target's guard, run against the cases: is every seam load-bearing, and does
every branch of its rules decide a case?

Each mutant is the target's module with one seam weakened or one classic mutation made, executed
as a module of its own next to the original (the file is never modified, nothing replaces the
original in `sys.modules`). A module the guard's module calls (`contract/_facts.py` for the
shipped guard) is mutated the same way and reaches the guard through a copy of the guard's module
whose names for its functions are the mutant's: the harness, whose oracle uses the same rules,
keeps the originals, so a mutant is never judged by itself. A mutant is killed by the first case
it lets survive or falsely rejects; a mutant that only makes cases error is a runtime error, never
a kill. A survivor the equivalents file lists is `Equivalent`.

A guard is used in more than one way: other targets that drive the same guard (`also`, such as
`reference:framework` beside `reference:guarded`) judge each mutant the first target lets through,
and it survives only where it survives on every one (one that makes cases error on a target, and
is killed by none there, is a runtime error, and not run on the next). A host that imports the shipped guard rather
than being made from it (the MCP example host) drives the mutant through its own modules: while it
runs, their names for the guard's classes and functions are the mutant's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import sys
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolsurface.common._errors import UsageError
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.scan import ScanConfig
from toolsurface.scan._operators import CLASSIC
from toolsurface.scan._seams import SEAMS, SourceMutant, function_names, source_mutants

from ._api import RunOptions, Session, prepare
from ._equivalents import NONE_EQUIVALENT, Equivalents
from ._reference import REFERENCE_TARGETS
from ._reference._framework import FrameworkPipeline
from ._reference._guarded import GuardedPipeline, variant
from ._runner import Runner
from ._targets import NO_TARGET
from ._types import Case, Target, VerdictKind

_KILLS = frozenset({VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT})

#: The reference pipelines that drive the shipped guard as it is, each in its own way.
_SHIPPED_GUARD_HOSTS: tuple[type[GuardedPipeline], ...] = (GuardedPipeline, FrameworkPipeline)


@dataclass(frozen=True, slots=True)
class _Judge:
    """A target that judges the mutants, with its session and the cases that pass on it."""

    spec: str
    target: Target
    session: Session
    green: list[Case]


@dataclass(frozen=True, slots=True)
class MutantResult:
    mutant: SourceMutant
    #: Stryker's words: `Killed`, `Survived`, `CompileError`, `RuntimeError`, or `Ignored` for a
    #: mutant whose source is the original's or an earlier mutant's (it is not run); and ours,
    #: `Equivalent`, for a survivor the equivalents file lists (the report writes it `Ignored`).
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
    #: Entries of the equivalents file for this module that excuse no survivor, one line each: an
    #: id that names no mutant, or a mutant that is killed or errors. A stale entry fails the run.
    stale: tuple[str, ...] = ()

    @property
    def killed(self) -> int:
        return sum(result.status == "Killed" for result in self.results)

    @property
    def equivalent(self) -> int:
        return sum(result.status == "Equivalent" for result in self.results)

    @property
    def counted(self) -> int:
        """Mutants that count towards the score: all but those whose source an earlier one had."""
        return sum(result.status != "Ignored" for result in self.results)

    @property
    def score(self) -> float:
        """Killed and equivalent over counted mutants, as a percentage (100 when there are none)."""
        return 100.0 * (self.killed + self.equivalent) / self.counted if self.counted else 100.0

    @property
    def ok(self) -> bool:
        return self.killed + self.equivalent == self.counted and not self.stale


def operator_names(given: Iterable[str]) -> frozenset[str]:
    """The operators `--operators` values name, comma-separated: `seams`, `classic`, or operators by
    name (`NegateCondition`). Naming none is the seams alone, what `mutants` always ran."""
    groups = {"seams": SEAMS, "classic": CLASSIC, **{name: (name,) for name in (*SEAMS, *CLASSIC)}}
    names = [name.strip() for value in given for name in value.split(",") if name.strip()]
    for name in names:
        if name not in groups:
            choices = ", ".join(groups)
            raise UsageError(f"{name!r}: expected an operator or a group of them: {choices}", option="operators")
    return frozenset(operator for name in names or ["seams"] for operator in groups[name])


def run_mutants(
    options: RunOptions,
    source: Path | None = None,
    config: ScanConfig = ScanConfig(),
    *,
    operators: frozenset[str] = frozenset(SEAMS),
    functions: frozenset[str] | None = None,
    equivalents: Equivalents = NONE_EQUIVALENT,
    part: tuple[int, int] | None = None,
    also: Iterable[str] = (),
) -> MutantRun:
    """Make each mutant of the target's module (or `source`) in turn and run the selected cases on it.

    `config` names the seams, as `[tool.toolsurface.scan]` does for `toolsurface scan`; `operators`
    are the operators to apply, `functions` the functions whose code they mutate (qualified names;
    default: all of the guard's module, the module-level functions of a module it calls). `part`,
    `(k, n)`, runs only the kth of n interleaved parts of the mutants (k from 1), for shards.
    `also` names more targets that drive the same guard, each judging what the first lets through.
    """
    judges = [_judge(options, options.target)]
    guard = sys.modules[_guard_of(judges[0].target).__module__]
    for spec in also:
        judges.append(judge := _judge(options, spec))
        if sys.modules[_guard_of(judge.target).__module__] is not guard:
            raise UsageError(f"{spec}: drives another guard than {options.target}", option="also")
    module = _module_at(guard, source)
    path = source or Path(inspect.getsourcefile(module) or "")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        # Without --source, the path is the target module's own: no input of the user's to name.
        raise UsageError(f"{path}: cannot read: {error.strerror}", option="source" if source else None) from None
    scope = _scope(text, path, functions, called=module is not guard)
    listed = equivalents.of(str(path))
    mutants = source_mutants(text, str(path), config, operators, scope)
    results, stale = [], []
    seen: dict[str, str | None] = {text: None}
    for index, mutant in enumerate(mutants):
        twin = seen.setdefault(mutant.source, mutant.id)
        if part is not None and index % part[1] != part[0] - 1:
            continue
        if twin != mutant.id:
            reason = f"the same source as mutant {twin}" if twin else "the mutated source equals the original"
            results.append(MutantResult(mutant, "Ignored", None, f"equivalent: {reason}"))
            continue
        result = _try(mutant, index, module, guard, judges)
        if mutant.id in listed:
            result, problem = _excused(result, listed[mutant.id], equivalents.path)
            stale += [problem] if problem else []
        results.append(result)
    ids = {mutant.id for mutant in mutants}
    stale += [
        f"{name}: listed as equivalent in {equivalents.path}, but names no mutant" for name in listed if name not in ids
    ]
    target = " + ".join(judge.session.info.target for judge in judges)
    return MutantRun(target, str(path), text, sum(len(judge.green) for judge in judges), tuple(results), tuple(stale))


def _judge(options: RunOptions, spec: str) -> _Judge:
    session = prepare(RunOptions(**{**options.__dict__, "target": spec, "red_target": NO_TARGET}))
    green = [result.case for result in session.records() if result.verdict.kind.ok]
    return _Judge(spec, session.runner.target, session, green)


def _module_at(guard: types.ModuleType, source: Path | None) -> types.ModuleType:
    """The module `source` is: one whose functions the guard's module calls, or else (the guard's
    own file, or a copy of it) the guard's module."""
    if source is None:
        return guard
    wanted = source.resolve()
    for module in map(sys.modules.get, sorted(_called(guard))):
        if module is not None and _is_file_of(module, wanted):
            return module
    return guard


def _is_file_of(module: types.ModuleType, path: Path) -> bool:
    """Whether `path` is `module`'s file: the file itself, or the same file in a checkout of an
    installed package (the same path below the package's root, and the same text)."""
    found = Path(inspect.getsourcefile(module) or "").resolve()
    if found == path:
        return True
    below_root = (*module.__name__.split(".")[1:-1], f"{module.__name__.rsplit('.', 1)[-1]}.py")
    return path.parts[-len(below_root) :] == below_root and found.is_file() and found.read_bytes() == path.read_bytes()


def _called(guard: types.ModuleType) -> dict[str, list[str]]:
    """The modules whose functions the guard's module holds by name, with those names."""
    names: dict[str, list[str]] = {}
    for name, value in vars(guard).items():
        if isinstance(value, types.FunctionType) and value.__module__ not in (guard.__name__, None):
            names.setdefault(value.__module__, []).append(name)
    return names


def _scope(text: str, path: Path, functions: frozenset[str] | None, *, called: bool) -> frozenset[str] | None:
    """The functions to mutate. In a module the guard calls, its classes stay the originals (their
    instances come from the harness too: a recorded fact's kind, a snapshot), so only its
    module-level functions can reach the guard without reaching the oracle."""
    known = function_names(text)
    if functions is None:
        return frozenset(name for name in known if "." not in name) if called else None
    for name in sorted(functions):
        if name not in known:
            raise UsageError(f"{name}: {path} has no function of that name (`rule`, `Class.method`)", option="function")
        if called and "." in name:
            raise UsageError(
                f"{name}: a method of {path}, whose classes stay the originals beside a mutant; only its"
                " module-level functions can be mutated",
                option="function",
            )
    return functions


def _excused(result: MutantResult, reason: str, file: str) -> tuple[MutantResult, str | None]:
    """A listed mutant's result: `Equivalent` where it survives, else as it is, with the stale entry."""
    if result.status == "Survived":
        return dataclasses.replace(result, status="Equivalent", reason=f"equivalent: {reason}"), None
    how = f"killed by {result.killed_by}" if result.killed_by else f"a {result.status}: {result.reason}"
    return result, f"{result.mutant.id}: listed as equivalent in {file}, but {how}"


def _try(
    mutant: SourceMutant, index: int, original: types.ModuleType, guard: types.ModuleType, judges: list[_Judge]
) -> MutantResult:
    loaded: list[str] = []
    try:
        try:
            module = _loaded(mutant.source, original, f"{original.__name__}__mutant_{index}", mutant.id, loaded)
            if original is not guard:
                module = _beside(module, original, guard, index, loaded)
            mutated = [_build(module, judge.spec, judge.target) for judge in judges]
        except Exception as error:
            return MutantResult(mutant, "CompileError", None, f"{type(error).__name__}: {error}")
        errors: list[str] = []
        for judge, target in zip(judges, mutated, strict=True):
            runner = Runner(judge.session.scenarios, target, timeout=judge.session.options.timeout)
            with _rebound(judge.target, module):
                for result in map(runner.run_case, judge.green):
                    if result.verdict.kind in _KILLS:
                        return MutantResult(mutant, "Killed", result.case.id, _on(judge, judges, result.verdict.reason))
                    if result.verdict.kind is VerdictKind.ERROR and not errors:
                        errors.append(f"{result.case.id}: {_on(judge, judges, result.verdict.reason)}")
            if errors:
                break  # a runtime error, which the next targets could only make a kill
        if errors:
            return MutantResult(mutant, "RuntimeError", None, errors[0])
        cases = sum(len(judge.green) for judge in judges)
        return MutantResult(mutant, "Survived", None, f"all {cases} cases that pass on the target still pass")
    finally:
        for name in loaded:
            del sys.modules[name]


def _on(judge: _Judge, judges: list[_Judge], reason: str) -> str:
    """The reason, naming the target it was judged on where more than one judges."""
    return reason if len(judges) == 1 else f"on {judge.spec}: {reason}"


def _loaded(source: str, like: types.ModuleType, name: str, label: str, loaded: list[str]) -> types.ModuleType:
    """`source` executed as a new module in `like`'s package, registered under `name` while it runs
    (dataclasses and typing look their module up while it executes); `loaded` gets the name."""
    module = types.ModuleType(name)
    module.__package__ = like.__package__
    module.__file__ = like.__file__
    sys.modules[name] = module
    loaded.append(name)
    exec(compile(source, f"{like.__file__} ({label})", "exec"), module.__dict__)
    return module


def _beside(
    mutant: types.ModuleType, original: types.ModuleType, guard: types.ModuleType, index: int, loaded: list[str]
) -> types.ModuleType:
    """A copy of the guard's module that calls `mutant`'s functions where it called `original`'s.
    The mutant's classes are made the originals again, so that what crosses between the guard and
    the harness (an enum member, a frozen snapshot) is one type on both sides; its functions, and
    the caches and tables they keep, stay its own, so nothing it does reaches the oracle."""
    for name, value in vars(mutant).items():
        kept = getattr(original, name, None)
        if isinstance(value, type) and isinstance(kept, type) and kept.__module__ == original.__name__:
            setattr(mutant, name, kept)
    text = Path(inspect.getsourcefile(guard) or "").read_text(encoding="utf-8")
    copy = _loaded(text, guard, f"{guard.__name__}__beside_mutant_{index}", "beside a mutant", loaded)
    for name in _called(guard)[original.__name__]:
        setattr(copy, name, getattr(mutant, getattr(guard, name).__name__))
    return copy


def _guard_of(target: Target) -> type:
    """The class whose module holds the target's guard: for `reference:guarded` and
    `reference:framework`, the shipped guard they drive (the pipeline only asks it); for a reference
    defect, its flaw; for a host that imports the shipped guard, the shipped guard; else the
    target's own."""
    if not isinstance(target, GuardedPipeline):
        return GuardedRequest if _importers(target) else type(target)
    if type(target) in _SHIPPED_GUARD_HOSTS:
        return GuardedRequest
    flawed = [cls for cls in (target.guard_type, target.request_type) if cls not in (SurfaceGuard, GuardedRequest)]
    return flawed[0] if flawed else type(target)


def _build(module: types.ModuleType, spec: str, target: Target) -> Target:
    """The target again, from the mutated module: its factory if the module has it, else its class
    (the shipped guard or a reference defect's flaw, made a pipeline again)."""
    if type(target) in _SHIPPED_GUARD_HOSTS:
        shipped = {
            "guard_type": module.SurfaceGuard,
            "request_type": module.GuardedRequest,
            "capacity_type": module.Capacity,
        }
        return type("MutatedGuard", (type(target),), shipped)()
    if spec in REFERENCE_TARGETS:
        return variant(getattr(module, _guard_of(target).__name__))()
    if _importers(target):
        return target  # it reaches the mutant through its modules' names (`_rebound`)
    factory: Any = module
    for part in spec.partition(":")[2].split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            factory = getattr(module, type(target).__name__)
            break
    return factory() if callable(factory) else factory


def _importers(target: Target) -> list[types.ModuleType]:
    """The modules the target's own module reaches through the names it imports, within its package,
    that hold the shipped guard's classes or functions by name: a host that imports the guard users
    install. Only what it reaches counts: a module beside it that imports the guard is not its host.
    The harness's own targets have none: what the oracle uses is never rebound."""
    home = type(target).__module__
    if isinstance(target, GuardedPipeline) or home.startswith(f"{__package__}.") or home not in sys.modules:
        return []
    shipped = sys.modules[GuardedRequest.__module__]
    return [module for module in _reached(sys.modules[home]) if _shipped_names(module, shipped)]


def _reached(home: types.ModuleType) -> list[types.ModuleType]:
    """`home` and the modules of its package it reaches, directly or through each other, by the
    modules and the classes and functions it holds by name."""
    package = f"{home.__name__.rpartition('.')[0] or home.__name__}."
    seen = {home.__name__: home}
    pending = [home]
    while pending:
        for value in vars(pending.pop()).values():
            name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
            if isinstance(name, str) and name.startswith(package) and name not in seen and name in sys.modules:
                seen[name] = sys.modules[name]
                pending.append(seen[name])
    return [seen[name] for name in sorted(seen)]


def _shipped_names(module: types.ModuleType, shipped: types.ModuleType) -> list[str]:
    """The names by which `module` holds what `shipped` defines."""
    return [
        name
        for name, value in vars(module).items()
        if getattr(value, "__module__", None) == shipped.__name__
        and getattr(shipped, getattr(value, "__name__", ""), None) is value
    ]


@contextlib.contextmanager
def _rebound(target: Target, mutated: types.ModuleType) -> Iterator[None]:
    """While the target runs, a host that imports the shipped guard holds the mutated module's
    classes and functions under the names it imported; they are its own again after."""
    shipped = sys.modules[GuardedRequest.__module__]
    kept = [
        (module, name, getattr(module, name))
        for module in _importers(target)
        for name in _shipped_names(module, shipped)
    ]
    try:
        for module, name, value in kept:
            setattr(module, name, getattr(mutated, value.__name__))
        yield
    finally:
        for module, name, value in kept:
            setattr(module, name, value)
