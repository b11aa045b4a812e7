"""Defects of a host that discovers its tools over MCP: how it lists, and what it does when the
server's list changes mid-request. Each is the shipped guard with exactly one step replaced, and each is a
bug real MCP clients have shipped (a list-changed handler that re-read only the first page, a
tool cache refreshed under a request in flight)."""

from __future__ import annotations

from typing import ClassVar

from toolsurface.contract._canonical import capture
from toolsurface.contract._formats import ToolDescriptor

from ._guarded import GuardedPipeline
from ._stages import Run


class FirstPageOnly(GuardedPipeline):
    """Admits from the first `tools/list` page and never follows `nextCursor`: later pages are lost."""

    name: ClassVar[str] = "reference:defect/first-page-only"

    def listed(self, run: Run) -> tuple[ToolDescriptor, ...]:
        return run.ports.mcp.list_tools().tools


class ListChangeIgnored(GuardedPipeline):
    """Never subscribes to `notifications/tools/list_changed`: sends a surface the server has since withdrawn."""

    name: ClassVar[str] = "reference:defect/list-change-ignored"

    def watch_server(self, run: Run) -> None:
        pass


class ListChangeAdopted(GuardedPipeline):
    """On `notifications/tools/list_changed`, re-admits and re-bases the request on the new list
    mid-request: the server's change goes out as if an owner had admitted it."""

    name: ClassVar[str] = "reference:defect/list-change-adopted"

    def server_check(self, checkpoint: str, run: Run) -> None:
        if run.server_changed:
            run.server_changed = False
            run.admitted = self.admit(run)
            rebased = capture(self.built(run), run.fmt)
            run.request.read_baseline = lambda: rebased
            run.tools = self.project(run)
