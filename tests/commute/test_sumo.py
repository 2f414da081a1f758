"""The SUMO executor on a small city: one walker, one bus rider, one taxi rider; taxis at their
ranks `taxi.rank_km` off the corridor, and back there after a drop-off. Each test runs one
morning of SUMO with 4 taxis, about a second."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from simulacra.core import parse_hhmm
from simulacra.worlds.commute import City, CityConfig, Trip

pytestmark = pytest.mark.sumo

HAVE_SUMO = all(importlib.util.find_spec(m) for m in ("sumo", "libsumo", "sumolib"))


needs_sumo = pytest.mark.skipif(
    not HAVE_SUMO,
    reason="Eclipse SUMO is not installed (the sumo extra: "
    "pip install eclipse-sumo libsumo traci sumolib)",
)


@needs_sumo
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

    # Walking 1.0 km at 5 km/h: 12 minutes, less the two junctions a SUMO walker skips (each
    # 14.4 m across where a street to the ranks meets the corridor): 11.65.
    assert walker.walk_min == pytest.approx(11.65, abs=0.1)
    assert walker.arrival_min == pytest.approx(seven_thirty + 11.65, abs=0.1)
    # home is stop 3; the 07:30 eastbound run leaves it at 07:30 + 3 x 1.8333 = 07:35:30, and
    # reaches office (stop 8) 5 x 1.8333 - 1/3 = 8.83 minutes later.
    assert rider.wait_min == pytest.approx(5.5, abs=0.25)
    assert rider.in_vehicle_min == pytest.approx(8.83, abs=0.5)
    assert rider.arrival_min == pytest.approx(seven_thirty + 5.5 + 8.83, abs=0.5)
    assert rider.cost_eur == 1.50
    # Taxi: the nearest, taxi 1, has its builtin rank beside 1.875 km and its SUMO rank on the
    # street from stop 4 (2.0 km), 2.4 km off the corridor: 1 minute to board plus 2.4 + 0.5 km
    # at 25 km/h, 7.96 minutes (the builtin's 7.66 has the rank 125 m nearer). The ride, 2.5 km
    # at 25 km/h, is 6 minutes; SUMO adds acceleration and the turns.
    assert hailer.wait_min == pytest.approx(7.96, abs=0.5)
    assert hailer.in_vehicle_min == pytest.approx(6.0, abs=0.5)
    assert hailer.cost_eur == pytest.approx(4.00 + 1.15 * 2.5, abs=0.01)
    assert all(o.punctuality == "early" for o in (walker, rider, hailer))


@needs_sumo
@pytest.mark.parametrize("idle", ["return", "stay"])
def test_after_a_drop_off_a_taxi_drives_back_to_its_rank_or_waits_there(
    tmp_path: Path, idle: str
) -> None:
    from simulacra.worlds.commute.sumo import SumoExecutor

    city = City(
        CityConfig(
            corridor_km=5.0, zones={"home": 1.5, "office": 4.0}, taxi={"size": 4, "idle": idle}
        )
    )  # type: ignore[arg-type]
    trip = Trip("hailer", "taxi", parse_hhmm("07:30"), "home", "office", parse_hhmm("08:00"))
    executor = SumoExecutor(city, workdir=tmp_path)
    (hailer,) = executor.execute_day(1, [trip])
    assert hailer.completed

    (drop_off,) = [s for s in executor.last_stop_events if s.unloaded == 1]
    stops = [s for s in executor.last_stop_events if s.vehicle == drop_off.vehicle]
    before, last = stops[0], stops[-1]
    assert before.started < trip.departure_min * 60 < drop_off.started
    assert last.ended == -1  # still there when the day's window closed
    if idle == "return":
        # It started the day at its rank, a parking area named after its street's node, and
        # drove back to the same one.
        assert before.parking_area.startswith("rank_")
        assert last.parking_area == before.parking_area
        # From office (4.0 km) back to the rank 2.4 km off stop 4 (2.0 km): 4.4 km at 25
        # km/h is 10.56 minutes, and a U-turn at office's node.
        back_min = (last.started - drop_off.ended) / 60
        assert back_min == pytest.approx(10.56 + 0.4, abs=0.6)
    else:
        # It waited in the street at its rank, and after the drop-off where it dropped off.
        assert before.parking_area == ""
        assert last == drop_off


@needs_sumo
def test_ranks_too_near_the_corridor_for_a_street_are_refused(tmp_path: Path) -> None:
    from simulacra.worlds.commute.sumo import SumoExecutor

    city = City(CityConfig(taxi={"rank_km": 0.05}))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"rank_km is 0\.05; .* 0 .* or at least 0\.1 km"):
        SumoExecutor(city, workdir=tmp_path)
