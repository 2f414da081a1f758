"""Trip outcome arithmetic of the builtin executor on hand-built cases."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.core import parse_hhmm
from simulacra.worlds.commute import (
    BuiltinExecutor,
    BusLine,
    City,
    CityConfig,
    TaxiFleet,
    TaxiStrike,
    Trip,
    classify,
    summarize,
)

CITY = City(CityConfig())


def approx(expected: float | None, abs: float = 1e-3) -> object:
    """Outcomes are rounded to 1e-4 minutes."""
    return pytest.approx(expected, abs=abs)


def trip(
    agent: str, mode: str, departure: str, origin: str, destination: str, deadline: str = "09:00"
) -> Trip:
    return Trip(
        agent,
        mode,
        parse_hhmm(departure),
        origin,
        destination,  # type: ignore[arg-type]
        parse_hhmm(deadline),
    )


def test_walking_time_is_distance_over_speed() -> None:
    [out] = BuiltinExecutor(CITY).execute_day(
        1, [trip("w", "walk", "07:30", "student_quarter", "university")]
    )
    assert out.walk_min == approx(1.8 / 5.0 * 60)  # 21.6 minutes
    assert out.arrival_min == approx(parse_hhmm("07:30") + 21.6)
    assert (out.wait_min, out.in_vehicle_min, out.cost_eur) == (0.0, 0.0, 0.0)
    assert out.punctuality == "early"


def test_bus_missed_by_one_minute_waits_for_the_next() -> None:
    # west_end is stop 3; the 07:00 eastbound run leaves it at 07:00 + 3 x 1.8333 = 07:05:30.
    leaves = parse_hhmm("07:00") + 3 * CITY.segment_minutes
    missed = trip("late", "bus", "07:06", "west_end", "city_centre")
    caught = trip("early", "bus", "07:05", "west_end", "city_centre")
    on_time, one_minute_late = BuiltinExecutor(CITY).execute_day(1, [caught, missed])
    assert on_time.wait_min == approx(leaves - parse_hhmm("07:05"))
    assert one_minute_late.wait_min == approx(leaves + 30 - parse_hhmm("07:06"))
    assert one_minute_late.arrival_min == approx(on_time.arrival_min + 30)
    # 8 stops at 1.8333 min each, less the dwell at the alighting stop.
    assert on_time.in_vehicle_min == approx(8 * CITY.segment_minutes - 20 / 60)
    assert on_time.cost_eur == 1.50


def test_a_full_bus_leaves_riders_for_the_next_run() -> None:
    city = City(CityConfig(bus=BusLine(capacity=2)))
    riders = [trip(f"r{i}", "bus", "07:00", "west_end", "city_centre") for i in range(3)]
    first, second, third = BuiltinExecutor(city).execute_day(1, riders)
    assert first.wait_min == second.wait_min
    assert third.wait_min == approx(first.wait_min + 30)
    assert "full bus" in third.note


def test_taxi_goes_to_the_nearest_free_taxi() -> None:
    # riverside (0.4 km) is next to stand 2 at 0.390625 km: 1 min dispatch, then the drive in
    # from the rank off the corridor and 0.0094 km along it.
    rank = CITY.config.taxi.rank_km
    [out] = BuiltinExecutor(CITY).execute_day(
        1, [trip("t", "taxi", "07:30", "riverside", "industrial_estate", "08:00")]
    )
    assert out.wait_min == approx(1.0 + (rank + abs(0.4 - CITY.taxi_stand(2))) / 25 * 60)
    assert out.in_vehicle_min == approx(8.6 / 25 * 60)
    assert out.cost_eur == approx(4.00 + 1.15 * 8.6, abs=0.01)


def test_taxi_queue_under_the_strike() -> None:
    # One taxi in service: the second rider waits for the first drop-off and the drive back.
    fleet = TaxiFleet(size=5, rank_km=0.5)
    city = City(CityConfig(taxi=fleet, taxi_strikes=(TaxiStrike(days=(3,)),)))
    assert len(city.taxis_in_service(3)) == 1 and len(city.taxis_in_service(2)) == 5
    riders = [trip(f"t{i}", "taxi", "07:00", "west_end", "city_centre") for i in range(2)]
    first, second = BuiltinExecutor(city).execute_day(3, riders)
    stand = city.taxi_stand(0)  # 1.0 km along, 0.5 km off the corridor
    leg = lambda km: km / 25 * 60  # noqa: E731
    assert first.wait_min == approx(1.0 + leg(0.5 + abs(1.5 - stand)))
    first_drop = parse_hhmm("07:00") + first.wait_min + leg(4.0)
    assert first.arrival_min == approx(first_drop)
    assert second.wait_min == approx(first_drop - parse_hhmm("07:00") + 1.0 + leg(4.0))
    assert "queued" in second.note
    normal = BuiltinExecutor(city).execute_day(2, riders)
    assert normal[1].wait_min < 1.0 + leg(0.5 + 2.5)  # a second taxi, from its own rank


def test_a_free_taxi_heads_back_to_its_rank_and_is_caught_on_the_way() -> None:
    # One taxi, ranked 2 km off the corridor at 1 km; it drops a rider at city_centre at
    # 07:14.6 and drives back. A request from city_centre 6 minutes later (2.5 km driven back,
    # all of it along the corridor) is served from where the taxi is then.
    city = City(CityConfig(taxi=TaxiFleet(size=1, rank_km=2.0)))
    leg = lambda km: km / 25 * 60  # noqa: E731
    first = trip("a", "taxi", "07:00", "west_end", "city_centre")
    [out] = BuiltinExecutor(city).execute_day(1, [first])
    dropped = out.arrival_min
    assert dropped is not None
    later = trip("b", "taxi", "07:00", "city_centre", "hospital")
    later = Trip("b", "taxi", dropped + 6.0, "city_centre", "hospital", later.deadline_min)
    _, second = BuiltinExecutor(city).execute_day(1, [first, later])
    assert second.wait_min == approx(1.0 + leg(6.0 / 60 * 25))
    # Waiting for it at its rank instead would have cost the drive from there.
    assert second.wait_min < 1.0 + leg(2.0 + 4.5)


def test_trip_past_the_window_is_incomplete() -> None:
    [out] = BuiltinExecutor(CITY).execute_day(
        1, [trip("w", "walk", "11:00", "riverside", "industrial_estate")]
    )
    assert out.arrival_min is None and not out.completed
    assert out.punctuality == "incomplete"
    assert out.walk_min == approx(60.0)  # walked until 12:00


def test_departure_outside_the_window_is_refused() -> None:
    with pytest.raises(ValueError, match="outside the day's window"):
        BuiltinExecutor(CITY).execute_day(1, [trip("x", "walk", "05:30", "riverside", "west_end")])


def test_punctuality_uses_a_five_minute_on_time_window() -> None:
    deadline = parse_hhmm("08:45")
    assert classify(deadline - 5.1, deadline, 5) == "early"
    assert classify(deadline - 5, deadline, 5) == "on_time"
    assert classify(deadline, deadline, 5) == "on_time"
    assert classify(deadline + 0.1, deadline, 5) == "late"
    assert classify(None, deadline, 5) == "incomplete"


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["bus", "taxi", "walk"]),
            st.integers(360, 719),
            st.sampled_from(sorted(CITY.config.zones)),
            st.sampled_from(sorted(CITY.config.zones)),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_outcomes_add_up_and_percentages_sum_to_100(rows: list[tuple[str, int, str, str]]) -> None:
    trips = [
        Trip(f"a{i}", m, float(d), o, t, 540.0)
        for i, (m, d, o, t) in enumerate(rows)  # type: ignore[arg-type]
        if o != t
    ]
    if not trips:
        return
    outcomes = BuiltinExecutor(CITY).execute_day(1, trips)
    assert [o.agent for o in outcomes] == [t.agent for t in trips]
    for o in outcomes:
        if o.arrival_min is not None:
            total = o.walk_min + o.wait_min + o.in_vehicle_min
            assert o.arrival_min - o.departure_min == approx(total, abs=1e-3)
        assert min(o.walk_min, o.wait_min, o.in_vehicle_min) >= 0
    s = summarize(outcomes)
    assert s.early + s.on_time + s.late + s.incomplete == approx(100.0)
