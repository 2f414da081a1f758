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
from simulacra.report.plots import intervals_svg

# A results page's policy and style, which the calibration page shares.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"
CSS = """
body{font:14px/1.45 system-ui,sans-serif;color:#1f2430;background:#f5f6f8;margin:0}
header{background:#1f2430;color:#fff;padding:12px 24px}main{max-width:1300px;margin:auto}
section{background:#fff;border:1px solid #dde;border-radius:6px;margin:16px;padding:12px 18px;
overflow-x:auto}table{border-collapse:collapse;margin:6px 0}td,th{padding:4px 8px;
text-align:left;border-bottom:1px solid #e5e7eb;vertical-align:top}th{background:#f0f1f4}
.muted{color:#6b7280}img{max-width:100%}
figure.plot{margin:10px 0 0}figure.plot img{width:100%;height:auto}
figcaption{color:#6b7280;font-size:.85rem}
"""
_CSS = (
    CSS
    + """.badge{background:#fff3cd;padding:2px 6px}.ci span{white-space:nowrap}
.scroll{overflow-x:auto}td a{overflow-wrap:anywhere}
"""
)
# A figure's name may break after each underscore, so a table of many fits its card.
_BREAK = "_<wbr>"
_OLDER = "Student's t; for shares, Wilson's"  # a summary.json written before it said


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
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
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
    names = "".join(f"<th>{_name(n)}</th>" for _, group in columns for n in group)
    lead = "".join(f"<th rowspan=2>{escape(c)}</th>" for c in first)
    return f"<tr>{lead}{groups}</tr><tr>{names}</tr>"


def _who(summary: Mapping[str, Any], variant: str, model: str) -> str:
    """The variant, its mind, and the model (or that a baseline calls none)."""
    mind = str(summary.get("minds", {}).get(variant, ""))
    if mind in summary.get("baselines", []):
        model_cell = '<span class="badge">classical baseline: no model</span>'
    else:
        model_cell = escape(model)
    return f"<td>{_variant(variant)}</td><td>{escape(mind)}</td><td>{model_cell}</td>"


def _marks(summary: Mapping[str, Any]) -> dict[str, str]:
    """Each interval method's mark (summary.json's `marks`; one written before it named only
    the share's, `marked_method`)."""
    older = summary.get("marked_method")
    return dict(summary.get("marks") or ({str(older): "*"} if older else {}))


def _results(summary: Mapping[str, Any]) -> str:
    columns = _columns(summary)
    marked = _marks(summary)
    body = ""
    for row in summary["rows"]:
        cells = "".join(
            f"<td>{_interval(row['figures'].get(n), marked)}</td>"
            for _, names in columns
            for n in names
        )
        who = _who(summary, str(row["variant"]), str(row["model"]))
        body += f"<tr>{who}<td>{row['replicates']}</td>{cells}</tr>"
    head = _head(("variant", "mind", "model", "replicates"), columns)
    note = (
        f"<p>Mean [{summary['confidence']:.0%} confidence interval: "
        f"{escape(str(summary.get('interval_method', _OLDER)))}] n/a with one replicate. "
        "Language-model variants and baselines side by side, the figures grouped by the "
        "world's signature.</p>"
    )
    names = [n for _, group in columns for n in group]
    several = len({r["model"] for r in summary["rows"]}) > 1
    rows = [
        (
            str(r["variant"]).replace(",", "\n") + (f"\n({r['model']})" if several else ""),
            r["figures"],
        )
        for r in summary["rows"]
    ]
    plot = figure(
        svg_uri(intervals_svg(names, rows, marked)),
        "each figure's mean by variant, with its interval",
        "Each figure by variant: the mean (dot) and its interval (bar); a hollow dot marks an "
        "interval the replicates' agreement made (* or \u2020 in the table, as the method "
        "above says).",
    )
    return sweep_section("Results", f"{note}{_table(head + body)}{plot if rows else ''}")


def _comparison(summary: Mapping[str, Any]) -> str:
    rows = summary.get("comparison") or []
    reference = summary.get("reference")
    if not reference:
        return ""
    columns = _columns(summary)
    body = ""
    for row in rows:
        cells = "".join(
            f"<td>{_interval(row['figures'].get(n), _marks(summary), signed=True)}</td>"
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
        "difference the replicates agree on. "
        f"{escape(str(summary.get('paired_note', '')))}</p>"
    )
    if not rows:
        note += '<p class="muted">No group finished beside the reference.</p>'
    title = f"Paired differences from {reference}"
    return sweep_section(title, f"{note}{_table(head + body)}")


def _runs(summary: Mapping[str, Any]) -> str:
    names = list(summary["figures"])
    head = "<tr><th>variant</th><th>model</th><th>replicate</th><th>seed</th>"
    head += "".join(f"<th>{_name(n)}</th>" for n in names) + "<th>wall s</th><th>run</th></tr>"
    body = ""
    for run in summary["runs"]:
        link = "failed"
        if run.get("run"):
            name = escape(str(run["run"]))
            link = f'<a href="{name}/report.html">{name}</a>'
        cells = "".join(f"<td>{figure_text(run['summary'].get(n))}</td>" for n in names)
        body += (
            f"<tr><td>{_variant(str(run['variant']))}</td><td>{escape(str(run['model']))}</td>"
            f"<td>{run['replicate']}</td><td>{run['seed']}</td>{cells}"
            f"<td>{figure_text(run['wall_s'])}</td><td>{link}</td></tr>"
        )
    return sweep_section("Runs", _table(head + body))


def svg_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode("ascii")


def _name(figure_name: str) -> str:
    return _BREAK.join(escape(part) for part in figure_name.split("_"))


def _variant(name: str) -> str:
    """A variant's settings, which may break after each comma."""
    return ",<wbr>".join(escape(part) for part in name.split(","))


def _table(rows: str) -> str:
    """A table that scrolls inside its card, under itself, where it cannot fit."""
    return f'<div class="scroll"><table>{rows}</table></div>'


def figure(uri: str, alt: str, caption: str) -> str:
    return (
        f'<figure class="plot"><img src="{uri}" alt="{escape(alt)}">'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _interval(
    value: Mapping[str, Any] | None, marks: Mapping[str, str], *, signed: bool = False
) -> str:
    """A mean and its interval, which may go under it where the column is narrow, with the
    mark of the method that made it, if it has one (summary.json's `marks`)."""
    if value is None:
        return "—"
    mean, low, high = value["mean"], value["low"], value["high"]
    form = "+.2f" if signed else ".2f"
    if low is None or high is None:
        return (
            f"<span class='ci'><span>{mean:{form}}</span> <span class='muted'>(n/a)</span></span>"
        )
    mark = escape(marks.get(str(value.get("method")), ""))
    bounds = f"[{low:{form}}, {high:{form}}]{mark}"
    return f"<span class='ci'><span>{mean:{form}}</span> <span class='muted'>{bounds}</span></span>"


def figure_text(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def sweep_section(title: str, body: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{body}</section>\n"
