"""The SUMO executor on a small city: one walker, one bus rider, one taxi rider."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from simulacra.core import parse_hhmm
from simulacra.worlds.commute import City, CityConfig, Trip

pytestmark = pytest.mark.sumo

HAVE_SUMO = all(importlib.util.find_spec(m) for m in ("sumo", "libsumo", "sumolib"))


@pytest.mark.skipif(
    not HAVE_SUMO,
    reason="Eclipse SUMO is not installed (the sumo extra: "
    "pip install eclipse-sumo libsumo traci sumolib)",
)
def test_walker_bus_rider_and_taxi_rider_match_hand_checked_values(tmp_path: Path) -> None:
    from simulacra.worlds.commute.sumo import SumoExecutor

    city = City(
        CityConfig(
            corridor_km=5.0, zones={"home": 1.5, "office": 4.0, "flat": 0.5}, taxi={"size": 4}
        )
    )  # type: ignore[arg-type]
    seven_thirty = parse_hhmm("07:30")
    trips = [
        Trip("walker", "walk", seven_thirty, "flat", "home", parse_hhmm("08:00")),
        Trip("rider", "bus", seven_thirty, "home", "office", parse_hhmm("08:00")),
        Trip("hailer", "taxi", seven_thirty, "home", "office", parse_hhmm("08:00")),
    ]
    walker, rider, hailer = SumoExecutor(city, workdir=tmp_path).execute_day(1, trips)

    # Walking 1.0 km at 5 km/h: 12 minutes (SUMO adds a few seconds at the edge ends).
    assert walker.walk_min == pytest.approx(12.0, abs=0.25)
    assert walker.arrival_min == pytest.approx(seven_thirty + 12.0, abs=0.25)
    # home is stop 3; the 07:30 eastbound run leaves it at 07:30 + 3 x 1.8333 = 07:35:30, and
    # reaches office (stop 8) 5 x 1.8333 - 1/3 = 8.83 minutes later.
    assert rider.wait_min == pytest.approx(5.5, abs=0.25)
    assert rider.in_vehicle_min == pytest.approx(8.83, abs=0.5)
    assert rider.arrival_min == pytest.approx(seven_thirty + 5.5 + 8.83, abs=0.5)
    assert rider.cost_eur == 1.50
    # Taxi: stand 1 is at 1.875 km; 2.5 km at 25 km/h is 6 minutes. SUMO adds its dispatch
    # period (10 s), a turn at the node and acceleration, so the tolerance is wider.
    assert hailer.wait_min < 3.0
    assert hailer.in_vehicle_min == pytest.approx(6.0, abs=2.0)
    assert hailer.cost_eur == pytest.approx(4.00 + 1.15 * 2.5, abs=0.01)
    assert all(o.punctuality == "early" for o in (walker, rider, hailer))
