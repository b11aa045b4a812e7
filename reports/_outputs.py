"""The report formats a run or a results.json can be rendered to, and where each is written."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from toolsurface.common._errors import UsageError
from toolsurface.common._files import Publication

from ._audit import Audit
from ._audit_json import render_json
from ._html import render_html
from ._junit import junit_chunks
from ._markdown import render_markdown


class ReportFormat(enum.StrEnum):
    MD = "md"
    HTML = "html"
    JUNIT = "junit"
    JSON = "json"

    @property
    def file_name(self) -> str:
        """The file `run --format` and `merge --format` write it to, beside results.json."""
        return _FILE_NAMES[self]

    def render(self, audit: Audit) -> bytes:
        return b"".join(self.chunks(audit))

    def chunks(self, audit: Audit) -> Iterator[bytes]:
        """The report in pieces, to be written as they come: JUnit, whose size grows with the run,
        a suite at a time; the others, bounded or compact, whole."""
        if self is ReportFormat.JUNIT:
            return junit_chunks(audit)
        return iter([_RENDERERS[self](audit)])


_FILE_NAMES = {
    ReportFormat.MD: "audit.md",
    ReportFormat.HTML: "report.html",
    ReportFormat.JUNIT: "junit.xml",
    ReportFormat.JSON: "audit.json",
}
_RENDERERS: dict[ReportFormat, Callable[[Audit], bytes]] = {
    ReportFormat.MD: lambda audit: render_markdown(audit).encode(),
    ReportFormat.HTML: lambda audit: render_html(audit).encode(),
    ReportFormat.JSON: render_json,
}


def parse_formats(values: Iterable[str]) -> tuple[ReportFormat, ...]:
    """`md,html` (or repeated flags) as formats, in the order given, each once."""
    formats: list[ReportFormat] = []
    for value in values:
        for name in filter(None, (part.strip() for part in value.split(","))):
            try:
                fmt = ReportFormat(name)
            except ValueError:
                known = ", ".join(f.value for f in ReportFormat)
                raise UsageError(f"{name!r} is not a report format (known: {known})", option="formats") from None
            if fmt not in formats:
                formats.append(fmt)
    return tuple(formats)


def write_reports(audit: Audit, folder: Path, formats: Sequence[ReportFormat], publication: Publication) -> list[Path]:
    """Write every format into `publication`, which publishes them together with results.json, or
    none of them if any fails; the paths they will have.

    `folder` is the results' folder, given by `run --out` or `merge --out`."""
    paths = [folder / fmt.file_name for fmt in formats]
    for path, fmt in zip(paths, formats, strict=True):
        publication.write(path, fmt.chunks(audit))
    return paths
