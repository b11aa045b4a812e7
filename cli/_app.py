"""The `toolsurface` command: flags in, an options object to the API, rendered results out.

Exit status is the CI gate: 0 when nothing survived, was falsely rejected or errored; 1 when
something did; 2 for bad input, reported as one line per problem and nothing written; 3 for an
internal error; 128 + n when stopped by signal n. Every command ends through one place, the
command group's `invoke` (see `_exits`).

What a command needs it imports when it runs: `toolsurface --help` and a command's `--help` load
typer, rich and the run options' declaration, not the engine, the reports or the scenarios; only
`scan` and `mutants` read source with libcst, and the commands that run and report on cases never
load it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import io
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from toolsurface.common._errors import UsageError
from toolsurface.common._printable import printable
from toolsurface.harness._options import OPTIONS, flag_for

from ._exits import BAD_INPUT, ending, exit_now, interrupting
from ._flags import Given, taking

if TYPE_CHECKING:
    from toolsurface.common._files import Publication
    from toolsurface.harness._results import Progress, ResultsFile
    from toolsurface.harness._signing import Trust
    from toolsurface.reports import ReportFormat

#: What each value is, as `--help` shows it and docs/commands.md writes it (rather than its Python type):
#: a run option's as declared, then the commands' own parameters'.
_METAVARS = {
    **{option.name: option.metavar for option in OPTIONS if option.metavar is not None},
    "sample": "N",
    "out_dir": "DIR",
    "time_limit": "SECONDS",
    "rules": "RULE",
    "ignored": "RULE",
    "output": "FILE",
    "source": "PATH",
    "operators": "OPERATORS",
    "function": "NAME",
    "equivalents": "FILE",
    "also": "SPEC",
    "scenario_id": "ID",
    "results": "RESULTS.json",
    "shards": "SHARD.json...",
    "case_id": "CASE_ID",
    "paths": "PATH...",
    "file": "FILE",
    "budget": "N",
}


class _Commands(TyperGroup):
    """The commands, each run through `invoke`: the one place that turns how a command ended
    into its exit status and one line on stderr."""

    def get_command(self, ctx: Any, name: str) -> Any:
        command = super().get_command(ctx, name)
        for param in command.params if command else ():
            if (
                isinstance(param, TyperOption | TyperArgument)
                and param.name in _METAVARS
                and not param.type_descriptor.is_choice
            ):
                param.metavar = _METAVARS[param.name]
                if isinstance(param, TyperArgument):
                    # An argument's help shows its type beside its name; the name says it all.
                    # (setattr: mypy refuses an assignment to a method.)
                    setattr(param, "display_type", lambda ctx: "")  # noqa: B010
        return command

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None:
            # Unset, the flag's value is None, which typer coerces through pydantic (about half the
            # start-up of `toolsurface run --help`); False it takes as it is.
            option.default = False
        return option

    def invoke(self, ctx: Any) -> Any:
        _showing_any_path(sys.stdout)
        try:
            return super().invoke(ctx)
        except typer.TyperException as error:
            if (line := _usage_line(error)) is None:
                raise
            err.print(printable(line), markup=False, soft_wrap=True)
            raise typer.Exit(BAD_INPUT) from None
        except (typer.Exit, typer.Abort, BrokenPipeError):
            raise  # typer's own endings: a command's exit status, an abort, a closed stdout
        except (Exception, KeyboardInterrupt) as error:
            status, lines = ending(error, flag_for)
            for line in lines:
                err.print(printable(line), markup=False, soft_wrap=True)
            raise typer.Exit(status) from None


class _Command(TyperCommand):
    """A command that gives the consoles the reports' theme as it runs, and not for its help: the
    theme's module loads every renderer."""

    def invoke(self, ctx: Any) -> Any:
        _themed()
        return super().invoke(ctx)


@functools.cache
def _themed() -> None:
    from toolsurface.reports import THEME

    for console in (out, err):
        console.push_theme(THEME)


def _showing_any_path(stream: Any) -> None:
    """Let `stream` print any path a command was given. A file name that is not UTF-8 reaches
    Python as lone surrogates (PEP 383), which a strict UTF-8 stdout refuses to write: they are
    written back as the bytes they stand for, as `ls` shows such a name. (stderr already escapes them.)"""
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="surrogateescape")


def _usage_line(error: typer.TyperException) -> str | None:
    """A flag or argument typer refuses (a word where a number goes, a flag without its value), as
    the one line any bad input gets, rather than typer's usage block; None for its other endings
    (the help shown for a command given no arguments)."""
    if error.exit_code != BAD_INPUT or type(error).__name__ == "NoArgsIsHelpError":
        return None
    context = getattr(error, "ctx", None)
    hint = f" (see '{context.command_path} --help')" if context is not None else ""
    return f"error: {error.format_message()}{hint}"


app = typer.Typer(
    cls=_Commands,
    name="toolsurface",
    help="Prove that the tools a model receives are exactly the tools that were admitted.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    # Help texts name TOML tables like [tool.toolsurface]: plain text, not rich markup.
    rich_markup_mode=None,
)
out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

#: Where results.json and the reports go when neither --out nor [tool.toolsurface] says.
DEFAULT_OUT = Path("toolsurface-report")
#: results.json, by the name `harness._results.RESULTS_FILE` gives it (a test holds the two equal).
RESULTS_FILE = "results.json"


class ReportName(enum.StrEnum):
    """The report formats `report --format` takes: `reports.ReportFormat`'s values (its module loads
    every renderer; a test holds the two equal)."""

    md = "md"
    html = "html"
    junit = "junit"
    json = "json"


RequireSignatureOpt = Annotated[
    bool,
    typer.Option(
        "--require-signature",
        help="Refuse a results.json without a signature verified with TOOLSURFACE_SIGNING_KEY "
        "(also: TOOLSURFACE_REQUIRE_SIGNATURE=1).",
    ),
]


@app.command(cls=_Command)
@taking(
    "target", "red_target", "scenarios", "select", "seed", "shard", "out", "timeout", "jobs", "grace", "formats",
    "config", "expectations", "defects", "today", "follow_symlinks", "examples",
)  # fmt: skip
def run(given: Given) -> None:
    """Run every case against the target (and the red target), write results.json and the reports, and gate."""
    from toolsurface.harness._api import prepare
    from toolsurface.harness._results import ResultsWriter
    from toolsurface.harness._signing import Trust
    from toolsurface.harness._types import CaseRecord
    from toolsurface.reports import parse_formats

    from ._progress import CaseProgress

    trust = Trust.from_environment(os.environ)
    trust.check_can_sign()
    options = given.options()
    outputs = parse_formats(options.formats)
    with options.naming_sources():
        folder = _out_folder(options.out or DEFAULT_OUT, given["follow_symlinks"])
    session = prepare(options)
    if options.jobs is not None and session.jobs < options.jobs:
        err.print(
            f"note: --jobs {options.jobs} is more than this run can use; it starts {session.jobs}",
            markup=False,
            soft_wrap=True,
        )
    if options.red_target is None and session.info.red_target is None:
        err.print(
            printable(
                f"no red target: {options.target} offers boundaries of its own, which no reference target offers, "
                "so its cases are not paired (--red-target pairs them)"
            ),
            markup=False,
            soft_wrap=True,
        )
    elif session.info.red_target == session.info.target:
        err.print(
            printable(
                f"warning: the red target is the target itself ({options.target}): a case fails on both or on neither, "
                "so none can be controlled; pair with the old path, or --red-target none"
            ),
            markup=False,
            soft_wrap=True,
        )
    results = folder / RESULTS_FILE
    with options.naming_sources(), _publication(results, outputs) as publication:
        writing = ResultsWriter(folder, session, publish=publication.stage, key=trust.key)
        with writing as writer, CaseProgress(err, len(session.cases)) as progress:
            for result in session.results():
                writer.write(result)
                if isinstance(result, CaseRecord):
                    progress.advance()
        _conclude(_reread(publication.temporary(results), trust), results, outputs, publication)


def _out_folder(given: Path, follow_symlinks: bool) -> Path:
    """The folder to write into; refused where a symbolic link leads to it, unless asked for. (A
    target cannot move it: whatever its factory or a case in this process does to the working
    directory is undone, see `kept_process` and `Runner.run`.)"""
    from toolsurface.common._files import refuse_symlinks

    if not follow_symlinks:
        refuse_symlinks(given, "out")
    return given


def _publication(results: Path, outputs: tuple[ReportFormat, ...]) -> Publication:
    """results.json and its reports, published together; results.json last, so that whoever sees
    it finds its reports already in place. The reports of the formats not written are removed:
    the folder holds one run's files, never an earlier run's report beside this one's results."""
    from toolsurface.common._files import Publication
    from toolsurface.reports import ReportFormat

    others = [results.parent / fmt.file_name for fmt in ReportFormat if fmt not in outputs]
    return Publication([*(results.parent / fmt.file_name for fmt in outputs), results], option="out", replaces=others)


def _reread(path: Path, trust: Trust) -> ResultsFile:
    """A results.json checked case by case, showing how far the check is on a long one; its
    signature held to `trust`, and a line said when it is signed but cannot be verified."""
    from toolsurface.harness._results import open_results
    from toolsurface.harness._signing import Signed, unverified_note

    with _progress("checking") as progress:
        opened = open_results(path, progress, trust)
    if opened.signed is Signed.UNVERIFIED:
        err.print(printable(unverified_note(path)), markup=False, soft_wrap=True)
    return opened


@contextlib.contextmanager
def _progress(doing: str) -> Iterator[Progress]:
    """Where a long pass over cases shows how far it is: a bar per pass, each closed with the block."""
    from ._progress import CaseProgress

    with contextlib.ExitStack() as shown:

        def progress(total: int) -> Callable[[], None]:
            return shown.enter_context(CaseProgress(err, total, doing=doing)).advance

        yield progress


def _conclude(
    record: ResultsFile, results: Path, outputs: tuple[ReportFormat, ...], publication: Publication
) -> NoReturn:
    """Write the reports of a finished results.json, publish them with it, print its summary, and exit with its gate."""
    from toolsurface.reports import Audit, RunSummary, write_reports

    audit = Audit(record)
    reports = write_reports(audit, results.parent, outputs, publication)
    publication.publish()
    for path in reports:
        err.print(printable(f"wrote {path}"), markup=False, soft_wrap=True)
    summary = RunSummary(audit, str(results))
    out.print(summary, soft_wrap=True)
    raise typer.Exit(0 if summary.ok else 1)


@app.command(cls=_Command)
def report(
    results: Annotated[Path, typer.Argument(help="A results.json written by `run` or `merge`.")],
    format: Annotated[ReportName, typer.Option("--format", help="md, html, junit or json.")] = ReportName.md,
    output: Annotated[Path | None, typer.Option("--output", help="Write the report here instead of stdout.")] = None,
    require_signature: RequireSignatureOpt = False,
) -> None:
    """Render a results.json as a Markdown audit, an HTML report, JUnit XML or a JSON summary."""
    from toolsurface.common._files import write_report
    from toolsurface.harness._signing import Trust
    from toolsurface.reports import Audit, ReportFormat

    audit = Audit(_reread(results, Trust.from_environment(os.environ, require_signature)))
    rendered = ReportFormat(format.value)
    if output is None:
        sys.stdout.buffer.write(rendered.render(audit))  # whole: a renderer's failure prints nothing
    else:
        write_report(output, rendered.chunks(audit), option="output")


@app.command(cls=_Command)
@taking("out_dir", "formats", "require_signature", "follow_symlinks")
def merge(
    shards: Annotated[list[Path], typer.Argument(help="The results.json of every shard of one run.")],
    out_dir: Annotated[
        Path, typer.Option("--out", help="Folder for the merged results.json and the reports.")
    ] = DEFAULT_OUT,
    require_signature: RequireSignatureOpt = False,
    *,
    given: Given,
) -> None:
    """Combine the results of `run --shard K/N` into one results.json, write the reports, and gate."""
    from toolsurface.harness._results import merge_results
    from toolsurface.harness._signing import Trust
    from toolsurface.reports import parse_formats

    outputs = parse_formats(given["formats"] or [])
    trust = Trust.from_environment(os.environ, require_signature)
    results = _out_folder(out_dir, given["follow_symlinks"]) / RESULTS_FILE
    merged = merge_results([_reread(path, trust) for path in shards], key=trust.key)
    with _publication(results, outputs) as publication:
        publication.write(results, merged)
        _conclude(merged.record(publication.temporary(results)), results, outputs, publication)


@app.command(cls=_Command)
def verify(
    results: Annotated[Path, typer.Argument(help="A results.json written by `run` or `merge`.")],
    sample: Annotated[
        int, typer.Option("--sample", help="How many of its non-equivalent cases to re-run, drawn at random.")
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Seed that draws the sample (the run's own seed is the file's) [default: drawn and printed]."
        ),
    ] = None,
    require_signature: RequireSignatureOpt = False,
) -> None:
    """Re-run a random sample of a results.json's cases on the targets it names and compare each verdict with the
    recorded one."""
    from toolsurface.common._version import version
    from toolsurface.harness._api import check_seed
    from toolsurface.harness._signing import Trust
    from toolsurface.harness._verify import draw_seed
    from toolsurface.harness._verify import verify as verify_sample
    from toolsurface.reports import VerificationView

    trust = Trust.from_environment(os.environ, require_signature)
    if sample < 1:
        raise UsageError(f"{sample} must be at least 1", option="sample")
    if seed is None:
        seed = draw_seed()
        err.print(f"sample drawn with --seed {seed}: give it again to re-run the same cases", markup=False)
    check_seed(seed)
    record = _reread(results, trust)
    if record.run.tool.version != version():
        err.print(
            printable(
                f"{results} was written by toolsurface {record.run.tool.version}, and this is {version()}: "
                "a verdict may differ for that alone"
            ),
            markup=False,
            soft_wrap=True,
        )
    with _progress("re-running") as progress:
        found = verify_sample(record, sample, seed, progress)
    out.print(VerificationView(found), soft_wrap=True)
    raise typer.Exit(0 if found.ok else 1)


@app.command(cls=_Command)
@taking("scenarios", "select", "seed", "config")
def defects(given: Given) -> None:
    """Run the cases against every defect variant and show which cases kill which defect."""
    from toolsurface.harness._api import defect_kills
    from toolsurface.reports import DefectMatrix

    options = given.options()
    matrix = DefectMatrix(defect_kills(options))
    out.print(matrix)
    raise typer.Exit(1 if matrix.alive else 0)


@app.command(cls=_Command)
@taking("target", "scenarios", "seed", "config", "examples")
def reproduce(
    case_id: Annotated[
        str, typer.Argument(help="A case id, as printed by `run` or `list cases` or as results.json holds it.")
    ],
    *,
    given: Given,
) -> None:
    """Re-run one case and show the surface diff, the gateway log and the ledger trace."""
    from toolsurface.harness._api import reproduce as reproduce_case
    from toolsurface.reports import ReproductionView

    options = given.options()
    reproduction = reproduce_case(options, case_id)
    out.print(ReproductionView(reproduction))
    raise typer.Exit(0 if reproduction.verdict.kind.ok else 1)


@app.command(cls=_Command)
@taking("target", "scenarios", "seed", "budget", "time_limit", "timeout", "examples", "errors", "config")
def explore(
    budget: Annotated[
        int, typer.Option("--budget", help="Changes to try while searching; shrinking a finding tries as many again.")
    ] = 200,
    time_limit: Annotated[
        float | None, typer.Option("--time-limit", help="Seconds the whole search may take (no limit by default).")
    ] = None,
    errors: Annotated[
        bool, typer.Option("--errors", help="Count a case that errors (crash, hang) as a finding too.")
    ] = False,
    *,
    given: Given,
) -> None:
    """Search for a change the target fails on that the bundled cases do not name; save it as an example."""
    from toolsurface.harness._api import exploration
    from toolsurface.harness._examples import DEFAULT_EXAMPLES, check_folder, save
    from toolsurface.harness._explore import Budget, Found
    from toolsurface.reports import ExplorationView

    from ._progress import CaseProgress

    options = given.options()
    folder = options.examples[0] if options.examples else DEFAULT_EXAMPLES
    with options.naming_sources():
        check_folder(folder)
    with CaseProgress(err, budget, doing="exploring") as progress:
        found = exploration(options, Budget(budget, time_limit), errors, progress.advance)
    saved = save(folder, found.example) if isinstance(found, Found) else None
    view = ExplorationView(found, options, saved)
    out.print(view, soft_wrap=True)
    raise typer.Exit(1 if saved is not None else 0)


class ScanFormat(enum.StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"


@app.command(cls=_Command)
def scan(
    paths: Annotated[list[Path], typer.Argument(help="Python files or folders to scan.")],
    format: Annotated[ScanFormat, typer.Option("--format", help="text, json or sarif.")] = ScanFormat.text,
    output: Annotated[Path | None, typer.Option("--output", help="Write the report here instead of stdout.")] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="pyproject.toml with [tool.toolsurface.scan].")
    ] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", help="Worker processes (default: every core).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Parse every file, ignoring cached results.")] = False,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", help="Seconds one file may take before it is reported and skipped (default 30)."),
    ] = None,
    rules: Annotated[
        list[str] | None,
        typer.Option("--select", help="Run only these rules, by id (TS104, or TS104,TS107; repeatable)."),
    ] = None,
    ignored: Annotated[
        list[str] | None, typer.Option("--ignore", help="Leave these rules out, by id (repeatable).")
    ] = None,
) -> None:
    """Find the risky patterns of guard code in Python source, without importing or running it."""
    import orjson

    from toolsurface.common._files import write_report
    from toolsurface.common._version import version
    from toolsurface.reports import THEME
    from toolsurface.reports._scan import ScanReport, scan_json, scan_sarif
    from toolsurface.scan import default_cache_dir, load_config, scan_paths
    from toolsurface.scan._config import TIME_LIMIT_MAX
    from toolsurface.scan._engine import selected

    if jobs is not None and jobs < 1:
        raise UsageError(f"{jobs} must be at least 1", option="jobs")
    if time_limit is not None and not 0 < time_limit <= TIME_LIMIT_MAX:
        raise UsageError(
            f"{time_limit} must be a positive number of seconds, at most {TIME_LIMIT_MAX} (a day)", option="time_limit"
        )
    settings = load_config(config)
    if time_limit is not None:
        settings = dataclasses.replace(settings, time_limit=time_limit)
    if rules:
        settings = dataclasses.replace(settings, select=_rule_ids(rules, "select"))
    if ignored:
        settings = dataclasses.replace(settings, ignore=_rule_ids(ignored, "ignore"))
    found = scan_paths(paths, settings, jobs=jobs, cache_dir=None if no_cache else default_cache_dir())
    # Without TS101 nothing looks for dispatches, so their absence says nothing.
    report = ScanReport.build(found, settings.dispatch if "TS101" in {rule.id for rule in selected(settings)} else ())
    if format is ScanFormat.text and output is None:
        out.print(report)  # the listing names each file error: stderr does not repeat them
        raise typer.Exit(report.exit_code)
    if format is ScanFormat.text and output is not None:
        text = io.StringIO()
        Console(file=text, theme=THEME, color_system=None, width=120, soft_wrap=True).print(report)
        write_report(output, text.getvalue().encode(), option="output")
    else:
        document = scan_json(report) if format is ScanFormat.json else scan_sarif(report, Path.cwd(), version())
        data = orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"
        if output is None:
            sys.stdout.buffer.write(data)
        else:
            write_report(output, data, option="output")
    for failure in report.failures:
        err.print(f"error: {printable(failure.problem)}", markup=False, soft_wrap=True)
    raise typer.Exit(report.exit_code)


def _rule_ids(given: list[str], option: str) -> tuple[str, ...]:
    """Rule ids from a repeatable, comma-separated flag, each one a rule's."""
    from toolsurface.scan._config import unknown_rules

    ids = tuple(rule_id.strip() for value in given for rule_id in value.split(",") if rule_id.strip())
    unknown_rules(ids, option=option)
    return ids


@app.command(cls=_Command)
@taking("source", "operators", "function", "equivalents", "also", "scenarios", "select", "seed", "output", "config")
def mutants(
    target: Annotated[
        str, typer.Argument(help="Target whose guard is mutated: reference:<name> or package.module:factory.")
    ],
    source: Annotated[
        Path | None,
        typer.Option(
            "--source", help="The module to mutate: the target's own (default), or one whose functions it calls."
        ),
    ] = None,
    operators: Annotated[
        list[str] | None,
        typer.Option(
            "--operators",
            help="Operators, comma-separated: `seams` (default), `classic`, or operator names (`NegateCondition`).",
        ),
    ] = None,
    function: Annotated[
        list[str] | None,
        typer.Option("--function", help="Mutate only this function (`rule`, `Capacity.exceeded`); repeatable."),
    ] = None,
    equivalents: Annotated[
        Path | None,
        typer.Option("--equivalents", help="TOML file of mutants no input can tell from the original, with reasons."),
    ] = None,
    also: Annotated[
        list[str] | None,
        typer.Option(
            "--also",
            help="Another target driving the same guard (reference:framework beside reference:guarded, or a host"
            " that imports the shipped guard) that judges each mutant the first lets through; repeatable.",
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", help="Write the mutation-testing report (JSON) here.")
    ] = None,
    *,
    given: Given,
) -> None:
    """Weaken each seam of the target's guard, or make each classic mutation of its rules, in a copy of
    its source, and run the cases against it."""
    import orjson

    from toolsurface.common._files import write_report
    from toolsurface.harness._equivalents import NONE_EQUIVALENT, load_equivalents
    from toolsurface.harness._mutants import operator_names, run_mutants
    from toolsurface.reports._mutants import MutantsView, stryker_report
    from toolsurface.scan import load_config

    options = given.options(target=target)
    run = run_mutants(
        options,
        source,
        load_config(given["config"]),
        operators=operator_names(operators or []),
        functions=frozenset(function or ()) or None,
        equivalents=NONE_EQUIVALENT if equivalents is None else load_equivalents(equivalents),
        also=also or (),
    )
    if output is not None:
        write_report(
            output, orjson.dumps(stryker_report(run, Path.cwd()), option=orjson.OPT_INDENT_2) + b"\n", option="output"
        )
    out.print(MutantsView(run))
    raise typer.Exit(0 if run.ok else 1)


@app.command(cls=_Command)
@taking("target", "scenarios", "out_dir", "time_limit", "config", "follow_symlinks")
def record(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the recorded scenarios, one file each.")] = Path(
        "recorded"
    ),
    time_limit: Annotated[float, typer.Option("--timeout", help="Seconds the run may take.")] = 10.0,
    *,
    given: Given,
) -> None:
    """Run the target once per scenario, unmutated, and write the scenario each live run shows."""
    from toolsurface.common._files import cannot_write, write_report
    from toolsurface.contract._json import dumps
    from toolsurface.harness._api import check_timeout, recordings
    from toolsurface.harness._recorder import record as record_run
    from toolsurface.harness._targets import load_with_traits

    check_timeout(time_limit)
    folder = _out_folder(out_dir, given["follow_symlinks"])
    options = given.options()
    with options.naming_sources():
        host = load_with_traits(options.target)
        documents = [
            (scenario.id, record_run(host, scenario, time_limit, options.target))
            for scenario in recordings(options.scenarios, host)
        ]
    try:
        folder.mkdir(parents=True, exist_ok=True)  # --out names a folder of its own, made as `run --out` is
    except OSError as error:
        raise cannot_write(folder, error, "out") from None
    for scenario_id, document in documents:  # every run first, so a failing one writes nothing
        path = folder / f"{scenario_id}.json"
        write_report(path, dumps(document, indent=True) + b"\n", option="out")
        err.print(printable(f"recorded {path}"), markup=False, soft_wrap=True)


#: What `--id` accepts: a scenario id (scenario.schema.json), or for otel the prefix of one.
_SCENARIO_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")

#: What `import` reads: the importers' names, `scenarios.IMPORT_KINDS` (its package loads the scenario
#: schema and its validator; a test holds the two equal). mypy cannot see its members.
ImportKind = enum.StrEnum(  # type: ignore[misc]
    "ImportKind", {kind: kind for kind in ("openai", "anthropic", "mcp", "otel")}
)


@app.command("import", cls=_Command)
def import_(
    kind: Annotated[
        ImportKind,
        typer.Argument(
            help="What the file is: an openai or anthropic request body, an mcp tools/list response, or an "
            "otel span export (OTLP JSON)."
        ),
    ],
    file: Annotated[Path, typer.Argument(help="The logged JSON.")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            help="Write the scenario here instead of stdout; for otel, a folder for one file per model-call span.",
        ),
    ] = None,
    scenario_id: Annotated[
        str | None,
        typer.Option(
            "--id",
            help="The scenario's id (default: from the file name); for otel, each id's prefix, before the span id.",
        ),
    ] = None,
) -> None:
    """Turn a logged request, an MCP tool list or an OTLP span export into scenario skeletons that load."""
    from toolsurface import scenarios
    from toolsurface.common._files import Publication, write_report
    from toolsurface.contract._json import dumps

    if scenario_id is not None and not _SCENARIO_ID.fullmatch(scenario_id):
        raise UsageError(f"{scenario_id!r} must be a scenario id: lower-case letters, digits and dashes", option="id")
    if kind.value == "otel" and output is not None and output.exists() and not output.is_dir():
        raise UsageError(
            f"{output}: is a file; otel writes one scenario per model-call span into a folder", option="output"
        )
    imported = scenarios.import_log_file(kind.value, file, scenario_id)
    documents = [dumps(scenario, indent=True) + b"\n" for scenario in imported.scenarios]
    if kind.value == "otel" and output is not None:
        paths = [output / f"{scenario['id']}.json" for scenario in imported.scenarios]
        with Publication(paths, option="output") as publication:  # all of them or none
            for path, data in zip(paths, documents, strict=True):
                publication.write(path, data)
            publication.publish()
    elif len(documents) > 1:
        raise UsageError(
            f"{file} holds {len(documents)} model-call spans with tools: name a folder for their "
            "scenarios with --output DIR"
        )
    elif output is None:
        sys.stdout.buffer.write(documents[0])
    else:
        write_report(output, documents[0], option="output")
    # What was kept out, skipped or stood in for, once the skeletons are written (a failed write is its one line):
    # the user reviews the skeleton with these.
    for note in imported.notes:
        err.print(printable(note), markup=False, soft_wrap=True)
    if kind.value == "otel" and output is not None:
        err.print(
            printable(f"wrote {len(documents)} scenario{'s' if len(documents) > 1 else ''} to {output}"),
            markup=False,
            soft_wrap=True,
        )


class Listing(enum.StrEnum):
    scenarios = "scenarios"
    targets = "targets"
    mutators = "mutators"
    cases = "cases"


@app.command("list", cls=_Command)
@taking("scenarios", "select", "seed", "target", "config")
def list_(what: Annotated[Listing, typer.Argument(help="What to list.")], *, given: Given) -> None:
    """List scenarios, targets, mutators or planned case ids (a target with boundaries of its own, such
    as your agent, plans its cases at them)."""
    from toolsurface import mutators, scenarios
    from toolsurface.harness._api import prepare
    from toolsurface.harness._targets import listed_targets

    options = given.options(red_target="none")
    if what is Listing.targets:
        for spec, about in listed_targets():
            out.print(f"{spec}\t{about}", markup=False)
    elif what is Listing.mutators:
        for mutator in mutators.MUTATORS:
            out.print(
                f"{mutator.key()}\tmust {mutator.must.value}\t{(type(mutator).__doc__ or '').strip().splitlines()[0]}",
                markup=False,
            )
    elif what is Listing.scenarios:
        for scenario in scenarios.load(options.scenarios or None):
            hooks = "hooks" if scenario.hooks else "no-hooks"
            tools = f"{len(scenario.surface)} of {len(scenario.contract.surface)} tools"
            fields = (scenario.id, scenario.mode, scenario.lane, hooks, tools, scenario.outcome, scenario.description)
            out.print("\t".join(printable(field) for field in fields), markup=False)
    else:
        for case in prepare(options).cases:
            out.print(printable(case.id), markup=False, soft_wrap=True)


def main() -> NoReturn:
    """The console script: run the command, then exit with its status (see `_exits`)."""
    with interrupting():
        try:
            app()
            status = 0
        except SystemExit as done:
            status = int(done.code or 0)
    exit_now(status)
