"""Each commuter is a person of its own within its profile, and each trip's satisfaction is
scored from that person's priorities and given to its reflection."""

from __future__ import annotations

import random
from statistics import pstdev

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.core import parse_hhmm
from simulacra.experiments.calibration import TARGET_WAIT_MIN, baseline_taxi_wait
from simulacra.mind.commuter import PRIORITIES, Profile, build_population, draw_person
from simulacra.worlds.commute import Traveller, TripOutcome
from simulacra.worlds.commute.city import RANK_KM
from simulacra.worlds.commute.satisfaction import parts, score

from .conftest import commute

SHIPPED = commute()
PROFILES = {n: Profile.model_validate(raw) for n, raw in SHIPPED.agents.profiles.items()}


def test_commuters_of_one_profile_differ_and_stay_within_its_ranges() -> None:
    people = build_population(PROFILES, {"administrative_worker": 80}, seed=3)
    profile = PROFILES["administrative_worker"]
    ages = [p.person.age for p in people]
    incomes = [p.person.income_eur for p in people]
    habits = [p.person.habit_min for p in people]
    assert min(ages) >= profile.ages[0] and max(ages) <= profile.ages[1] and pstdev(ages) > 3
    assert profile.income_eur[0] <= min(incomes) and max(incomes) <= profile.income_eur[1]
    earliest, latest = (parse_hhmm(h) for h in profile.habit)
    assert earliest <= min(habits) < max(habits) <= latest
    assert len({p.person.weights for p in people}) == 80
    assert {p.person.gender for p in people} == {"female", "male"}


def test_a_seed_fixes_the_population_and_more_agents_change_nobody_else() -> None:
    few = build_population(PROFILES, {"student": 3}, seed=5)
    more = build_population(PROFILES, {"student": 6}, seed=5)
    other = build_population(PROFILES, {"student": 3}, seed=6)
    assert [p.person for p in few] == [p.person for p in more[:3]]
    assert [p.person for p in few] != [p.person for p in other]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(PROFILES)), st.integers(0, 10_000))
def test_weights_are_the_four_priorities_and_sum_to_one(name: str, seed: int) -> None:
    person = draw_person(PROFILES[name], random.Random(seed))
    assert [k for k, _ in person.weights] == list(PRIORITIES)
    assert sum(w for _, w in person.weights) == pytest.approx(1.0, abs=0.005)
    assert person.budget_eur > 0 and person.flexibility_min % 5 == 0


def test_a_profile_range_written_backwards_is_refused() -> None:
    raw = dict(SHIPPED.agents.profiles["student"], ages=[26, 18])
    with pytest.raises(ValueError, match="ages range"):
        Profile.model_validate(raw)


def outcome(**changes: object) -> TripOutcome:
    base: dict[str, object] = {
        "agent": "a",
        "day": 1,
        "mode": "taxi",
        "departure_min": 480.0,
        "deadline_min": 525.0,
        "distance_km": 4.0,
        "walk_min": 0.0,
        "wait_min": 6.0,
        "in_vehicle_min": 9.6,
        "arrival_min": 495.6,
        "cost_eur": 8.6,
        "punctuality": "early",
    }
    return TripOutcome(**(base | changes))  # type: ignore[arg-type]


PUNCTUAL = Traveller({"time": 0, "cost": 0, "comfort": 0, "punctuality": 1}, 10.0, 10.0)
THRIFTY = Traveller({"time": 0, "cost": 1, "comfort": 0, "punctuality": 0}, 10.0)


def test_satisfaction_parts_follow_their_definitions() -> None:
    found = parts(outcome(), THRIFTY, quickest_min=10.6)
    assert found == {"time": 0.679, "cost": 0.14, "comfort": 0.9, "punctuality": 1.0}
    assert score(found, THRIFTY) == 0.14
    assert parts(outcome(cost_eur=0.0), THRIFTY, 10.6)["cost"] == 1.0
    walked = parts(outcome(mode="walk", walk_min=48.0, wait_min=0.0), THRIFTY, 10.6)
    assert walked["comfort"] == 0.0  # 0.6 for walking, less 0.8 for 48 minutes on foot


def test_lateness_within_the_flexibility_costs_less_than_beyond_it() -> None:
    def punctual(late: float) -> float:
        late_trip = outcome(arrival_min=525.0 + late, punctuality="late" if late > 0 else "early")
        return parts(late_trip, PUNCTUAL, 10.6)["punctuality"]

    assert punctual(0) == 1.0 and punctual(10) == 0.75 and punctual(25) == 0.375
    assert punctual(40) == 0.0
    missed = outcome(arrival_min=None, punctuality="incomplete")
    assert parts(missed, PUNCTUAL, 10.6) == {
        "time": 0.0,
        "cost": 0.14,
        "comfort": 0.9,
        "punctuality": 0.0,
    }


def test_a_traveller_is_read_from_a_travel_action() -> None:
    args = {"priorities": {"time": 2, "punctuality": 2}, "budget_eur": 9.5, "flexibility_min": 5}
    traveller = Traveller.of(args)
    assert traveller is not None
    assert traveller.weights == {"time": 0.5, "cost": 0.0, "comfort": 0.0, "punctuality": 0.5}
    assert Traveller.of({"mode": "bus"}) is None
    with pytest.raises(ValueError, match="unknown priorities"):
        Traveller.of({"priorities": {"speed": 1}})


def test_the_outcome_sentence_carries_the_satisfaction() -> None:
    found = parts(outcome(), THRIFTY, 10.6)
    scored = outcome(satisfaction=score(found, THRIFTY), satisfaction_parts=found)
    assert scored.describe().endswith(
        "; satisfaction 0.14 of 1 (time 0.68, cost 0.14, comfort 0.90, punctuality 1.00)"
    )
    assert "satisfaction" not in outcome().describe()


def test_the_default_taxi_ranks_give_the_sources_baseline_wait() -> None:
    # Calibrated by scripts/calibrate_taxi.py on the reference baseline day.
    assert baseline_taxi_wait(SHIPPED, RANK_KM) == pytest.approx(TARGET_WAIT_MIN, abs=0.5)
    assert baseline_taxi_wait(SHIPPED, 0.0) < TARGET_WAIT_MIN - 4  # ranks on the corridor
