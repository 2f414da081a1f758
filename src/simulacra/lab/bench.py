"""The benchmark: every task of a suite in test mode under each condition, verified by its
verify.py; results.json, results.csv and report.html in a run folder.

The report shows verified completion per tier, self-reported against verified success, calls,
tokens and wall time per task, success-at-budget curves (by tokens and by time), the 2 x 2
memory ablation (procedural x semantic) and how often the checker and the critic agreed.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
from collections.abc import Callable, Sequence
from html import escape
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.figure import Figure

from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.library import Library
from simulacra.lab.loop import agent_for, solve_frozen, started_event
from simulacra.lab.tasks import load_suite, suite_path
from simulacra.llm import LanguageModel
from simulacra.runlog import RunDir
from simulacra.runlog.events import RunEnded

Progress = Callable[[str], None]


def run_bench(
    suite: str | Path,
    conditions: Sequence[str],
    library: Library,
    model: LanguageModel,
    config: LabConfig,
    runs: Path,
    progress: Progress | None = None,
) -> RunDir:
    tasks = load_suite(suite)
    unknown = [c for c in conditions if c not in CONDITIONS]
    if unknown:
        raise ValueError(f"--condition: unknown {unknown}; allowed: {', '.join(CONDITIONS)}")
    memory = (
        f"{library.root}: {len(library.skills())} skills, {len(library.pages())} pages, "
        f"digest {library.digest()[:12]}"
    )
    extra = {"suite": str(suite_path(suite)), "conditions": list(conditions), "memory": memory}
    run = RunDir.create(
        runs,
        "lab-bench",
        seed=config.seed,
        model=model.name,
        config=config.model_dump(mode="json"),
        extra=extra,
    )
    writer = run.writer()
    writer.emit(started_event(model, "lab-bench", config, extra))
    rows: list[dict[str, Any]] = []
    try:
        for condition in conditions:
            agent = agent_for(library, model, config, writer, condition)
            for suite_task in tasks:
                task = suite_task.task
                if progress is not None:
                    progress(f"{condition}: {task.id}")
                episode = asyncio.run(
                    solve_frozen(
                        agent, task, run.path / "episodes" / condition, suite_task=suite_task
                    )
                )
                rows.append(
                    {
                        "condition": condition,
                        "task": task.id,
                        "tier": task.tier,
                        "category": task.category.value,
                        "verified": bool(episode.verified),
                        "self_reported": episode.self_reported,
                        "accepted": episode.accepted,
                        "attempts": episode.attempts,
                        "calls": episode.budget.calls,
                        "tokens": episode.budget.tokens,
                        "wall_s": round(episode.wall_s, 3),
                        "agreement": _share(episode.agreements),
                    }
                )
                writer.flush()
        writer.emit(RunEnded(status="completed"))
        writer.close()
        run.set_status("completed")
    except BaseException as exc:
        run.record_failure(writer, exc)
        raise
    write_results(run.path, rows, model.name, memory)
    return run


def _share(values: Sequence[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def write_results(out: Path, rows: Sequence[dict[str, Any]], model: str, memory: str) -> None:
    (out / "results.json").write_text(json.dumps(list(rows), indent=2), encoding="utf-8")
    with (out / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["condition"])
        writer.writeheader()
        writer.writerows(rows)
    (out / "report.html").write_text(report_html(rows, model, memory), encoding="utf-8")


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per condition: verified per tier, totals, self-reported against verified, agreement."""
    found: dict[str, dict[str, Any]] = {}
    for condition in dict.fromkeys(r["condition"] for r in rows):
        mine = [r for r in rows if r["condition"] == condition]
        tiers = sorted({r["tier"] for r in mine})
        agreements = [r["agreement"] for r in mine if r["agreement"] is not None]
        found[condition] = {
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
        }
    return found


def report_html(rows: Sequence[dict[str, Any]], model: str, memory: str) -> str:
    table = summary(rows)
    badge = (
        " (scripted: a rule-following policy, not a language model)" if model == "scripted" else ""
    )
    parts = [
        f"<h1>simulacra lab bench</h1><p>model: {escape(model)}{escape(badge)}</p>"
        f"<p>memory (frozen, test mode): {escape(memory)}</p>"
    ]
    names = (
        "condition",
        "verified",
        "per tier",
        "accepted by checker and critic",
        "self-reported",
        "self-reported but not verified",
        "checker-critic agreement",
        "calls",
        "tokens",
        "wall s",
    )
    head = "<tr>" + "".join(f"<th>{n}</th>" for n in names) + "</tr>"
    body = "".join(
        f"<tr><td>{escape(c)}</td><td>{s['verified']}/{s['tasks']}</td><td>"
        + ", ".join(f"T{t}: {v}/{n}" for t, (v, n) in s["by_tier"].items())
        + f"</td><td>{s['accepted']}</td><td>{s['self_reported']}</td><td>{s['false_success']}</td>"
        f"<td>{s['agreement']}</td>"
        f"<td>{s['calls']}</td><td>{s['tokens']}</td><td>{s['wall_s']}</td></tr>"
        for c, s in table.items()
    )
    parts.append(f"<h2>Verified completion</h2><table>{head}{body}</table>")
    ablation = ablation_table(table)
    if ablation:
        parts.append(f"<h2>Memory ablation (verified tasks)</h2>{ablation}")
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


ABLATION = ("framework", "semantic", "procedural", "full")  # the 2 x 2: neither, one, both


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
        return f"{s['verified']}/{s['tasks']}, {s['tokens'] // max(s['tasks'], 1)} tokens a task"

    return (
        "<table><tr><th></th><th>no semantic</th><th>semantic</th></tr>"
        f"<tr><th>no procedural</th><td>{cell('framework')}</td><td>{cell('semantic')}</td></tr>"
        f"<tr><th>procedural</th><td>{cell('procedural')}</td><td>{cell('full')}</td></tr></table>"
        f"<p>interaction contrast (full - procedural - semantic + framework): {contrast}</p>"
    )


def _curves(rows: Sequence[dict[str, Any]]) -> str:
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "simulacra", "font.size": 9}
    ):
        fig = Figure(figsize=(9, 3))
        axes = fig.subplots(1, 2)
        for ax, key, label in (
            (axes[0], "tokens", "tokens per task"),
            (axes[1], "wall_s", "seconds per task"),
        ):
            for condition in dict.fromkeys(r["condition"] for r in rows):
                mine = [r for r in rows if r["condition"] == condition]
                costs = sorted(r[key] for r in mine if r["verified"])
                xs = [0.0, *costs]
                ys = [i / max(len(mine), 1) for i in range(len(xs))]
                ax.step(xs, ys, where="post", label=condition)
            ax.set_xlabel(f"budget: {label}")
            ax.set_ylabel("share verified")
            ax.set_ylim(0, 1.05)
        axes[1].legend(frameon=False, fontsize=7)
        fig.tight_layout()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]
