"""A bench run's results: results.json, results.csv and report.html.

Per suite and condition the report shows verified completion per tier, the tasks accepted by
checker and critic, self-reported against verified success, checker-critic agreement, and the
cost per task as the source reports it: the median tokens, the median dollars (with a price)
and the median wall time per task, beside the totals; success-at-budget curves by tokens and
by time; the 2 x 2 memory ablation with its interaction contrast; and the memory it read.
"""

from __future__ import annotations

import csv
import io
import json
import statistics
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

ABLATION = ("framework", "semantic", "procedural", "full")  # the 2 x 2: neither, one, both
Table = dict[str, dict[str, dict[str, Any]]]  # suite -> condition -> figures


def write_results(
    out: Path,
    rows: Sequence[dict[str, Any]],
    model: str,
    memory: str,
    seed_memory: str | None = None,
) -> None:
    (out / "results.json").write_text(json.dumps(list(rows), indent=2), encoding="utf-8")
    with (out / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["condition"])
        writer.writeheader()
        writer.writerows(rows)
    html = report_html(rows, model, memory, seed_memory)
    (out / "report.html").write_text(html, encoding="utf-8")


def gains(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each task the seed condition did not verify and another condition did: the conditions
    and the learned items (not in the seed) that the verified runs used."""
    found = []
    seeds = {(r["suite"], r["task"]): r["verified"] for r in rows if r["condition"] == "seed"}
    for (suite, task), verified in seeds.items():
        if verified:
            continue
        wins = [r for r in rows if (r["suite"], r["task"]) == (suite, task) and r["verified"]]
        if wins:
            learned = [n for r in wins for n in r.get("learned_used", "").split("; ") if n]
            found.append(
                {
                    "suite": suite,
                    "task": task,
                    "conditions": [r["condition"] for r in wins],
                    "learned": list(dict.fromkeys(learned)),
                }
            )
    return found


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 4) if values else None


def summary(rows: Sequence[dict[str, Any]]) -> Table:
    """Per suite and condition: verified per tier, totals, medians per task, agreement."""
    found: Table = {}
    for row in rows:
        found.setdefault(row.get("suite", "suite"), {}).setdefault(row["condition"], {})
    for suite, conditions in found.items():
        for name in conditions:
            mine = [r for r in rows if r.get("suite", "suite") == suite and r["condition"] == name]
            conditions[name] = _figures(mine)
    return found


def _figures(mine: Sequence[dict[str, Any]]) -> dict[str, Any]:
    tiers = sorted({r["tier"] for r in mine})
    agreements = [r["agreement"] for r in mine if r["agreement"] is not None]
    costs = [r["cost_usd"] for r in mine if r.get("cost_usd") is not None]
    return {
        "verified": sum(r["verified"] for r in mine),
        "tasks": len(mine),
        "by_tier": {
            t: (
                sum(r["verified"] for r in mine if r["tier"] == t),
                sum(r["tier"] == t for r in mine),
            )
            for t in tiers
        },
        "accepted": sum(r["accepted"] for r in mine),
        "self_reported": sum(r["self_reported"] for r in mine),
        "false_success": sum(r["self_reported"] and not r["verified"] for r in mine),
        "agreement": round(sum(agreements) / len(agreements), 3) if agreements else None,
        "calls": sum(r["calls"] for r in mine),
        "tokens": sum(r["tokens"] for r in mine),
        "wall_s": round(sum(r["wall_s"] for r in mine), 2),
        "median_tokens": _median([r["tokens"] for r in mine]),
        "median_wall_s": _median([r["wall_s"] for r in mine]),
        "median_cost_usd": _median(costs) if len(costs) == len(mine) else None,
    }


def interaction(table: dict[str, dict[str, Any]]) -> int | None:
    """full - procedural - semantic + framework, in verified tasks: 0 when the two memories'
    gains add up, below 0 when they overlap; None without the four conditions."""
    if not set(ABLATION) <= set(table):
        return None
    v: dict[str, int] = {c: table[c]["verified"] for c in ABLATION}
    return v["full"] - v["procedural"] - v["semantic"] + v["framework"]


def ablation_table(table: dict[str, dict[str, Any]]) -> str:
    """The 2 x 2 table, procedural memory x semantic memory: verified tasks, tokens per task."""
    contrast = interaction(table)
    if contrast is None:
        return ""

    def cell(name: str) -> str:
        s = table[name]
        return f"{s['verified']}/{s['tasks']}, median {s['median_tokens']:g} tokens a task"

    return (
        "<table><tr><th></th><th>no semantic</th><th>semantic</th></tr>"
        f"<tr><th>no procedural</th><td>{cell('framework')}</td><td>{cell('semantic')}</td></tr>"
        f"<tr><th>procedural</th><td>{cell('procedural')}</td><td>{cell('full')}</td></tr></table>"
        f"<p>interaction contrast (full - procedural - semantic + framework): {contrast}</p>"
    )


_COLUMNS = (
    "condition",
    "verified",
    "per tier",
    "accepted by checker and critic",
    "self-reported",
    "self-reported but not verified",
    "checker-critic agreement",
    "median tokens a task",
    "median $ a task",
    "median s a task",
    "calls",
    "tokens",
    "wall s",
)


def _row_html(name: str, s: dict[str, Any]) -> str:
    tiers = ", ".join(f"T{t}: {v}/{n}" for t, (v, n) in s["by_tier"].items())
    cost = "-" if s["median_cost_usd"] is None else f"{s['median_cost_usd']:.4f}"
    cells = (
        name,
        f"{s['verified']}/{s['tasks']}",
        tiers,
        s["accepted"],
        s["self_reported"],
        s["false_success"],
        s["agreement"],
        s["median_tokens"],
        cost,
        s["median_wall_s"],
        s["calls"],
        s["tokens"],
        s["wall_s"],
    )
    return "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in cells) + "</tr>"


def report_html(
    rows: Sequence[dict[str, Any]], model: str, memory: str, seed_memory: str | None = None
) -> str:
    table = summary(rows)
    badge = (
        " (scripted: a rule-following policy, not a language model)" if model == "scripted" else ""
    )
    parts = [
        f"<h1>simulacra lab bench</h1><p>model: {escape(model)}{escape(badge)}</p>"
        f"<p>memory (frozen, test mode): {escape(memory)}</p>"
    ]
    if seed_memory is not None:
        parts.append(f"<p>the seed condition's memory: {escape(seed_memory)}</p>")
    head = "<tr>" + "".join(f"<th>{n}</th>" for n in _COLUMNS) + "</tr>"
    for suite, conditions in table.items():
        body = "".join(_row_html(c, s) for c, s in conditions.items())
        parts.append(f"<h2>Verified completion: {escape(suite)}</h2><table>{head}{body}</table>")
        ablation = ablation_table(conditions)
        if ablation:
            parts.append(f"<h3>Memory ablation on {escape(suite)} (verified tasks)</h3>{ablation}")
    found = gains(rows)
    if found:
        lines = "".join(
            f"<tr><td>{escape(g['suite'])}</td><td>{escape(g['task'])}</td>"
            f"<td>{escape(', '.join(g['conditions']))}</td>"
            f"<td>{escape(', '.join(g['learned']) or '(nothing learned was used)')}</td></tr>"
            for g in found
        )
        parts.append(
            "<h2>Gains over the seed</h2><p>Tasks verified with the learned library that the "
            "seed library did not verify, and the learned skills and pages their final "
            "commands ran.</p><table><tr><th>suite</th><th>task</th><th>verified under</th>"
            f"<th>learned items used</th></tr>{lines}</table>"
        )
    parts.append("<h2>Success at budget</h2>" + _curves(rows))
    columns = list(rows[0]) if rows else []
    cells = "".join(
        "<tr>" + "".join(f"<td>{escape(str(r[c]))}</td>" for c in columns) + "</tr>" for r in rows
    )
    parts.append(
        "<h2>Tasks</h2><table><tr>"
        + "".join(f"<th>{escape(c)}</th>" for c in columns)
        + f"</tr>{cells}</table>"
    )
    style = (
        "body{font:14px system-ui;margin:24px}table{border-collapse:collapse}"
        "td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left}"
    )
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{csp}">'
        f"<title>lab bench</title><style>{style}</style></head>"
        f"<body>{''.join(parts)}</body></html>\n"
    )


def _curves(rows: Sequence[dict[str, Any]]) -> str:
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "simulacra", "font.size": 9}
    ):
        fig = Figure(figsize=(9, 3))
        axes = fig.subplots(1, 2)
        groups = dict.fromkeys((r.get("suite", ""), r["condition"]) for r in rows)
        for ax, key, label in (
            (axes[0], "tokens", "tokens per task"),
            (axes[1], "wall_s", "seconds per task"),
        ):
            for suite, name in groups:
                mine = [r for r in rows if (r.get("suite", ""), r["condition"]) == (suite, name)]
                costs = sorted(r[key] for r in mine if r["verified"])
                xs = [0.0, *costs]
                ys = [i / max(len(mine), 1) for i in range(len(xs))]
                ax.step(xs, ys, where="post", label=f"{suite} {name}".strip())
            ax.set_xlabel(f"budget: {label}")
            ax.set_ylabel("share verified")
            ax.set_ylim(0, 1.05)
        axes[1].legend(frameon=False, fontsize=7)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]
