"""The scan reads the program, not one module: a fact a rule needs may live in another module,
reached through imports, re-exports, aliases, instances and base classes."""

import dataclasses
import keyword
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.scan import FileScanned, ScanConfig, Step, scan_paths, scan_source
from toolsurface.scan._project import Program, derive
from toolsurface.scan._summary import module_name, summarise

CONFIG = ScanConfig(settle=("ledger.settle",))

GUARDS = """
def ensure_parity(tools, baseline):
    if capture(tools) != baseline:
        raise SurfaceRefused("tool surface changed")
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def findings(root: Path, config: ScanConfig = CONFIG) -> list[tuple[str, int, str]]:
    return [
        (Path(result.path).relative_to(root).as_posix(), finding.line, finding.rule)
        for result in scan_paths([root], config, jobs=1)
        if isinstance(result, FileScanned)
        for finding in result.findings
    ]


SEND = """
def send(gateway, request, baseline):
    {call}(request.tools, baseline)
    return gateway.dispatch(request)
"""


@pytest.mark.parametrize(
    ("imports", "call"),
    [
        ("from pkg.guards import ensure_parity", "ensure_parity"),
        ("from pkg.guards import ensure_parity as verify", "verify"),
        ("from . import guards", "guards.ensure_parity"),
        ("import pkg.guards", "pkg.guards.ensure_parity"),
        ("import pkg.guards as g", "g.ensure_parity"),
        ("from pkg import ensure_parity", "ensure_parity"),  # re-exported by the package
        ("from .support import check_all", "check_all"),  # a helper that checks through the helper
    ],
)
def test_a_check_made_by_another_modules_function_guards_the_dispatch(tmp_path, imports, call):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "from .guards import ensure_parity\n",
            "pkg/guards.py": GUARDS,
            "pkg/support.py": "from pkg import guards\n\ndef check_all(tools, baseline):\n"
            "    guards.ensure_parity(tools, baseline)\n",
            "pkg/send.py": imports + "\n" + SEND.format(call=call),
        },
    )
    assert findings(tmp_path) == []


def test_a_helper_that_checks_only_sometimes_is_no_check(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/guards.py": """
                def ensure_parity(tools, baseline, hooks):
                    if not hooks:
                        return
                    if capture(tools) != baseline:
                        raise SurfaceRefused("tool surface changed")
                """,
            "pkg/send.py": """
                from pkg.guards import ensure_parity

                def send(gateway, request, baseline, hooks):
                    ensure_parity(request.tools, baseline, hooks)
                    return gateway.dispatch(request)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/send.py", 6, "TS101")]


def test_a_check_another_module_makes_under_a_hook_condition_is_conditional(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/guards.py": GUARDS,
            "pkg/send.py": """
                from pkg import guards

                def send(gateway, request, baseline, hooks):
                    if hooks:
                        guards.ensure_parity(request.tools, baseline)
                    return gateway.dispatch(request)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/send.py", 6, "TS102"), ("pkg/send.py", 7, "TS101")]


def test_methods_inherited_from_instances_and_bases_in_other_modules(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/errors.py": """
                class SurfaceRefused(Exception):
                    pass

                class CatalogDrift(SurfaceRefused):
                    pass
                """,
            "pkg/billing.py": """
                class Books:
                    def __init__(self, ledger):
                        self.ledger = ledger

                    def close_refused(self, reservation):
                        self.ledger.settle(reservation, "pre_dispatch_rejected")

                BOOKS = Books(None)
                """,
            "pkg/base.py": """
                from pkg.billing import Books

                class Stage:
                    books: Books

                    def final_gate(self, request, baseline):
                        if capture(request.tools) != baseline:
                            raise SurfaceRefused("tool surface changed")
                """,
            "pkg/flow.py": """
                from pkg.errors import CatalogDrift
                from pkg.billing import BOOKS
                from pkg.base import Stage

                def run(ledger, gateway, request):
                    reservation = ledger.reserve(request)
                    if request.stale:
                        raise CatalogDrift("stale")
                    try:
                        raise CatalogDrift("late")
                    except CatalogDrift:
                        BOOKS.close_refused(reservation)
                        raise

                class Sealer(Stage):
                    def send(self, gateway, request, baseline):
                        self.final_gate(request, baseline)
                        gateway.dispatch(request)

                    def refuse(self, ledger, request):
                        reservation = ledger.reserve(request)
                        try:
                            raise CatalogDrift("x")
                        except CatalogDrift:
                            self.books.close_refused(reservation)
                            raise
                """,
        },
    )
    # The first refusal leaves with its reservation open; the others are settled by another
    # module's method, through a module-level instance and through a field typed by a class.
    assert findings(tmp_path) == [("pkg/flow.py", 9, "TS105")]


def test_a_parameter_fed_a_tool_list_at_a_call_site_in_another_module_is_a_tool_list(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/select.py": """
                def choose(admitted, limit):
                    return admitted[:limit]
                """,
            "pkg/host.py": """
                from pkg.select import choose

                def fit(request, limit):
                    return choose(request.tools, limit)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/select.py", 3, "TS107")]


def test_a_control_built_by_another_modules_function_is_a_control_where_a_hook_adds_it(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/controls.py": """
                PAGER = "read_tool_result"

                def pager_tool():
                    return {"name": PAGER, "input_schema": {"type": "object"}}

                def is_pager(tool):
                    return tool["name"] == PAGER
                """,
            "pkg/hooks.py": """
                from pkg import controls
                from pkg.controls import is_pager

                def widen_hook(request):
                    if not any(is_pager(tool) for tool in request.tools):
                        request.tools.append(controls.pager_tool())

                def tidy_hook(request):
                    request.tools = [tool for tool in request.tools if not is_pager(tool)]
                    request.tools.extend(tool for tool in request.extra_tools if not is_pager(tool))
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/hooks.py", 7, "TS108")]


def test_module_names_follow_packages(tmp_path):
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": ""})
    assert module_name(str(tmp_path / "src/pkg/sub/mod.py")) == "pkg.sub.mod"
    assert module_name(str(tmp_path / "src/pkg/sub/__init__.py")) == "pkg.sub"
    assert module_name(str(tmp_path / "src/top.py")) == "top"


_NAMES = st.from_regex(r"[a-z]{1,6}", fullmatch=True).filter(lambda name: not keyword.iskeyword(name))


@settings(max_examples=40, deadline=None)
@given(chain=st.lists(_NAMES, min_size=1, max_size=6, unique=True))
def test_a_chain_of_re_exports_resolves_to_the_definition(chain):
    # pkg.m0 defines `target`; each next module re-exports it from the one before, under its own name.
    summaries = [summarise("def target(tools, baseline):\n    pass\n", "m0.py", "pkg.m0", CONFIG)]
    for at, alias in enumerate(chain, start=1):
        previous = chain[at - 2] if at > 1 else "target"
        source = f"from pkg.m{at - 1} import {previous} as {alias}\n"
        summaries.append(summarise(source, f"m{at}.py", f"pkg.m{at}", CONFIG))
    found = Program(summaries).resolve(f"pkg.m{len(chain)}.{chain[-1]}")
    assert found is not None
    assert (found.kind, found.module, found.name) == ("function", "pkg.m0", "target")


def test_an_import_cycle_resolves_to_nothing_and_ends():
    a = summarise("from pkg.b import x\n", "a.py", "pkg.a", CONFIG)
    b = summarise("from pkg.a import x\n", "b.py", "pkg.b", CONFIG)
    program = Program([a, b])
    assert program.resolve("pkg.a.x") is None
    assert derive(program, CONFIG) == {}


READS = {
    "pkg/__init__.py": "",
    "pkg/diagnostics.py": """
        def deadline_reported(message):
            match message:
                case {"role": "tool", "diagnostics": {"deadline": "exceeded"}}:
                    return True
                case _:
                    return False

        def owner_says(fact):
            return fact.kind == "run_deadline_exhausted"
        """,
    "pkg/availability.py": """
        from pkg.diagnostics import deadline_reported, owner_says

        def narrow(tools, hidden):
            return [tool for tool in tools if tool.name not in hidden]

        def allowed(tools, request, facts):
            if any(deadline_reported(message) for message in request.messages):
                return narrow(tools, {"web_search"})
            if any(owner_says(fact) for fact in facts):
                return narrow(tools, {"web_read"})
            return tools
        """,
}


def test_a_diagnostic_read_in_another_modules_helper_decides_the_hiding_where_it_is_called(tmp_path):
    # The helper reads a diagnostic of the message it is handed (a `match` pattern); the other
    # compares an owner's fact with the same word, which is no diagnostic read.
    write(tmp_path, READS)
    assert findings(tmp_path) == [("pkg/availability.py", 8, "TS106")]


def test_a_field_handed_to_a_parameter_of_its_own_name_that_holds_a_tool_list_is_a_tool_list(tmp_path):
    # `offered` is a tool list because `build` hands it to `tools=`; `config.offered` handed to it
    # is one too, and slicing it cuts the tools. `keep(baseline=run.baseline)` hands a field on
    # under its own name to a parameter nothing is known of: a slot's name alone says nothing there.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/build.py": """
                def build(offered, model):
                    post(Request(model=model, tools=offered))
                """,
            "pkg/start.py": """
                from pkg.build import build

                def start(config):
                    first = build(config.offered, config.model)
                    return first, config.offered[: config.limit]
                """,
            "pkg/pins.py": """
                def pin(run, keep):
                    keep(baseline=run.baseline)
                    return run.baseline[:2]
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/start.py", 6, "TS107")]


def test_a_tool_list_field_declared_on_a_base_in_another_module_is_shared_by_a_subclass_copy(tmp_path):
    # `Crew` declares the tool list; `Squad.split` copies `self` and keeps it. `Team.regroup`
    # rebuilds through `Crew.__init__`, which keeps a list of its own: the scan cannot read it
    # from `team.py`, and reports nothing there.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/crew.py": """
                class Crew:
                    def __init__(self, tools, lead=""):
                        self.tools = list(tools)
                        self.lead = lead
                """,
            "pkg/squad.py": """
                import copy

                from pkg.crew import Crew

                class Squad(Crew):
                    def split(self, lead):
                        other = copy.copy(self)
                        other.lead = lead
                        return other
                """,
            "pkg/team.py": """
                from pkg import crew

                class Team(crew.Crew):
                    def regroup(self, lead):
                        return Team(self.tools, lead=lead)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/squad.py", 8, "TS112")]


TABLES = {
    "pkg/__init__.py": "",
    "pkg/runtime.py": """
        gateway = Gateway()
        send_to_provider = gateway.dispatch
        STAGES = {"seal": seal, "send": send_to_provider, "log": print}
        """,
    "pkg/replay.py": """
        from pkg.runtime import STAGES, send_to_provider

        def replay(request):
            STAGES["log"](request)
            return STAGES["send"](request)

        def relay(request):
            return send_to_provider(request)
        """,
    "pkg/local.py": """
        STEPS = {"send": client.gateway.dispatch}

        def run(request):
            return STEPS["send"](request)
        """,
}


def test_a_dispatch_bound_in_another_module_or_kept_in_a_table_of_callables_is_a_dispatch(tmp_path):
    # The alias imported under its own name, an entry of another module's table, an entry of the
    # module's own table; the table's other entries send nothing.
    write(tmp_path, TABLES)
    assert sorted(findings(tmp_path)) == [
        ("pkg/local.py", 5, "TS101"),
        ("pkg/replay.py", 6, "TS101"),
        ("pkg/replay.py", 9, "TS101"),
    ]


def test_a_reducer_of_another_module_that_edits_its_accumulator_edits_the_initial_value(tmp_path):
    # `merge` writes into the accumulator `reduce` hands it first: the caller's schema (and is
    # reported in its own module). `count` only reads it.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/folds.py": """
                def merge(merged_schema, item):
                    merged_schema.setdefault("properties", {})[item[0]] = item[1]
                    return merged_schema

                def count(total, item):
                    return total + len(item)
                """,
            "pkg/apply.py": """
                import functools

                from pkg.folds import count, merge

                def widen(input_schema, extra):
                    functools.reduce(merge, extra.items(), input_schema)
                    return functools.reduce(count, extra.items(), input_schema)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/apply.py", 7, "TS111"), ("pkg/folds.py", 3, "TS111")]


SETTLING = {
    "pkg/__init__.py": "",
    "pkg/scopes.py": """
        from contextlib import contextmanager

        @contextmanager
        def held(ledger, reservation):
            try:
                yield reservation
            finally:
                ledger.settle(reservation, "rejected")

        @contextmanager
        def opened(ledger, reservation):
            yield reservation
            ledger.settle(reservation, "done")

        def settle_unless_child(ledger, reservation):
            if reservation.lane.startswith("child"):
                return
            ledger.settle(reservation, "rejected")
        """,
    "pkg/run.py": """
        from pkg.scopes import held, opened, settle_unless_child

        def run(ledger, request):
            reservation = ledger.reserve(request.lane)
            with held(ledger, reservation):
                if not request.tools:
                    raise RequestRefused("no tools")
            with opened(ledger, reservation):
                if not request.tools:
                    raise RequestRefused("no tools")
            try:
                verify(request)
            except RequestRefused:
                settle_unless_child(ledger, reservation)
                raise
        """,
}


def test_another_modules_context_manager_settles_its_block_and_a_re_raise_is_a_refusal(tmp_path):
    # `held` settles however its block is left, `opened` only when it completes; the bare `raise`
    # re-raises the refusal its handler caught, after a helper that settles only sometimes.
    write(tmp_path, SETTLING)
    assert findings(tmp_path) == [("pkg/run.py", 11, "TS105"), ("pkg/run.py", 16, "TS105")]


HOOK_PROPERTY = {
    "pkg/__init__.py": "",
    "pkg/registry.py": """
        class Registry:
            @property
            def active(self):
                \"\"\"Whether any middleware is registered.\"\"\"
                return bool(self._chains["before_send"])

            @property
            def size(self):
                return len(self._items)
        """,
    "pkg/runner.py": """
        from pkg.registry import Registry

        class Runner:
            def __init__(self, registry: Registry):
                self.registry = registry

            def send(self, request, baseline):
                if self.registry.active:
                    check(request.tools, baseline)
                if self.registry.size:
                    check(request.tools, baseline)
                return self.gateway.dispatch(request)
        """,
}


def test_another_modules_property_that_says_whether_hooks_are_registered_is_a_hook_condition(tmp_path):
    # `active` tests the `before_send` chain; `size` tests something else, so the second check is
    # a plain conditional one (and the dispatch, checked only sometimes, is TS101's).
    write(tmp_path, HOOK_PROPERTY)
    config = dataclasses.replace(CONFIG, hook_words=(*CONFIG.hook_words, "before_send"))
    assert findings(tmp_path, config) == [("pkg/runner.py", 10, "TS102"), ("pkg/runner.py", 13, "TS101")]


COPIERS = {
    "pkg/__init__.py": "",
    "pkg/copying.py": """
        import copy

        def clone_tools(tools):
            return [dict(tool) for tool in tools]

        def snapshot(tools):
            return copy.deepcopy(tools)
        """,
    "pkg/child.py": """
        from pkg import copying
        from pkg.copying import clone_tools

        def start(request):
            baseline = clone_tools(request.tools)
            return baseline

        def resume(request):
            baseline = copying.snapshot(request.tools)
            return baseline
        """,
}


def test_a_shallow_copy_made_by_another_modules_function_is_a_shared_baseline(tmp_path):
    write(tmp_path, COPIERS)
    assert findings(tmp_path) == [("pkg/child.py", 6, "TS104")]


CROSSING = {
    **TABLES,
    "pkg/guards.py": GUARDS,
    "pkg/send.py": """
        from pkg import guards

        def send(gateway, request, baseline, hooks):
            if hooks:
                guards.ensure_parity(request.tools, baseline)
            return gateway.dispatch(request)
        """,
}


def flows(root: Path, cache_dir: Path | None = None) -> dict[tuple[str, int, str], tuple[Step, ...]]:
    """Each finding's flow, by its file, line and rule; a step in another file names it relative to `root`."""

    def relative(path: str) -> str:
        return Path(path).relative_to(root).as_posix()

    return {
        (relative(result.path), finding.line, finding.rule): tuple(
            dataclasses.replace(step, path=relative(step.path)) if step.path else step for step in finding.flow
        )
        for result in scan_paths([root / "pkg"], CONFIG, jobs=1, cache_dir=cache_dir)
        if isinstance(result, FileScanned)
        for finding in result.findings
    }


def test_a_findings_flow_shows_the_step_in_the_module_that_decides_it(tmp_path):
    # The name bound to the dispatch in `runtime`, the entry of its table, the helper that checks
    # in `guards`: each is a step in its own file, just before the place that calls it.
    write(tmp_path, CROSSING)
    found = flows(tmp_path)
    bound = "`send_to_provider` is bound to the dispatch `gateway.dispatch`"
    assert found[("pkg/replay.py", 9, "TS101")] == (
        Step(8, 11, "parameter `request`"),
        Step(3, 1, bound, "pkg/runtime.py"),
        Step(9, 12, "unchecked dispatch `send_to_provider(...)`"),
    )
    assert found[("pkg/replay.py", 6, "TS101")][1] == Step(
        4, 25, '`STAGES["send"]` is bound to the dispatch `send_to_provider`', "pkg/runtime.py"
    )
    assert found[("pkg/send.py", 6, "TS102")] == (
        Step(5, 8, "condition `hooks`"),
        Step(2, 1, "`ensure_parity` checks on every path", "pkg/guards.py"),
        Step(6, 9, "check `guards.ensure_parity(...)` runs only then"),
    )
    # The module's own table is decided in its own file: no step elsewhere.
    assert all(not step.path for step in found[("pkg/local.py", 5, "TS101")])


def test_a_step_in_another_file_follows_that_file_through_the_caches(tmp_path):
    # `replay.py` is unchanged when `runtime.py` moves its binding down a line: its cached result
    # must not show the old line.
    write(tmp_path, CROSSING)
    cache = tmp_path / "cache"
    cold = flows(tmp_path, cache)
    assert flows(tmp_path, cache) == cold
    runtime = tmp_path / "pkg" / "runtime.py"
    runtime.write_text("import os\n" + runtime.read_text())
    warm = flows(tmp_path, cache)
    assert warm[("pkg/replay.py", 9, "TS101")][1].line == cold[("pkg/replay.py", 9, "TS101")][1].line + 1 == 4
    assert flows(tmp_path) == warm


def test_a_step_elsewhere_follows_the_place_that_names_it_once_per_flow():
    # The local alias names the dispatch bound in another module: the step there follows the
    # alias's own, and the call of the alias names nothing more.
    origin = ("send_to_provider", "pkg/runtime.py", 3, 1, "`send_to_provider` is bound to the dispatch")
    config = ScanConfig(dispatch=("gateway.dispatch", "send_to_provider"), origins=(origin,))
    source = textwrap.dedent(
        """
        def relay(request):
            send = send_to_provider
            send(request)
            return send_to_provider(request)
        """
    )
    result = scan_source(source, "pkg/relay.py", config)
    assert isinstance(result, FileScanned)
    assert [[(step.path, step.line) for step in finding.flow] for finding in result.findings] == [
        [("", 2), ("", 3), ("pkg/runtime.py", 3), ("", 4)],
        [("", 2), ("pkg/runtime.py", 3), ("", 5)],
    ]


SIBLINGS = {
    "pkg/__init__.py": "",
    "pkg/errors.py": """
        class RequestRefused(Exception):
            pass

        class BudgetRefused(RequestRefused):
            pass

        class SurfaceRefused(RequestRefused):
            pass
        """,
    "pkg/run.py": """
        from pkg.errors import BudgetRefused, RequestRefused, SurfaceRefused

        def run(ledger, request):
            reservation = ledger.reserve(request.lane)
            try:
                if request.over_budget:
                    raise BudgetRefused("budget")
                if request.drifted:
                    raise SurfaceRefused("drift")
            except BudgetRefused:
                ledger.settle(reservation, "rejected")
                raise
            try:
                if request.drifted:
                    raise SurfaceRefused("drift")
            except RequestRefused:
                ledger.settle(reservation, "rejected")
                raise
        """,
}


def test_a_handler_of_one_refusal_does_not_settle_a_sibling_refusal(tmp_path):
    # SurfaceRefused is no BudgetRefused; the base class's handler catches both.
    write(tmp_path, SIBLINGS)
    assert findings(tmp_path) == [("pkg/run.py", 10, "TS105")]


TYPED = {
    "pkg/__init__.py": "",
    "pkg/gates.py": """
        class FinalGate:
            def enforce(self, tools, baseline):
                ensure_parity(tools, baseline)

            def record(self, request):
                self.sent += 1
        """,
    "pkg/resend.py": """
        from pkg.gates import FinalGate

        def resend(gateway, gate: FinalGate, request, baseline):
            gate.enforce(request.tools, baseline)
            return gateway.dispatch(request)

        def relay(gateway, gate: FinalGate, request):
            gate.record(request)
            return gateway.dispatch(request)
        """,
}


def test_a_method_of_a_parameters_annotated_class_in_another_module_checks(tmp_path):
    write(tmp_path, TYPED)
    config = dataclasses.replace(CONFIG, check=("ensure_parity",))
    assert findings(tmp_path, config) == [("pkg/resend.py", 10, "TS101")]


SANITIZE = {
    "pkg/__init__.py": "",
    "pkg/schemas.py": """
        import copy

        def sanitize(schema):
            return {**schema, "type": "object"}

        def frozen(schema):
            return copy.deepcopy(schema)
        """,
    "pkg/adapter.py": """
        from pkg import schemas

        class Adapter:
            def remember(self, name, schema):
                self._rendered[name] = schemas.sanitize(schema)

            def remember_safely(self, name, schema):
                self._rendered[name] = schemas.frozen(schema)
        """,
}


def test_what_another_modules_function_hands_back_of_a_schema_is_still_the_callers(tmp_path):
    # `{**schema}` is a shallow copy: the cache keeps the caller's `properties`; a deep copy keeps none.
    write(tmp_path, SANITIZE)
    assert findings(tmp_path) == [("pkg/adapter.py", 6, "TS110")]


GETTERS = {
    "pkg/__init__.py": "",
    "pkg/catalog.py": """
        class Catalog:
            def enabled(self) -> list[ToolSpec]:
                return [entry for entry in self._entries if entry.on]

            def names(self) -> list[ToolName]:
                return [entry.name for entry in self._entries]
        """,
    "pkg/graph.py": """
        import itertools
        from pkg.catalog import Catalog

        class Graph:
            def __init__(self, catalog: Catalog):
                self.catalog = catalog

            def shortlist(self, cap):
                return list(itertools.islice(self.catalog.enabled(), cap))

            def labels(self, cap):
                return self.catalog.names()[:cap]
        """,
}


def test_a_method_annotated_to_return_tools_gives_a_tool_list_where_it_is_called(tmp_path):
    write(tmp_path, GETTERS)
    assert findings(tmp_path) == [("pkg/graph.py", 10, "TS107")]


def test_a_parameter_fed_a_local_taken_from_a_tool_list_is_a_tool_list(tmp_path):
    # `visible` names no tool list, but it was taken from one; `labels` was taken from something else.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/fit.py": """
                def fit_within(items, budget):
                    chosen = []
                    for item in items:
                        if len(chosen) >= budget:
                            break
                        chosen.append(item)
                    return chosen
                """,
            "pkg/nodes.py": """
                from pkg.fit import fit_within

                def select(run, budget):
                    visible = list(run.tools)
                    return fit_within(visible, budget)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/fit.py", 5, "TS113")]


def test_a_rebuild_through_another_modules_init_shares_the_list_only_when_that_init_keeps_it(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """
                class KeepsBase:
                    def __init__(self, tools, model):
                        self.tools = tools
                        self.model = model

                class CopiesBase:
                    def __init__(self, tools, model):
                        self.tools = list(tools)
                        self.model = model
                """,
            "pkg/bindings.py": """
                from pkg.base import CopiesBase, KeepsBase

                class Keeps(KeepsBase):
                    def for_model(self, model):
                        return Keeps(self.tools, model)

                class Copies(CopiesBase):
                    def for_model(self, model):
                        return Copies(self.tools, model)
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/bindings.py", 6, "TS112")]


def test_a_module_that_calls_another_modules_checking_function_compares_surfaces(tmp_path):
    # `recheck` calls the check only when hooks ran, but calling it is comparing: the baseline
    # taken from the request's own state is the request compared with itself.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/guards.py": """
                def recheck(request, baseline, hooks):
                    if hooks:
                        ensure_parity(request.tools, baseline)
                """,
            "pkg/stream.py": """
                from pkg.guards import recheck

                def send(self, request):
                    baseline = request.state["pinned_surface"]
                    recheck(request, baseline, self.hooks)
                    return self.gateway.dispatch(request)
                """,
        },
    )
    config = dataclasses.replace(CONFIG, check=("ensure_parity",))
    assert ("pkg/stream.py", 5, "TS103") in findings(tmp_path, config)


def test_a_module_that_calls_a_settlement_step_of_another_module_holds_reservations(tmp_path):
    # `refund` settles only when something was reserved: the refusal after it may leave the
    # reservation open, though the module names no reservation, ledger or settlement itself.
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/base.py": """
                class Stage:
                    def refund(self, ctx):
                        if ctx.amount > 0:
                            self.ledger.settle(ctx.hold, "rejected")
                """,
            "pkg/admission.py": """
                from pkg.base import Stage

                class Admission(Stage):
                    def apply(self, ctx):
                        if not ctx.tools:
                            self.refund(ctx)
                            raise RequestRefused("no tools")
                """,
        },
    )
    assert findings(tmp_path) == [("pkg/admission.py", 8, "TS105")]
