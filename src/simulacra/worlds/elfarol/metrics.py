"""El Farol measures, read back from events.jsonl alone: the `run` event's layout (agents,
seats) and each week's `world` event (attendance, crowded)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from simulacra.runlog import Event
from simulacra.runlog.events import RunStarted, WorldState


def elfarol_metrics(events: Iterable[Event]) -> dict[str, Any]:
    """Weekly attendance and how the bar fared; `attendance_std` is the population standard
    deviation over the run's weeks (the weeks before the run are left out)."""
    layout: dict[str, Any] | None = None
    weeks: list[int] = []
    attendance: list[int] = []
    crowded: list[bool] = []
    for event in events:
        if event.kind not in ("run", "world"):
            continue
        payload = event.payload
        if isinstance(payload, RunStarted):
            layout = payload.world
        elif isinstance(payload, WorldState) and payload.step > 0:
            weeks.append(int(payload.extra["week"]))
            attendance.append(int(payload.extra["attendance"]))
            crowded.append(bool(payload.extra["crowded"]))
    if layout is None or layout.get("kind") != "elfarol":
        raise ValueError("no El Farol `run` event with its layout: not an El Farol run's events")
    return {
        "agents": int(layout["agents"]),
        "seats": int(layout["seats"]),
        "weeks": weeks,
        "attendance": attendance,
        "crowded": crowded,
        "headline": {
            "mean_attendance": statistics.fmean(attendance) if attendance else 0.0,
            "attendance_std": statistics.pstdev(attendance) if attendance else 0.0,
            "crowded_share": sum(crowded) / len(crowded) if crowded else 0.0,
        },
    }
