"""The report's sections that one world's metrics call for, chosen by the world's kind.

- town: how the news spread (interviews) and who came to the event;
- grid: who was warned of each fire, by sight or by message, exposure per step, and movement
  (towards or away from fires, into places, changes of action);
- commute: commute_sections.py.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from html import escape
from typing import Any

from simulacra.report.commute_sections import COMMUTE_SHOWN, commute_sections
from simulacra.report.plots import DiffusionPoint, diffusion_svg, steps_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import (
    as_list,
    as_mapping,
    as_numbers,
    as_rows,
    links,
    number,
    parse_time,
    section,
    step_at,
    viewer_link,
)
from simulacra.report.tables import rows_table, value_html

Metrics = Mapping[str, Any]
_Sections = Callable[[Replay, Metrics], list[str]]

# The metrics.json keys each world's sections show, so "All metrics" does not repeat them.
SHOWN: dict[str, tuple[str, ...]] = {
    "town": ("diffusion", "attendance"),
    "grid": (
        "warnings",
        "steps",
        "agents_within_fire_radius",
        "agents_within_any_fire_radius",
        "deliveries_per_step",
        "senders_per_step",
        "movement",
    ),
    "commute": COMMUTE_SHOWN,
    "embodied": ("embodied",),
}


def world_kind(replay: Replay, metrics: Metrics | None) -> str:
    """The run's world, from run.json or the run event; else guessed from the metrics."""
    if replay.run.world:
        return replay.run.world
    keys = set(metrics or ())
    for kind, shown in SHOWN.items():
        if keys & set(shown):
            return kind
    return ""


def world_sections(replay: Replay, metrics: Metrics | None) -> tuple[list[str], tuple[str, ...]]:
    """The world's sections, and the metrics keys they showed."""
    kind = world_kind(replay, metrics)
    draw = _BY_KIND.get(kind)
    if draw is None:
        return [], ()
    return draw(replay, metrics or {}), SHOWN[kind]


# ---- town ------------------------------------------------------------------------------


def _town(replay: Replay, metrics: Metrics) -> list[str]:
    return [_diffusion(replay, metrics), _attendance(replay, metrics)]


def _diffusion(replay: Replay, metrics: Metrics) -> str:
    rows = as_rows(metrics.get("diffusion"))
    if not rows:
        return section("Diffusion", '<p class="empty">No diffusion measured.</p>', "diffusion")
    points, table = [], []
    for row in rows:
        step = step_at(replay, row.get("t"))
        answers = row.get("answers")
        population = len(answers) if isinstance(answers, Mapping) and answers else None
        points.append(
            DiffusionPoint(
                parse_time(row.get("t")),
                number(row.get("aware")),
                float(population or len(replay.agents)),
                viewer_link(replay, step),
            )
        )
        table.append(
            {
                "t": row.get("t"),
                "aware": row.get("aware"),
                "who": row.get("agents"),
                "viewer": f"step {step}",
                "answers": answers,
            }
        )
    steps = {str(r["viewer"]) for r in table}
    body = f'<div class="plot">{diffusion_svg(points)}</div>'
    body += rows_table(table, links(replay, steps))
    note = (
        "<p>How many agents know, by interviewing each at fixed times. Click a point to replay.</p>"
    )
    return section("Diffusion over time", note + body, "diffusion")


def _attendance(replay: Replay, metrics: Metrics) -> str:
    value = metrics.get("attendance")
    if value is None:
        return section("Attendance", '<p class="empty">Not measured in this run.</p>', "attendance")
    return section("Attendance", value_html(value, links(replay)), "attendance")


# ---- grid ------------------------------------------------------------------------------


def _grid(replay: Replay, metrics: Metrics) -> list[str]:
    return [_warnings(replay, metrics), _exposure(replay, metrics), _movement(replay, metrics)]


def _warnings(replay: Replay, metrics: Metrics) -> str:
    warnings = metrics.get("warnings")
    if not isinstance(warnings, Mapping) or not warnings:
        return section("Warnings", '<p class="empty">No fire was seen.</p>', "warnings")
    body = ""
    for fire, raw in warnings.items():
        warned = as_mapping(raw)
        sight, heard = as_mapping(warned.get("by_sight")), as_mapping(warned.get("by_message"))
        only = as_list(warned.get("by_message_only"))
        rows: list[dict[str, Any]] = [
            {"agent": a, "warned by": "sight", "step": s, "hops": 0, "from": None}
            for a, s in sight.items()
        ]
        rows += [
            {
                "agent": a,
                "warned by": "message",
                "step": m.get("step"),
                "hops": m.get("hops"),
                "from": m.get("from"),
            }
            for a, m in heard.items()
            if isinstance(m, Mapping)
        ]
        rows.sort(key=lambda r: (number(r["step"]), r["warned by"] != "sight", str(r["agent"])))
        for row in rows:
            row["step"] = f"step {row['step']}"
        summary = (
            f"{len(sight)} saw it; {len(only)} knew of it by message alone; "
            f"a warning travelled at most {escape(str(warned.get('max_hops', 0)))} hop(s)."
        )
        table = rows_table(rows, links(replay, {str(r["step"]) for r in rows})) if rows else ""
        body += f"<h3>{escape(str(fire))}</h3><p>{summary}</p>{table}"
    return section("Warnings: who knew of each fire, and how", body, "warnings")


def _exposure(replay: Replay, metrics: Metrics) -> str:
    steps = [int(number(s)) for s in metrics.get("steps") or ()]
    if not steps:
        return section("Exposure", '<p class="empty">No steps measured.</p>', "exposure")
    reach = {
        str(k): as_numbers(v)
        for k, v in as_mapping(metrics.get("agents_within_fire_radius")).items()
    }
    reach["any fire"] = as_numbers(metrics.get("agents_within_any_fire_radius"))
    talk = {
        "deliveries": as_numbers(metrics.get("deliveries_per_step")),
        "senders": as_numbers(metrics.get("senders_per_step")),
    }
    svg = steps_svg(
        steps, [("agents within a fire's radius", reach), ("messages (per recipient)", talk)]
    )
    rows = []
    for i, step in enumerate(steps):
        row: dict[str, Any] = {"step": f"step {step}"}
        for name, values in {**reach, **talk}.items():
            row[name] = values[i] if i < len(values) else None
        rows.append(row)
    table = rows_table(rows, links(replay, {r["step"] for r in rows}))
    note = "<p>Agents within each active fire's perception radius after each step.</p>"
    return section("Exposure per step", f'{note}<div class="plot">{svg}</div>{table}', "exposure")


def _movement(replay: Replay, metrics: Metrics) -> str:
    rows = as_rows(as_mapping(metrics.get("movement")).get("per_step"))
    if not rows:
        return section("Movement", '<p class="empty">No steps measured.</p>', "movement")
    steps = [int(number(r.get("step"))) for r in rows]

    def series(*keys: str) -> dict[str, list[float]]:
        return {k.replace("_", " "): [number(r.get(k)) for r in rows] for k in keys}

    svg = steps_svg(
        steps,
        [
            ("moves of agents that saw a fire", series("towards_fire", "away_from_fire")),
            ("agents", series("moved", "stayed", "entered_place")),
            ("action changes", series("changed_action")),
        ],
    )
    table = [{**r, "step": f"step {r.get('step')}"} for r in rows]
    linked = rows_table(table, links(replay, {str(t["step"]) for t in table}))
    note = (
        "<p>Movement preference: of the agents that saw a fire at a step's start, who ended "
        "nearer to or farther from it; who walked into a place. Action stability: agents whose "
        "action differs from the step before.</p>"
    )
    body = f'{note}<div class="plot">{svg}</div>{linked}'
    return section("Movement and action stability", body, "movement")


# ---- embodied --------------------------------------------------------------------------

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


_BY_KIND: dict[str, _Sections] = {
    "town": _town,
    "grid": _grid,
    "commute": commute_sections,
    "embodied": _embodied,
}
