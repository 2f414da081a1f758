"""Find the taxi rank distance that gives the source's baseline mean taxi wait of 14 minutes.

    python scripts/calibrate_taxi.py [SCENARIO] [TARGET_MIN]

Prints one JSON line: the calibrated `rank_km`, and the reference day's mean wait with it and
with the scenario's current value. Put the result in `world.city.taxi.rank_km` (the default
lives in simulacra.worlds.commute.city.RANK_KM). See simulacra.experiments.calibration.
"""

from __future__ import annotations

import json
import sys

from simulacra.experiments import load_scenario
from simulacra.experiments.calibration import (
    TARGET_WAIT_MIN,
    baseline_taxi_wait,
    calibrate_rank_km,
)
from simulacra.worlds.commute import CommuteConfig

if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "scenarios/commute.yaml"
    target = float(sys.argv[2]) if len(sys.argv) > 2 else TARGET_WAIT_MIN
    scenario = load_scenario(path)
    assert isinstance(scenario.world, CommuteConfig)
    current = scenario.world.city.taxi.rank_km
    found = calibrate_rank_km(scenario, target)
    print(
        json.dumps(
            {
                "target_wait_min": target,
                "rank_km": found,
                "wait_min": round(baseline_taxi_wait(scenario, found), 2),
                "current_rank_km": current,
                "current_wait_min": round(baseline_taxi_wait(scenario, current), 2),
            }
        )
    )
