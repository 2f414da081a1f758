"""The sweep's report.html: the ablation table with confidence intervals, the source's Table 5
beside it, every run with a link to its own report, and per-variant figures averaged over
replicates. One self-contained file: figures are data URIs, agent text is escaped."""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.commuter.metrics import TABLE5_COLUMNS, mean_modal_split, mean_taxi_wait
from simulacra.commuter.plots import modal_split_svg, taxi_wait_svg, write_figure

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
section{background:#fff;border:1px solid #dde;border-radius:6px;margin:16px;padding:12px 18px}
table{border-collapse:collapse;margin:6px 0}td,th{padding:4px 10px;text-align:left;
border-bottom:1px solid #e5e7eb}th{background:#f0f1f4}.badge{background:#fff3cd;padding:2px 6px}
img{max-width:100%}.muted{color:#6b7280}.ci{white-space:nowrap}
"""


def write_sweep_report(
    out: Path, summary: Mapping[str, Any], runs: Mapping[str, Sequence[Path]]
) -> Path:
    """Write out/report.html (and the per-variant figures under out/figures/)."""
    sections = [
        _overview(summary),
        _ablation(summary),
        _runs(summary),
        *(_variant(out, summary, variant, paths) for variant, paths in runs.items()),
    ]
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
    model = escape(str(summary["model"]))
    if summary["model"] == "scripted":
        model += (
            ' <span class="badge">scripted: rule-following answers, not a language model</span>'
        )
    rows = [
        ("model", model),
        ("population", f"{summary['agents']} agents x {summary['days']} working days"),
        ("taxi strike", escape(_days(summary["strike_days"]))),
        ("punctuality", escape(str(summary["on_time_window"]))),
        ("wall time", f"{summary['wall_s']} s"),
    ]
    cells = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return _section("Sweep", f"<table>{cells}</table>")


def _ablation(summary: Mapping[str, Any]) -> str:
    level = f"{summary['confidence']:.0%}"
    head = "<tr><th>variant</th><th>replicates</th>"
    head += "".join(f"<th>{c}</th>" for c in TABLE5_COLUMNS) + "<th>calls / agent-day</th></tr>"
    body = ""
    for variant, row in summary["variants"].items():
        cells = "".join(f"<td>{_interval(row[c])}</td>" for c in TABLE5_COLUMNS)
        calls = _interval(row["calls_per_agent_day"])
        body += f"<tr><td>{escape(variant)}</td><td>{row['replicates']}</td>{cells}"
        body += f"<td>{calls}</td></tr>"
    source = ""
    for variant, values in SOURCE_TABLE5.items():
        source += f"<tr><td>{variant}</td>" + "".join(f"<td>{v:.2f}</td>" for v in values)
        source += "</tr>"
    source_head = "<tr><th>variant</th>" + "".join(f"<th>{c}</th>" for c in TABLE5_COLUMNS)
    note = (
        f"<p>Percent of trips: mean [{level} confidence interval over replicates, Student's t]; "
        "n/a with one replicate.</p>"
    )
    reference = (
        "<h3>The source's Table 5</h3><p class='muted'>Qwen2.5-7B, 320 agents x 20 days, one "
        f"run, on-time window not stated.</p><table>{source_head}</tr>{source}</table>"
    )
    return _section("Ablation (Table 5)", f"{note}<table>{head}{body}</table>{reference}")


def _runs(summary: Mapping[str, Any]) -> str:
    head = "<tr><th>variant</th><th>replicate</th><th>seed</th>"
    head += "".join(f"<th>{c}</th>" for c in TABLE5_COLUMNS)
    head += "<th>calls / agent-day</th><th>fallbacks</th><th>wall s</th><th>run</th></tr>"
    body = ""
    for run in summary["runs"]:
        link = "failed"
        if run.get("run"):
            name = escape(str(run["run"]))
            link = f'<a href="{name}/report.html">{name}</a>'
        table = run.get("table5") or {}
        cells = "".join(f"<td>{_number(table.get(c))}</td>" for c in TABLE5_COLUMNS)
        body += (
            f"<tr><td>{escape(str(run['variant']))}</td><td>{run['replicate']}</td>"
            f"<td>{run['seed']}</td>{cells}<td>{_number(run['calls_per_agent_day'])}</td>"
            f"<td>{run['fallbacks']}</td><td>{_number(run['wall_s'])}</td><td>{link}</td></tr>"
        )
    return _section("Runs", f"<table>{head}{body}</table>")


def _variant(out: Path, summary: Mapping[str, Any], variant: str, paths: Sequence[Path]) -> str:
    metrics = [json.loads((p / "metrics.json").read_text(encoding="utf-8")) for p in paths]
    if not metrics:
        return ""
    strikes = list(summary["strike_days"])
    label = f"{variant}, mean of {len(metrics)} replicate{'s' if len(metrics) > 1 else ''}"
    split = mean_modal_split([m["modal_split"] for m in metrics])
    waits = mean_taxi_wait([m["taxi_wait"]["by_day"] for m in metrics])
    figures = out / "figures"
    modal = write_figure(
        figures / f"{variant}_modal_split.svg",
        modal_split_svg(split, strikes, f"Modal split per profile ({label})"),
    )
    taxi = write_figure(
        figures / f"{variant}_taxi_wait.svg",
        taxi_wait_svg(waits, strikes, f"Mean taxi wait ({label})"),
    )
    body = "".join(
        f'<figure><img src="{_data_uri(path)}" alt="{escape(alt)}"></figure>'
        for path, alt in ((modal, "modal split"), (taxi, "taxi wait"))
    )
    return _section(f"Variant {variant}", body)


def _data_uri(path: Path) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _interval(value: Mapping[str, Any]) -> str:
    mean, low, high = value["mean"], value["low"], value["high"]
    if low is None or high is None:
        return f"<span class='ci'>{mean:.2f} <span class='muted'>(n/a)</span></span>"
    return f"<span class='ci'>{mean:.2f} <span class='muted'>[{low:.2f}, {high:.2f}]</span></span>"


def _number(value: Any) -> str:
    return "—" if value is None else f"{float(value):.2f}"


def _days(days: Sequence[int]) -> str:
    return ", ".join(str(d) for d in days) if days else "none"


def _section(title: str, body: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{body}</section>\n"
