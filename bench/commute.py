"""Commute benchmark: 320 agents x 20 working days with the scripted model, through the run
pipeline (events, memory streams and metrics; no report).

Prints one JSON line: wall time per variant on the builtin executor (goal: under 60 s) and of
the Full variant on SUMO, the builtin executor's own share (the Full run's trips replayed on it
alone), model calls per agent-day, and the scripted Table 5 under the 80% taxi strike. For
scale, the source needed about 26 minutes of wall time per simulated day.

    python bench/commute.py [--no-sumo]
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from simulacra.core import parse_hhmm
from simulacra.experiments import load_scenario, run
from simulacra.runlog import RunDir, read_events
from simulacra.worlds.commute import TABLE5_COLUMNS, City, CommuteConfig, Trip, open_executor

SCENARIO = Path(__file__).parents[1] / "scenarios" / "commute.yaml"


def timed(root: str, variant: str, executor: str) -> tuple[RunDir, float]:
    scenario = load_scenario(
        SCENARIO,
        [
            "model.spec=scripted",
            f"ablation={variant}",
            f"world.executor={executor}",
            f"output.root={root}",
            "output.report=false",
        ],
    )
    started = time.perf_counter()
    done = run(scenario, progress=False)
    return done, time.perf_counter() - started


def executor_only(done: RunDir) -> float:
    """Replay the run's trips, day by day, on the builtin executor alone."""
    scenario = load_scenario(done.config())
    homes = {
        name: (raw["home"], raw["destination"], raw["deadline"])
        for name, raw in scenario.agents.profiles.items()
    }
    profile_of = {
        a: p["profile"]
        for e in read_events(done.events_path, {"run"})
        for a, p in e.data["agents"].items()
    }
    days: dict[int, list[Trip]] = defaultdict(list)
    for e in read_events(done.events_path, {"action"}):
        if e.data.get("phase") == "travel" and e.agent is not None:
            home, work, deadline = homes[profile_of[e.agent]]
            days[int(e.data["day"])].append(
                Trip(
                    e.agent,
                    e.data["mode"],
                    e.data["departure_min"],
                    home,
                    work,
                    parse_hhmm(deadline),
                )
            )
    assert isinstance(scenario.world, CommuteConfig)
    executor = open_executor("builtin", City(scenario.world.city))
    started = time.perf_counter()
    for day, trips in sorted(days.items()):
        executor.execute_day(day, trips)
    return time.perf_counter() - started


def main() -> None:
    walls: dict[str, float] = {}
    figures: dict[str, Any] = {"agents": 320, "days": 20}
    per_day: dict[str, float] = {}
    table: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as root:
        for variant in ("A1", "B1", "Full"):
            done, walls[variant] = timed(root, variant, "builtin")
            summary = done.info()["summary"]
            per_day[variant] = summary["calls_per_agent_tick"]
            table[variant] = {k: summary[k] for k in TABLE5_COLUMNS}
            if variant == "Full":
                figures["builtin_executor_wall_s"] = round(executor_only(done), 2)
        sumo = None
        if "--no-sumo" not in sys.argv and importlib.util.find_spec("libsumo"):
            _, sumo = timed(root, "Full", "sumo")
    figures |= {
        "builtin_wall_s": round(walls["Full"], 2),
        "sumo_wall_s": None if sumo is None else round(sumo, 2),
        "calls_per_agent_day": per_day,
        "wall_s_by_variant": {v: round(w, 2) for v, w in walls.items()},
        "table5": table,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
