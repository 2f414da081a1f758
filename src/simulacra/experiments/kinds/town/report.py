"""The town's report: how the news spread (interviews at fixed times) and who came to the
event. Its frames are the common map of places; its day timeline and conversations are the
report's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulacra.report.per_world import WorldReport
from simulacra.report.plots import DiffusionPoint, diffusion_svg
from simulacra.report.replay_model import Replay
from simulacra.report.sections import (
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


REPORT = WorldReport(
    "town",
    sections=_town,
    shown=("diffusion", "attendance"),
    units={"conversations": "conversations", "attended": "agents"},
)
