"""The audit as JSON (`--format json`): the totals, matrices and failing cases, without every case.

For dashboards and bots that want the gate and its numbers, not results.json's per-case evidence;
its schema is `reports/audit.schema.json`. Ids and reasons are data here, as results.json holds
them, but written with every character `printable` hides as a JSON escape: a program reads the
raw text back, and `cat` or an editor shows no bidi control or separator raw. Reproduce commands
are the printed ones every report shows.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import orjson

from toolsurface.common._printable import hidden
from toolsurface.harness._types import VerdictKind

from ._audit import DOES_NOT_PROVE, PROVES, Audit

AUDIT_SCHEMA_VERSION = 6

#: What orjson may write raw that `printable` would hide: DEL and everything past ASCII. Only a
#: string's content can hold such a character, and there a JSON escape reads back the same.
_MAYBE_HIDDEN = re.compile("[\x7f-\U0010ffff]")


def render_json(audit: Audit) -> bytes:
    text = orjson.dumps(audit_document(audit), option=orjson.OPT_INDENT_2).decode()
    return _MAYBE_HIDDEN.sub(_json_escaped, text).encode() + b"\n"


def _json_escaped(match: re.Match[str]) -> str:
    char = match[0]
    if not hidden(char):
        return char
    units = char.encode("utf-16-be")  # past U+FFFF, JSON writes a character as its surrogate pair
    return "".join(f"\\u{int.from_bytes(units[at : at + 2], 'big'):04x}" for at in range(0, len(units), 2))


def _counts(counter: Counter[VerdictKind]) -> dict[str, int]:
    return {kind.value: counter[kind] for kind in VerdictKind}


def audit_document(audit: Audit) -> dict[str, Any]:
    run = audit.run
    return {
        "schema_version": AUDIT_SCHEMA_VERSION,
        "spec": None if run.spec is None else {"id": run.spec.id, "title": run.spec.title},
        "tool": {"version": run.tool.version, "results_schema": audit.results.schema_version},
        "environment": {"python": run.environment.python, "platform": run.environment.platform},
        "seed": run.seed,
        "target": run.target,
        "red_target": run.red_target,
        "select": list(run.select),
        "shard": None if run.shard is None else str(run.shard),
        "date": run.date.isoformat(),
        "planned": run.planned,
        "ok": audit.ok,
        "headline": audit.headline,
        "in_scope": audit.in_scope,
        "passing": audit.passing,
        "totals": _counts(audit.totals),
        "matrix": [
            {"kind": kind, "point": point, "verdicts": _counts(counts)}
            for (kind, point), counts in audit.matrix().items()
        ],
        "lanes": [
            {"lane": lane, "hooks": hooks, "verdicts": _counts(counts)}
            for (lane, hooks), counts in audit.by_lane().items()
        ],
        "pairing": {
            "controlled": audit.controlled,
            "red_failing": audit.red_failing,
            "by_kind": [
                {"kind": kind, "cases": cases, "red_failing": red, "controlled": controlled}
                for kind, (cases, red, controlled) in audit.pairing().items()
            ],
        },
        "defects": None
        if audit.defects is None
        else [
            {"name": row.name, "kills": row.kills, "by_kind": dict(row.by_kind), "first": row.first}
            for row in audit.defects
        ],
        "diagnosis": {
            "likely": [
                {
                    "defect": like.defect,
                    "alike": list(like.alike),
                    "flaw": like.flaw,
                    "cases": like.count,
                    "shown": round(like.shown, 4),
                    "example": like.representative.id,
                    "reproduce": audit.reproduce(like.representative),
                }
                for like in audit.diagnosis.likely
            ],
            "unexplained": len(audit.diagnosis.unexplained),
        },
        "failing": [
            {
                "id": case.id,
                "verdict": case.verdict.kind,
                "reason": case.verdict.reason,
                "code": case.verdict.code,
                "reproduce": audit.reproduce(case),
                "framework_own": case.evidence.framework_own,
            }
            for case in audit.failing
        ],
        "framework": {"failing": audit.framework_own, "remedy": run.framework_remedy},
        "accepted": [case.id for case in audit.accepted],
        "expectations": [
            {
                "case": judged.expectation.case,
                "verdict": judged.expectation.verdict,
                "reason": judged.expectation.reason,
                "expires": judged.expectation.expires.isoformat(),
                "standing": judged.standing,
                "why": judged.why,
                "planned": judged.planned,
                "broad": judged.broad(run.planned),
            }
            for judged in audit.expectations
        ],
        "shortfalls": list(audit.shortfalls),
        "scope": {"proves": list(PROVES), "does_not_prove": list(DOES_NOT_PROVE)},
    }
