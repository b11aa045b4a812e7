"""The scan reads the program, not one module: a fact a rule needs may live in another module,
reached through imports, re-exports, aliases, instances and base classes."""

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.scan import FileScanned, ScanConfig, scan_paths
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


def test_module_names_follow_packages(tmp_path):
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/sub/__init__.py": "", "src/pkg/sub/mod.py": ""})
    assert module_name(str(tmp_path / "src/pkg/sub/mod.py")) == "pkg.sub.mod"
    assert module_name(str(tmp_path / "src/pkg/sub/__init__.py")) == "pkg.sub"
    assert module_name(str(tmp_path / "src/top.py")) == "top"


_NAMES = st.from_regex(r"[a-z]{1,6}", fullmatch=True)


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
