"""The grid's report: who was warned of each fire, by sight or by message, exposure per
step, and movement (towards or away from fires, into places, changes of action); its frames
drawn as the source drew them. A step is an hour of memory time, not a day: the report's day
timeline is left out."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from simulacra.report.frame_maps import Painter, cells_painter
from simulacra.report.per_world import WorldReport
from simulacra.report.plots import steps_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import (
    as_list,
    as_mapping,
    as_numbers,
    as_rows,
    links,
    number,
    section,
)
from simulacra.report.tables import rows_table
from simulacra.worlds.grid import Layout

Metrics = Mapping[str, Any]


def _painter(replay: Replay, layout: Mapping[str, Any]) -> Painter:
    grid = Layout.from_dict(layout)
    return cells_painter(
        replay,
        capacity={p.name: p.capacity for p in grid.places},
        intensity={f.name: f.intensity for f in grid.fires},
        neighbours=grid.neighbours,
    )


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


REPORT = WorldReport(
    "grid",
    sections=_grid,
    shown=(
        "warnings",
        "steps",
        "agents_within_fire_radius",
        "agents_within_any_fire_radius",
        "deliveries_per_step",
        "senders_per_step",
        "movement",
    ),
    units={
        "steps": "steps",
        "message_deliveries": "deliveries (a message to each recipient)",
        "messages_heard": "senders heard, summed over steps",
        "agents_within_any_fire_radius_at_end": "agents",
        "mean_exposure": "agents within a fire's radius, per step with a fire",
        "agents_in_places_at_end": "agents",
        "warned_by_message_only": "agents",
        "max_warning_hops": "hops",
        "nearest_neighbour_at_end": "cells (Euclidean)",
        "components_at_end": "groups who can talk",
        "moves_towards_fire": "moves",
        "moves_away_from_fire": "moves",
        "places_entered": "entries",
        "away_share": "share of moves near a fire (0 to 1)",
        "change_rate": "share of agent-steps (0 to 1)",
    },
    painter=_painter,
    timeline=False,
    conversations=False,
)
