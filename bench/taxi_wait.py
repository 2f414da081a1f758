"""Taxi waits of the two executors, builtin and SUMO, on the same demand.

Prints one JSON line: the mean taxi wait (minutes) of each executor side by side, SUMO's over
the builtin's, and each one's trips not arrived when the day's window closed, for

- `reference`: the reference baseline day of the taxi calibration
  (simulacra.experiments.calibration: the study's 320 commuters split over the modes in the
  source's baseline shares, 179 taxi trips, each leaving at its usual departure; the
  populations of seeds 0-2), with every taxi in service, under the 80% strike (20% of the taxis
  available, 13 of 64) and with 40% available (26 of 64, the source's intermediate condition);
- `scripted`: the trips of scripted Full runs of scenarios/commute.yaml (320 agents x 20 days,
  the strike on days 11-15; 20% available, and 40% as the `available40` variant), made on the
  builtin executor and each day replayed on both: normal days and strike days.

    python bench/taxi_wait.py [--reference-only]
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from simulacra.experiments import Scenario, load_scenario, run
from simulacra.experiments.calibration import reference_day
from simulacra.runlog import read_events
from simulacra.worlds.commute import EXECUTORS, City, CommuteConfig, Trip, open_executor
from simulacra.worlds.commute.metrics import strike_days, trips

SCENARIO = Path(__file__).parents[1] / "scenarios" / "commute.yaml"
SEEDS = (0, 1, 2)
# Each condition by the share of taxis out of service on the strike days.
STRIKES = {"strike80": 0.8, "available40": 0.6}
Days = Sequence[tuple[int, Sequence[Trip]]]


def commute(scenario: Scenario) -> CommuteConfig:
    assert isinstance(scenario.world, CommuteConfig)
    return scenario.world


def side_by_side(city: City, days: Days, workdir: Path) -> dict[str, Any]:
    """Every day of `days` on each executor: mean taxi wait and trips not arrived."""
    row: dict[str, Any] = {}
    for name in EXECUTORS:
        executor = open_executor(name, city, workdir / name)
        waits: list[float] = []
        incomplete = 0
        for day, demand in days:
            done = executor.execute_day(day, demand)
            waits += [o.wait_min for o in done if o.mode == "taxi"]
            incomplete += sum(not o.completed for o in done)
        row[name] = round(fmean(waits), 2) if waits else None
        row[f"{name}_incomplete"] = incomplete
    if row["builtin"] and row["sumo"] is not None:
        row["sumo_over_builtin"] = round(row["sumo"] / row["builtin"], 3)
    return row


def reference(root: Path) -> dict[str, Any]:
    scenario = load_scenario(SCENARIO, ["model.spec=scripted"])
    city = City(commute(scenario).city)
    struck = strike_days(city.config, 100)
    quiet = next(d for d in range(1, 100) if d not in struck)
    found = {
        "baseline": side_by_side(
            city, [(quiet, reference_day(scenario, s)) for s in SEEDS], root / "baseline"
        )
    }
    for label, share in STRIKES.items():
        struck = load_scenario(
            SCENARIO,
            ["model.spec=scripted", f"world.city.taxi_strikes.0.out_of_service={share}"],
        )
        struck_city = City(commute(struck).city)
        day = strike_days(struck_city.config, 100)[0]
        found[label] = side_by_side(
            struck_city, [(day, reference_day(struck, s)) for s in SEEDS], root / label
        )
    return found


def scripted(root: Path, share: float) -> dict[str, Any]:
    """A scripted Full run on the builtin executor; its trips replayed on both executors."""
    scenario = load_scenario(
        SCENARIO,
        [
            "model.spec=scripted",
            "memory.embedder=hashing",
            "ablation=Full",
            f"world.city.taxi_strikes.0.out_of_service={share}",
            f"output.root={root}",
            "output.report=false",
        ],
    )
    done = run(scenario, progress=False)
    places = {
        name: (raw["home"], raw["destination"]) for name, raw in scenario.agents.profiles.items()
    }
    by_day: dict[int, list[Trip]] = defaultdict(list)
    for profile, o in trips(read_events(done.events_path)):
        home, work = places[profile]
        by_day[o.day].append(Trip(o.agent, o.mode, o.departure_min, home, work, o.deadline_min))
    city = City(commute(scenario).city)
    struck = set(strike_days(city.config, max(by_day)))
    normal = [(d, t) for d, t in sorted(by_day.items()) if d not in struck]
    strike = [(d, t) for d, t in sorted(by_day.items()) if d in struck]
    return {
        "normal_days": side_by_side(city, normal, root / "normal"),
        "strike_days": side_by_side(city, strike, root / "strike"),
    }


def main() -> None:
    figures: dict[str, Any] = {"unit": "mean taxi wait, minutes", "seeds": list(SEEDS)}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        figures["reference"] = reference(root / "reference")
        if "--reference-only" not in sys.argv:
            figures["scripted"] = {
                label: scripted(root / label, share) for label, share in STRIKES.items()
            }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
