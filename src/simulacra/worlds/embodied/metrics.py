"""Embodied measures, read back from events.jsonl alone: per episode (one agent's run)
success, SPL and soft SPL, steps, path length, collisions, clamps, replies cut at the token
budget (`cut`, logged with each decision) and, apart from them, replies with no movement to
read (`unreadable`: the model's own failure, not the budget's), idle nudges and model time
(`latency_s`, wall clock: kept out of the headline, which the log records, so that two runs
with one seed write the same log).

SPL (Anderson et al., 2018) is S * l / max(p, l), with l the shortest walk from the start to
the goal region and p the path walked; l is computed so that no walk an agent can make is
shorter (shortest.py), so an agent that walks the shortest way scores 1 and no other more.
Soft SPL (Datta et al., 2021) replaces S with 1 - d_T / l, the share of the distance closed,
d_T the shortest walk left from where the agent ended.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from simulacra.runlog import Event
from simulacra.runlog.events import RunStarted, WorldState

HEADLINE = ("success", "spl", "soft_spl", "steps", "path_m", "collisions", "clamps",
            "cut", "unreadable", "nudges")  # fmt: skip


def spl(success: bool, shortest: float, walked: float) -> float:
    if not success:
        return 0.0
    if shortest <= 0.0:
        return 1.0
    return shortest / max(walked, shortest)


def soft_spl(shortest: float, left: float, walked: float) -> float:
    if shortest <= 0.0:
        return 1.0 if left <= 0.0 else 0.0
    closed = max(0.0, 1.0 - left / shortest)
    return closed * shortest / max(walked, shortest)


def expected_steps(events: Iterable[Event], ticks: int) -> tuple[int, float] | None:
    """The decisions a run's first ticks (its log so far) made, and those the whole run will
    make: an agent that stopped before the log's last tick has made its last (the last tick
    ends every episode, so there `done` says nothing); one that did not goes on at its pace so
    far (the shortest walk it closed per decision) until none is left, then stops (one
    decision more), and at most to the run's last of `ticks`; one that closed none goes on to
    the last. None for a log with no embodied layout."""
    layout: dict[str, Any] | None = None
    final: dict[str, Any] = {}
    last = 0
    for event in events:
        if isinstance(event.payload, RunStarted):
            layout = event.payload.world
        elif isinstance(event.payload, WorldState):
            final, last = event.payload.agents, event.payload.step
    if layout is None or layout.get("kind") != "embodied":
        return None
    made, expected = 0, 0.0
    for agent, shortest in layout["geodesic_m"].items():
        state = final.get(agent, {})
        steps = int(state.get("steps", 0))
        made += steps
        left = float(state.get("geodesic_m", shortest))
        pace = (float(shortest) - left) / steps if steps else 0.0
        if state.get("done") and steps < last:
            expected += steps
        elif pace > 0:
            expected += min(ticks, steps + math.ceil(left / pace) + 1)
        else:
            expected += ticks
    return made, expected


def embodied_metrics(events: Iterable[Event]) -> dict[str, Any]:
    layout: dict[str, Any] | None = None
    final: dict[str, Any] = {}
    nudges: defaultdict[str, int] = defaultdict(int)
    latency: defaultdict[str, float] = defaultdict(float)
    cut: defaultdict[str, set[int]] = defaultdict(set)  # the steps whose reply was cut
    unread: defaultdict[str, set[int]] = defaultdict(set)  # the steps with nothing to read
    for event in events:
        if event.kind == "run":
            payload = event.payload
            assert isinstance(payload, RunStarted)
            layout = payload.world
        elif event.kind == "world":
            state = event.payload
            assert isinstance(state, WorldState)
            final = state.agents
        elif event.kind == "decision" and event.agent is not None:
            nudges[event.agent] += int(bool(event.data.get("nudged")))
            if event.data.get("cut"):
                cut[event.agent].add(int(event.data.get("step", -1)))
        elif event.kind == "action" and event.agent is not None:
            if event.data.get("readable") is False:
                unread[event.agent].add(int(event.data.get("step", -1)))
        elif event.kind == "llm.call" and event.agent is not None:
            latency[event.agent] += float(event.data.get("latency_s", 0.0))
    if layout is None or layout.get("kind") != "embodied":
        raise ValueError("no embodied `run` event with its layout: not an embodied run's events")
    episodes = {}
    for agent, shortest in layout["geodesic_m"].items():
        state = final.get(agent, {})
        success = bool(state.get("success"))
        walked = float(state.get("path_m", 0.0))
        left = float(state.get("geodesic_m", shortest))
        episodes[agent] = {
            "success": success,
            "spl": round(spl(success, float(shortest), walked), 4),
            "soft_spl": round(soft_spl(float(shortest), left, walked), 4),
            "shortest_m": float(shortest),
            "left_m": left,
            "steps": int(state.get("steps", 0)),
            "path_m": walked,
            "collisions": int(state.get("collisions", 0)),
            "bounds": int(state.get("bounds", 0)),
            "clamps": int(state.get("clamps", 0)),
            "cut": len(cut[agent]),
            "unreadable": len(unread[agent] - cut[agent]),
            "nudges": nudges[agent],
            "latency_s": round(latency[agent], 3),  # model time: wall clock, so no headline
        }
    headline = {
        name: round(statistics.fmean(float(e[name]) for e in episodes.values()), 4)
        for name in HEADLINE
    }
    return {
        "task": layout.get("task"),
        "instruction": layout.get("instruction"),
        "target": layout.get("target"),
        "episodes": episodes,
        "headline": headline,
    }
