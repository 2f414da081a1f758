"""Small hand-made grid and commute runs in the shapes the engine writes (docs/events.md)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from simulacra.runlog import RunDir

from .conftest import IMG_PAYLOAD, SCRIPT_PAYLOAD, event_log

# ---- the grid: three agents, a cafe, a fire from step 2 --------------------------------

GRID_START = datetime(2000, 1, 1)
GRID_STEPS = 4
GRID_LAYOUT = {
    "kind": "grid",
    "y_axis": "up",
    "half_size": 8,
    "communication": {"distance": 3.0, "metric": "euclidean"},
    "places": [
        {
            "name": "cafe",
            "kind": "cafe",
            "x": -6,
            "y": -2,
            "w": 5,
            "h": 5,
            "center": [-4, 0],
            "extent": [2, 2],
            "capacity": 2,
            "areas": [],
        },
    ],
    "fires": [
        {"name": "fire1", "start_step": 2, "position": [4, 4], "intensity": 0.8, "radius": 4.0}
    ],
}
GRID_AGENTS = {
    "0": {"name": "0", "gender": "female", "traits": SCRIPT_PAYLOAD},
    "1": {"name": "1", "gender": "male"},
    "2": {"name": "2", "gender": "female"},
}
# Each agent's cell per step: 0 walks to the fire, 1 stays near 0, 2 goes into the cafe.
GRID_CELLS = {
    "0": [(0, 0), (1, 1), (2, 2), (3, 3), (3, 4)],
    "1": [(0, 2), (1, 2), (1, 3), (2, 3), (2, 4)],
    "2": [(-1, 0), (-2, 0), (-3, 0), (-4, 0), (-4, 0)],
}


def write_grid_run(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    RunDir(path).write_info(_info("hazard", "grid", seed=2002))
    with event_log(path / "events.jsonl") as log:
        log.emit(
            "run",
            {
                "scenario": "hazard",
                "seed": 2002,
                "model": "scripted",
                "world": GRID_LAYOUT,
                "agents": GRID_AGENTS,
                "clock": _clock(GRID_START, 60, GRID_STEPS),
            },
            t=GRID_START,
        )
        log.emit("world", _grid_world(0), t=GRID_START)
        for step in range(1, GRID_STEPS + 1):
            when = GRID_START + timedelta(hours=step - 1)
            for agent, cells in GRID_CELLS.items():
                log.emit(
                    "action",
                    {
                        "step": step,
                        "phase": "action",
                        "description": "move",
                        "ok": True,
                        "place": "cafe" if agent == "2" and step >= 3 else None,
                        "from": list(cells[step - 1]),
                        "to": list(cells[step]),
                    },
                    t=when,
                    agent=agent,
                )
            if step == 3:
                log.emit(
                    "message",
                    {"to": ["1"], "text": f"Fire near (4, 4)! {IMG_PAYLOAD}", "step": step},
                    t=when,
                    agent="0",
                )
            log.emit("world", _grid_world(step), t=when)
        log.emit("run.end", {"status": "completed"}, t=GRID_START + timedelta(hours=GRID_STEPS))
    metrics = {
        "steps": list(range(1, GRID_STEPS + 1)),
        "agents_within_fire_radius": {"fire1": [0, 1, 2, 2]},
        "agents_within_any_fire_radius": [0, 1, 2, 2],
        "place_occupancy": {"cafe": [0, 0, 1, 1]},
        "deliveries_per_step": [0, 0, 1, 0],
        "senders_per_step": [0, 0, 1, 0],
        "warnings": {
            "fire1": {
                "by_sight": {"0": 2},
                "by_message": {"1": {"step": 3, "hops": 1, "from": "0"}},
                "by_message_only": ["1"],
                "max_hops": 1,
            }
        },
        "headline": {"steps": GRID_STEPS, "message_deliveries": 1, "warned_by_message_only": 1},
        "summary": {"steps": 4.0, "message_deliveries": 1.0, "warned_by_message_only": 1.0},
    }
    (path / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return path


def _grid_world(step: int) -> dict[str, Any]:
    agents, positions = {}, {}
    for agent, cells in GRID_CELLS.items():
        x, y = cells[step]
        place = "cafe" if -6 <= x <= -2 and -2 <= y <= 2 else None
        agents[agent] = {
            "place": place,
            "area": None,
            "x": x,
            "y": y,
            "action": None if step == 0 else "move",
        }
        positions[agent] = [x, y]
    return {
        "step": step,
        "agents": agents,
        "positions": positions,
        "occupancy": {"cafe": sum(1 for a in agents.values() if a["place"] == "cafe")},
        "fires": ["fire1"] if step >= 2 else [],
        "started": ["fire1"] if step == 2 else [],
        "perceived": {"0": ["fire1"]} if step >= 2 else {},
        "refused": [],
    }


# ---- the commute: four agents, three zones, a taxi strike on day 2 ---------------------

COMMUTE_START = datetime(2025, 1, 6, 6, 0)
COMMUTE_DAYS = 3
ZONES = {"riverside": 0.4, "university": 6.2, "industrial_estate": 9.0}
COMMUTE_LAYOUT = {
    "kind": "commute",
    "places": [
        {"name": z, "kind": "zone", "x": x - 0.1, "y": -0.1, "w": 0.2, "h": 0.2}
        for z, x in ZONES.items()
    ],
    "stops": [{"name": f"stop {i}", "x": i * 1.0, "y": 0.4} for i in range(11)],
}
COMMUTERS = {
    "student_001": ("student", "riverside", "university", "walk"),
    "student_002": ("student", "riverside", "university", "bus"),
    "factory_worker_001": ("factory_worker", "riverside", "industrial_estate", "taxi"),
    "factory_worker_002": ("factory_worker", "university", "industrial_estate", "bus"),
}
ON_TIME_WINDOW = "on time: arrival within the 5 minutes before the deadline; early: before that"


def write_commute_run(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    RunDir(path).write_info(_info("commute", "commute", seed=0))
    agents = {a: {"name": a, "profile": p} for a, (p, *_rest) in COMMUTERS.items()}
    with event_log(path / "events.jsonl") as log:
        log.emit(
            "run",
            {
                "scenario": "commute",
                "seed": 0,
                "model": "scripted",
                "world": COMMUTE_LAYOUT,
                "agents": agents,
                "clock": _clock(COMMUTE_START, 1440, COMMUTE_DAYS),
            },
            t=COMMUTE_START,
        )
        log.emit("world", _commute_world(0), t=COMMUTE_START)
        for day in range(1, COMMUTE_DAYS + 1):
            when = COMMUTE_START + timedelta(days=day - 1)
            log.emit(
                "decision",
                {
                    "purpose": "commute.daily",
                    "choice": "walk",
                    "raw": "{}",
                    "parsed": {},
                    "fallback": False,
                },
                t=when,
                agent="student_001",
            )
            for agent, (_profile, _home, _work, mode) in COMMUTERS.items():
                log.emit(
                    "action",
                    {
                        "step": day,
                        "phase": "travel",
                        "ok": True,
                        "day": day,
                        "mode": mode,
                        "description": f"{mode} departing at 480 min",
                        "wait_min": 4.0,
                        "punctuality": "early",
                    },
                    t=when,
                    agent=agent,
                )
            log.emit("world", _commute_world(day), t=when)
        log.emit("run.end", {"status": "completed"}, t=COMMUTE_START + timedelta(days=COMMUTE_DAYS))
    split = {
        "student": {str(d): {"bus": 50.0, "taxi": 0.0, "walk": 50.0} for d in (1, 2, 3)},
        "factory_worker": {str(d): {"bus": 50.0, "taxi": 50.0, "walk": 0.0} for d in (1, 2, 3)},
    }
    table = {
        "trips": 12.0,
        "early": 75.0,
        "late": 25.0,
        "on_time": 0.0,
        "incomplete": 0.0,
        "completion": 100.0,
    }
    metrics = {
        "punctuality": {
            "on_time_window": ON_TIME_WINDOW,
            "table": table,
            "by_profile": {"student": {**table, "trips": 6.0}, "factory_worker": table},
            "strike_days_only": {**table, "trips": 4.0},
        },
        "modal_split": split,
        "taxi_wait": {
            "strike_days": [2],
            "by_day": [
                {
                    "day": d,
                    "mean_wait_min": 4.0 if d != 2 else 11.5,
                    "taxi_trips": 1,
                    "taxis_in_service": 64 if d != 2 else 20,
                    "strike": d == 2,
                }
                for d in (1, 2, 3)
            ],
        },
        "summary": {"early": 75.0, "late": 25.0, "on_time": 0.0},
    }
    (path / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return path


def _commute_world(day: int) -> dict[str, Any]:
    agents = {}
    for agent, (_profile, home, work, mode) in COMMUTERS.items():
        place = work if day else home
        agents[agent] = {
            "place": place,
            "x": ZONES[place],
            "y": 0.0,
            "action": mode if day else None,
        }
    return {
        "step": day,
        "day": day,
        "strike": day == 2,
        "taxis_in_service": 20 if day == 2 else 64,
        "modal_split": {"bus": 50.0, "taxi": 25.0, "walk": 25.0} if day else {},
        "taxi_trips": 1 if day else 0,
        "taxi_wait_min": (11.5 if day == 2 else 4.0) if day else None,
        "punctuality": {
            "trips": 4.0 if day else 0.0,
            "early": 75.0,
            "late": 25.0,
            "on_time": 0.0,
            "incomplete": 0.0,
            "completion": 100.0,
        },
        "agents": agents,
    }


def _info(scenario: str, world: str, *, seed: int) -> dict[str, Any]:
    return {
        "scenario": scenario,
        "world": world,
        "seed": seed,
        "model": "scripted",
        "started": 1_700_000_000.0,
        "ended": 1_700_000_002.0,
        "status": "completed",
    }


def _clock(start: datetime, minutes: int, ticks: int) -> dict[str, Any]:
    end = start + timedelta(minutes=minutes * ticks)
    return {
        "start": start.isoformat(),
        "end": end.isoformat(),
        "tick_minutes": float(minutes),
        "ticks": ticks,
    }
