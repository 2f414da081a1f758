"""A sweep's report.html: per variant and model (language-model variants and baselines in one
table), each headline figure's mean with its interval, grouped by the world's signature; each
group's paired difference from the sweep's reference; every run with a link to its own
report; and, for the commute, the source's Table 5 beside ours and the figures averaged over
replicates. One self-contained file: figures are data URIs, every text from a run is
escaped."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.report.commute_plots import modal_split_svg, taxi_wait_svg
from simulacra.worlds.commute import (
    TABLE5_COLUMNS,
    CityConfig,
    mean_modal_split,
    mean_taxi_wait,
    on_time_window,
    strike_days,
)

# The source's Table 5 (Qwen2.5-7B, 320 agents x 20 days, 80% taxi strike on days 11-15).
SOURCE_TABLE5 = {
    "A1": (58.95, 34.25, 2.50, 4.30, 95.70),
    "B1": (71.95, 23.35, 3.60, 1.30, 98.70),
    "Full": (81.05, 14.75, 2.40, 1.80, 98.20),
}
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
    if summary["world"] == "commute":
        sections += _commute(out, summary)
    if summary["world"] == "embodied":
        sections.append(_suite(summary))
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
    return _section("Sweep", f"<table>{cells}</table>")


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
    return _section("Results", f"{note}<table>{head}{body}</table>")


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
    return _section(title, f"{note}<table>{head}{body}</table>")


def _commute(out: Path, summary: Mapping[str, Any]) -> list[str]:
    city = CityConfig.model_validate(summary["config"]["world"]["city"])
    strikes = strike_days(city, int(summary["ticks"]))
    head = "<tr><th>variant</th>" + "".join(f"<th>{c}</th>" for c in TABLE5_COLUMNS) + "</tr>"
    source = "".join(
        f"<tr><td>{v}</td>" + "".join(f"<td>{x:.2f}</td>" for x in values) + "</tr>"
        for v, values in SOURCE_TABLE5.items()
    )
    reference = _section(
        "The source's Table 5",
        "<p class='muted'>Qwen2.5-7B, 320 agents x 20 days, one run, on-time window not "
        f"stated. Ours: {escape(on_time_window(city))}; taxi strike on days "
        f"{escape(', '.join(map(str, strikes)) or 'none')} (variants may change it).</p>"
        f"<table>{head}{source}</table>",
    )
    sections = [reference]
    by_group: dict[str, list[Path]] = {}
    for run in summary["runs"]:
        if run.get("run"):
            by_group.setdefault(f"{run['variant']} ({run['model']})", []).append(out / run["run"])
    for group, paths in by_group.items():
        metrics = [json.loads((p / "metrics.json").read_text(encoding="utf-8")) for p in paths]
        label = f"{group}, mean of {len(metrics)} replicate{'s' if len(metrics) > 1 else ''}"
        split = mean_modal_split([m["modal_split"] for m in metrics])
        waits = mean_taxi_wait([m["taxi_wait"]["by_day"] for m in metrics])
        # Each group's own strike days: a variant may change or drop the strike.
        struck = sorted({int(d) for m in metrics for d in m["taxi_wait"]["strike_days"]})
        title = f"Modal split per profile ({label})"
        if not struck:
            title = f"Figure 6 of the source, no strike: modal split per profile ({label})"
        images = (
            (modal_split_svg(split, struck, title), "modal split"),
            (taxi_wait_svg(waits, struck, f"Mean taxi wait ({label})"), "taxi wait"),
        )
        body = "".join(
            f'<figure><img src="{_data_uri(svg)}" alt="{escape(alt)}"></figure>'
            for svg, alt in images
        )
        strike = "no strike: every taxi in service"
        if struck:
            rows = [r for m in metrics for r in m["taxi_wait"]["by_day"] if r["strike"]]
            fewest = min(int(r["taxis_in_service"]) for r in rows)
            strike = f"taxi strike on days {', '.join(map(str, struck))}, {fewest} taxis in service"
        sections.append(_section(f"{group}: {strike}", body))
    return sections


def _suite(summary: Mapping[str, Any]) -> str:
    """Success and SPL per task (rows) and agent kind (columns), means over replicates."""
    cells: dict[str, dict[str, str]] = {}
    kinds: list[str] = []
    for row in summary["rows"]:
        parts = dict(p.split("=", 1) for p in str(row["variant"]).split(",") if "=" in p)
        task = parts.get("world.task", "(the scenario's)")
        kind = parts.get("agents.mind", "(the scenario's)")
        if len({r["model"] for r in summary["rows"]}) > 1:
            kind = f"{kind} ({row['model']})"
        if kind not in kinds:
            kinds.append(kind)
        figures = row["figures"]
        success = figures.get("success", {}).get("mean")
        spl = figures.get("spl", {}).get("mean")
        cells.setdefault(task, {})[kind] = f"{_number(success)} / {_number(spl)}"
    head = "".join(f"<th>{escape(k)}</th>" for k in kinds)
    body = "".join(
        f"<tr><td>{escape(task)}</td>"
        + "".join(f"<td>{escape(by_kind.get(k, '-'))}</td>" for k in kinds)
        + "</tr>"
        for task, by_kind in cells.items()
    )
    table = f"<table><tr><th>task</th>{head}</tr>{body}</table>"
    note = "<p>Each cell: success rate / SPL, means over the replicates.</p>"
    return _section("Success and SPL per task and agent", note + table)


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
        cells = "".join(f"<td>{_number(run['summary'].get(n))}</td>" for n in names)
        body += (
            f"<tr><td>{escape(str(run['variant']))}</td><td>{escape(str(run['model']))}</td>"
            f"<td>{run['replicate']}</td><td>{run['seed']}</td>{cells}"
            f"<td>{_number(run['wall_s'])}</td><td>{link}</td></tr>"
        )
    return _section("Runs", f"<table>{head}{body}</table>")


def _data_uri(svg: str) -> str:
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


def _number(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def _section(title: str, body: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{body}</section>\n"
