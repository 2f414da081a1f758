"""A sweep's report.html: per variant and model (language-model variants and baselines in one
table), each headline figure's mean with its interval, grouped by the world's signature; each
group's paired difference from the sweep's reference; every run with a link to its own
report; and the sections the world's report adds (`WorldReport.sweep_sections`: the commute's
Table 5 and figures averaged over replicates, the embodied suite's table). One self-contained
file: figures are data URIs, every text from a run is
escaped."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.report.per_world import world_report

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"
_CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#1f2430;background:#f5f6f8;margin:0}
header{background:#1f2430;color:#fff;padding:12px 24px}main{max-width:1100px;margin:auto}
section{background:#fff;border:1px solid #dde;border-radius:6px;margin:16px;padding:12px 18px;
overflow-x:auto}table{border-collapse:collapse;margin:6px 0}td,th{padding:4px 10px;
text-align:left;border-bottom:1px solid #e5e7eb}th{background:#f0f1f4}
.badge{background:#fff3cd;padding:2px 6px;white-space:nowrap}img{max-width:100%}
.muted{color:#6b7280}.ci{white-space:nowrap}
"""


def write_sweep_report(out: Path, summary: Mapping[str, Any]) -> Path:
    """Write out/report.html from the sweep's summary (summary.json's content)."""
    sections = [_overview(summary), _results(summary), _comparison(summary)]
    own = world_report(str(summary["world"])).sweep_sections
    if own is not None:
        sections += own(out, summary)
    sections.append(_runs(summary))
    title = f"simulacra sweep: {summary['scenario']}"
    page = (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<header><h1>{escape(title)}</h1></header>\n<main>{''.join(sections)}</main>\n"
        "</body>\n</html>\n"
    )
    path = out / "report.html"
    path.write_text(page, encoding="utf-8")
    return path


def _overview(summary: Mapping[str, Any]) -> str:
    models = sorted({str(row["model"]) for row in summary["rows"]})
    shown = ", ".join(escape(m) for m in models)
    if "scripted" in models:
        shown += (
            ' <span class="badge">scripted: rule-following answers, not a language model</span>'
        )
    rows = [
        ("world", escape(str(summary["world"]))),
        ("models", shown or "(no run finished)"),
        ("population", f"{summary['agents']} agents x {summary['ticks']} ticks"),
        ("wall time", f"{summary['wall_s']} s"),
    ]
    cells = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return sweep_section("Sweep", f"<table>{cells}</table>")


def _columns(summary: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """The figures in the world's signature groups (older summaries: one group)."""
    found = summary.get("columns")
    if isinstance(found, list) and found:
        return [(str(group), [str(n) for n in names]) for group, names in found]
    return [("figures", list(summary["figures"]))]


def _head(first: Sequence[str], columns: Sequence[tuple[str, list[str]]]) -> str:
    groups = "".join(f"<th colspan={len(names)}>{escape(group)}</th>" for group, names in columns)
    names = "".join(f"<th>{escape(n)}</th>" for _, group in columns for n in group)
    lead = "".join(f"<th rowspan=2>{escape(c)}</th>" for c in first)
    return f"<tr>{lead}{groups}</tr><tr>{names}</tr>"


def _who(summary: Mapping[str, Any], variant: str, model: str) -> str:
    """The variant, its mind, and the model (or that a baseline calls none)."""
    mind = str(summary.get("minds", {}).get(variant, ""))
    if mind in summary.get("baselines", []):
        model_cell = '<span class="badge">classical baseline: no model</span>'
    else:
        model_cell = escape(model)
    return f"<td>{escape(variant)}</td><td>{escape(mind)}</td><td>{model_cell}</td>"


def _results(summary: Mapping[str, Any]) -> str:
    columns = _columns(summary)
    body = ""
    for row in summary["rows"]:
        cells = "".join(
            f"<td>{_interval(row['figures'].get(n))}</td>" for _, names in columns for n in names
        )
        who = _who(summary, str(row["variant"]), str(row["model"]))
        body += f"<tr>{who}<td>{row['replicates']}</td>{cells}</tr>"
    head = _head(("variant", "mind", "model", "replicates"), columns)
    note = (
        f"<p>Mean [{summary['confidence']:.0%} confidence interval over replicates, Student's "
        "t]; n/a with one replicate. Language-model variants and baselines side by side, the "
        "figures grouped by the world's signature.</p>"
    )
    return sweep_section("Results", f"{note}<table>{head}{body}</table>")


def _comparison(summary: Mapping[str, Any]) -> str:
    rows = summary.get("comparison") or []
    reference = summary.get("reference")
    if not reference:
        return ""
    columns = _columns(summary)
    body = ""
    for row in rows:
        cells = "".join(
            f"<td>{_interval(row['figures'].get(n), signed=True)}</td>"
            for _, names in columns
            for n in names
        )
        who = _who(summary, str(row["variant"]), str(row["model"]))
        against = row["against"]
        than = f"{against['variant']} ({against['model']})"
        body += f"<tr>{who}<td>{escape(than)}</td><td>{row['pairs']}</td>{cells}</tr>"
    head = _head(("variant", "mind", "model", "against", "pairs"), columns)
    note = (
        f"<p>Each group minus the reference, {escape(str(reference))}, replicate by replicate "
        "(the same seed): the mean difference [its "
        f"{summary['confidence']:.0%} interval, Student's t]. An interval that excludes 0 is a "
        "difference the replicates agree on.</p>"
    )
    if not rows:
        note += '<p class="muted">No group finished beside the reference.</p>'
    title = f"Paired differences from {reference}"
    return sweep_section(title, f"{note}<table>{head}{body}</table>")


def _runs(summary: Mapping[str, Any]) -> str:
    names = list(summary["figures"])
    head = "<tr><th>variant</th><th>model</th><th>replicate</th><th>seed</th>"
    head += "".join(f"<th>{escape(n)}</th>" for n in names) + "<th>wall s</th><th>run</th></tr>"
    body = ""
    for run in summary["runs"]:
        link = "failed"
        if run.get("run"):
            name = escape(str(run["run"]))
            link = f'<a href="{name}/report.html">{name}</a>'
        cells = "".join(f"<td>{figure_text(run['summary'].get(n))}</td>" for n in names)
        body += (
            f"<tr><td>{escape(str(run['variant']))}</td><td>{escape(str(run['model']))}</td>"
            f"<td>{run['replicate']}</td><td>{run['seed']}</td>{cells}"
            f"<td>{figure_text(run['wall_s'])}</td><td>{link}</td></tr>"
        )
    return sweep_section("Runs", f"<table>{head}{body}</table>")


def svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def _interval(value: Mapping[str, Any] | None, *, signed: bool = False) -> str:
    if value is None:
        return "—"
    mean, low, high = value["mean"], value["low"], value["high"]
    form = "+.2f" if signed else ".2f"
    if low is None or high is None:
        return f"<span class='ci'>{mean:{form}} <span class='muted'>(n/a)</span></span>"
    bounds = f"[{low:{form}}, {high:{form}}]"
    return f"<span class='ci'>{mean:{form}} <span class='muted'>{bounds}</span></span>"


def figure_text(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def sweep_section(title: str, body: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{body}</section>\n"
