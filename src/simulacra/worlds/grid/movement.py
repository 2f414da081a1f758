"""How agents move, step by step, read from the world's frames: the source's "movement
preferences" and "action stability" (section 3.1).

For each step (positions before it are the previous frame's, after it this frame's, and each
fire where it was in that step: an intervention may have moved it since):
- `moved` and `stayed`: agents whose cell changed or did not (a refused move stays);
- `towards_fire` and `away_from_fire`: of the agents that perceived a fire at the step's start,
  those that ended nearer to or farther from the nearest fire they perceived (a step along it
  at an equal distance is neither);
- `entered_place` and `left_place`: agents that crossed into or out of a place;
- `changed_action`: agents whose action differs from their action the step before (from the
  second step), and `change_share`, that count over the agents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from statistics import fmean
from typing import Any

from simulacra.worlds.grid.fires import Cell, Fire
from simulacra.worlds.grid.layout import Layout, euclidean


@dataclass(frozen=True)
class Frame:
    """One step's frame as the measures need it."""

    step: int
    positions: Mapping[str, Cell]
    actions: Mapping[str, str | None]
    perceived: Mapping[str, Sequence[str]]  # fire -> agents within its radius at the start
    fires: Mapping[str, Fire]  # each fire by name, where it was in this step


def step_movement(layout: Layout, before: Frame, after: Frame) -> dict[str, Any]:
    fires = after.fires
    row: dict[str, Any] = dict.fromkeys(
        ("moved", "stayed", "towards_fire", "away_from_fire", "entered_place", "left_place"), 0
    )
    seen: dict[str, list[str]] = {}
    for fire, agents in after.perceived.items():
        for agent in agents:
            seen.setdefault(agent, []).append(fire)
    for agent, start in before.positions.items():
        end = after.positions.get(agent, start)
        row["moved" if end != start else "stayed"] += 1
        inside_before, inside_after = layout.place_at(start), layout.place_at(end)
        if inside_before is None and inside_after is not None:
            row["entered_place"] += 1
        elif inside_before is not None and inside_after is None:
            row["left_place"] += 1
        if agent in seen and end != start:
            nearest = min(
                (fires[f] for f in seen[agent]), key=lambda f: euclidean(start, f.position)
            )
            gap = euclidean(end, nearest.position) - euclidean(start, nearest.position)
            if gap < 0:
                row["towards_fire"] += 1
            elif gap > 0:
                row["away_from_fire"] += 1
    previous = before.actions
    compared = [a for a, act in after.actions.items() if act and previous.get(a)]
    changed = sum(after.actions[a] != previous[a] for a in compared)
    row["changed_action"] = changed
    row["change_share"] = round(changed / len(compared), 4) if compared else None
    return {"step": after.step, **row}


def movement(layout: Layout, frames: Sequence[Frame]) -> dict[str, Any]:
    """Per step rows and their totals: `per_step` and `summary` (counts summed over steps;
    `away_share`, away moves over moves towards or away from a perceived fire; `change_rate`,
    the mean of the steps' change shares)."""
    rows = [step_movement(layout, a, b) for a, b in pairwise(frames)]
    totals = {
        key: sum(int(r[key]) for r in rows)
        for key in ("moved", "stayed", "towards_fire", "away_from_fire", "entered_place")
    }
    fled = totals["towards_fire"] + totals["away_from_fire"]
    shares = [float(r["change_share"]) for r in rows if r["change_share"] is not None]
    summary: dict[str, Any] = {
        **totals,
        "away_share": round(totals["away_from_fire"] / fled, 4) if fled else None,
        "change_rate": round(fmean(shares), 4) if shares else None,
    }
    return {"per_step": rows, "summary": summary}
