"""The embodied world's report: the task and each episode's measures, the decisions step by
step in the viewer with each first-person view and an overview per frame, frames re-rendered
from the scene in 3D, and the task suite's table on a sweep page."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from html import escape
from pathlib import Path
from typing import Any

from simulacra.report.outputs import png_uri
from simulacra.report.per_world import WorldReport
from simulacra.report.replay_model import Replay
from simulacra.report.sections import as_mapping, links, section
from simulacra.report.sweep_page import figure_text, sweep_section
from simulacra.report.tables import rows_table
from simulacra.runlog import Event

log = logging.getLogger(__name__)
Metrics = Mapping[str, Any]

_EPISODE_COLUMNS = (
    ("success", "success"),
    ("spl", "SPL"),
    ("soft_spl", "soft SPL"),
    ("steps", "steps"),
    ("path_m", "path m"),
    ("shortest_m", "shortest m"),
    ("collisions", "collisions"),
    ("clamps", "clamps"),
    ("cut", "cut at the budget"),
    ("unreadable", "unreadable"),
    ("nudges", "nudges"),
    ("latency_s", "model s"),
)


def _embodied(replay: Replay, metrics: Metrics) -> list[str]:
    measures = as_mapping(metrics.get("embodied"))
    if not measures:
        return [section("Task and episodes", '<p class="empty">Not measured.</p>', "episodes")]
    head = (
        f"<p>Task <code>{escape(str(measures.get('task')))}</code>: "
        f"{escape(str(measures.get('instruction')))} (target "
        f"<code>{escape(str(measures.get('target')))}</code>). Success: within the configured "
        "distance of the target and seeing it in the id pass, at a stay or at the end. SPL: "
        "success weighted by the shortest path over the path walked.</p>"
    )
    rows = []
    for agent, episode in as_mapping(measures.get("episodes")).items():
        row: dict[str, Any] = {"agent": agent}
        for key, title in _EPISODE_COLUMNS:
            row[title] = as_mapping(episode).get(key)
        rows.append(row)
    table = rows_table(rows, links(replay))
    return [section("Task and episodes", head + table, "episodes")]


def _pictures(replay: Replay, run: Path, events: list[Event]) -> Replay:
    """The replay with its pictures inline: each decision's first-person view (the file the
    run saved) and an overview per frame, re-rendered from the log. A run whose scene cannot
    be rendered here keeps its views and goes without overviews."""
    agents = {}
    for agent_id, track in replay.agents.items():
        decisions = tuple(
            replace(d, image=_view_uri(run / d.image) if d.image else "") for d in track.decisions
        )
        agents[agent_id] = replace(track, decisions=decisions)
    overviews: tuple[str, ...] = ()
    try:
        from simulacra.experiments.kinds.embodied.frames import overview_pngs

        overviews = tuple(png_uri(png) for png in overview_pngs(run, events))
    except Exception:
        log.exception("the overviews of %s could not be rendered; the viewer shows none", run)
    return replace(replay, agents=agents, overviews=overviews)


def _view_uri(path: Path) -> str:
    views = (path.parent.parent.parent / "views").resolve()
    inside = path.resolve().is_relative_to(views)  # only the run's own views/ folder
    if not inside or path.suffix != ".png" or not path.is_file():
        return ""
    return png_uri(path.read_bytes())


def _frames(root: Path, events: Any, out: Path) -> list[Path]:
    from simulacra.experiments.kinds.embodied.frames import render_embodied_frames

    return render_embodied_frames(root, events, out)


def _sweep(out: Path, summary: Mapping[str, Any]) -> list[str]:
    return [_suite(summary)]


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
        cells.setdefault(task, {})[kind] = f"{figure_text(success)} / {figure_text(spl)}"
    head = "".join(f"<th>{escape(k)}</th>" for k in kinds)
    body = "".join(
        f"<tr><td>{escape(task)}</td>"
        + "".join(f"<td>{escape(by_kind.get(k, '-'))}</td>" for k in kinds)
        + "</tr>"
        for task, by_kind in cells.items()
    )
    table = f"<table><tr><th>task</th>{head}</tr>{body}</table>"
    note = "<p>Each cell: success rate / SPL, means over the replicates.</p>"
    return sweep_section("Success and SPL per task and agent", note + table)


REPORT = WorldReport(
    "embodied",
    sections=_embodied,
    shown=("embodied",),
    units={  # each the mean over the run's episodes
        "success": "share of episodes (0 to 1)",
        "spl": "0 to 1",
        "soft_spl": "0 to 1",
        "steps": "decisions",
        "path_m": "m walked",
        "collisions": "moves stopped by a collision",
        "clamps": "values cut to the move limits",
        "cut": "replies cut at the token budget",
        "unreadable": "replies with no movement to read",
        "nudges": "idle nudges",
    },
    frames=_frames,
    pictures=_pictures,
    sweep_sections=_sweep,
    decisions=True,
    timeline=False,
    conversations=False,
)
