"""Commute benchmark: 320 agents x 20 days with the scripted model.

Prints one JSON line: wall time on the builtin executor (goal: under 60 s) and on SUMO, the
builtin executor's own share, model calls per agent-day for A1, B1 and Full, and the scripted
ablation table under the 80% taxi strike. For scale, the source needed about 26 minutes of
wall time per simulated day.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

from simulacra.commuter import (
    CommuteResults,
    ablation_table,
    load_commute_config,
    run_commute,
    script_commuters,
)
from simulacra.llm import load_model
from simulacra.worlds.commute import City, open_executor

SCENARIO = Path(__file__).parents[1] / "scenarios" / "commute.yaml"


def run(variant: str, executor: str, workdir: str | None = None) -> tuple[CommuteResults, float]:
    config = load_commute_config(SCENARIO, variant=variant)
    model = script_commuters(load_model("scripted"))
    started = time.perf_counter()
    results = asyncio.run(
        run_commute(config, model, open_executor(executor, City(config.city), workdir))
    )
    return results, time.perf_counter() - started


def main() -> None:
    results: dict[str, CommuteResults] = {}
    walls: dict[str, float] = {}
    for variant in ("A1", "B1", "Full"):
        results[variant], walls[variant] = run(variant, "builtin")
    full = results["Full"]
    executor_s = _executor_only(full)
    sumo_wall: float | None = None
    if "--no-sumo" not in sys.argv and importlib.util.find_spec("libsumo"):
        with tempfile.TemporaryDirectory() as tmp:
            _, sumo_wall = run("Full", "sumo", tmp)
    print(
        json.dumps(
            {
                "agents": full.agents,
                "days": full.days,
                "builtin_wall_s": round(walls["Full"], 2),
                "builtin_executor_wall_s": round(executor_s, 2),
                "sumo_wall_s": None if sumo_wall is None else round(sumo_wall, 2),
                "calls_per_agent_day": {
                    v: round(r.calls_per_agent_day(), 3) for v, r in results.items()
                },
                "wall_s_by_variant": {v: round(w, 2) for v, w in walls.items()},
                "ablation": ablation_table(list(results.values())),
            }
        )
    )


def _executor_only(results: CommuteResults) -> float:
    """Re-run the Full variant's executed trips on the builtin executor alone."""
    from simulacra.worlds.commute import Trip

    config = load_commute_config(SCENARIO)
    executor = open_executor("builtin", City(config.city))
    profiles = config.profiles.profiles
    started = time.perf_counter()
    for day in range(1, results.days + 1):
        trips = [
            Trip(
                r.agent,
                r.outcome.mode,
                r.outcome.departure_min,
                profiles[r.profile].home,
                profiles[r.profile].destination,
                r.outcome.deadline_min,
            )
            for r in results.records
            if r.day == day
        ]
        executor.execute_day(day, trips)
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
