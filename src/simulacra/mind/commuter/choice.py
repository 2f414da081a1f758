"""How a commuter weighs a mode for its trip: what it expects of each mode, when it would leave,
and the disutility its own identity gives that expectation. The logit model (logit.py) scores
its learnt expectations this way; the scripted stand-in (scripted.py) scores its first guesses
this way from the identity it reads in the prompt.

Who the commuter is enters through its person (profiles.py): its weights of time, cost,
comfort and punctuality; its income, through the budget a trip is judged against; its age,
which makes walking harder past 60; its usual departure, which a slow mode makes it leave
earlier than it likes; and its flexibility, by which a late arrival within it counts as a
smaller risk than one beyond it.

Before any experience a commuter expects walking at 5 km/h; the bus at 15 km/h door to door
plus 10 minutes of access and waiting, for 1.50 EUR; a taxi at 25 km/h plus 5 minutes of
waiting, for 4.00 EUR plus 1.15 EUR/km; and a lateness risk of 0.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from simulacra.core import DayWindow
from simulacra.mind.commuter.profiles import Person

FIRST_SPEED_KMH = {"walk": 5.0, "bus": 15.0, "taxi": 25.0}
FIRST_WAIT_MIN = {"walk": 0.0, "bus": 10.0, "taxi": 5.0}
FIRST_RISK = 0.1
BUS_FARE_EUR, TAXI_FLAG_EUR, TAXI_PER_KM_EUR = 1.50, 4.00, 1.15
HALF_HOUR = 30.0  # a half hour of time, or of walking and waiting, weighs like the budget
# Walking grows harder with age: each year past 60 adds 4% to the effort of a walk.
OLD_AGE, EFFORT_PER_YEAR = 60, 0.04
# A minute of leaving earlier than one's usual departure weighs like half a minute of travel.
EARLY_WEIGHT = 0.5
# A late arrival within one's flexibility is a quarter of the harm of one beyond it.
WITHIN_FLEXIBILITY_RISK = 0.25


@dataclass(frozen=True)
class Belief:
    """What the commuter expects of one mode."""

    minutes: float  # door to door
    cost_eur: float
    burden_min: float  # walking and waiting
    risk: float  # of arriving late (beyond one's flexibility) or not at all

    def learn(self, seen: Belief, rate: float) -> Belief:
        def mix(old: float, new: float) -> float:
            return round((1 - rate) * old + rate * new, 4)

        return Belief(
            mix(self.minutes, seen.minutes),
            mix(self.cost_eur, seen.cost_eur),
            mix(self.burden_min, seen.burden_min),
            mix(self.risk, seen.risk),
        )


def first_guess(mode: str, km: float) -> Belief:
    """What a commuter expects of `mode` over `km` before it has tried it."""
    minutes = km / FIRST_SPEED_KMH[mode] * 60.0 + FIRST_WAIT_MIN[mode]
    cost = {"walk": 0.0, "bus": BUS_FARE_EUR, "taxi": TAXI_FLAG_EUR + TAXI_PER_KM_EUR * km}[mode]
    burden = minutes if mode == "walk" else FIRST_WAIT_MIN[mode]
    return Belief(round(minutes, 4), round(cost, 2), round(burden, 4), FIRST_RISK)


def lateness_risk(lateness_min: float | None, flexibility_min: float) -> float:
    """What one arrival says of the risk: 0 in time, a quarter within the flexibility, 1
    beyond it or not arrived (`lateness_min` None)."""
    if lateness_min is None:
        return 1.0
    if lateness_min <= 0:
        return 0.0
    return WITHIN_FLEXIBILITY_RISK if lateness_min <= flexibility_min else 1.0


def departure(
    person: Person, deadline_min: float, minutes: float, margin_min: float, window: DayWindow
) -> float:
    """The usual departure, or earlier to arrive `margin_min` before the deadline, on the
    day's 5-minute grid."""
    wanted = min(person.habit_min, deadline_min - minutes - margin_min)
    latest = window.end_min - 5
    return min(latest, max(window.start_min, 5 * math.floor(wanted / 5)))


def disutility(person: Person, mode: str, belief: Belief, departure_min: float) -> float:
    """The weighted cost of a mode to `person` leaving at `departure_min`: time (and how much
    earlier than usual it makes the commuter leave), cost against its budget, the effort of
    walking and waiting, and the lateness risk; each time in half hours."""
    burden = belief.burden_min
    if mode == "walk":
        burden *= 1.0 + EFFORT_PER_YEAR * max(0, person.age - OLD_AGE)
    earlier = max(0.0, person.habit_min - departure_min)
    budget = max(person.budget_eur, 0.01)
    return (
        person.weight("time") * (belief.minutes + EARLY_WEIGHT * earlier) / HALF_HOUR
        + person.weight("cost") * belief.cost_eur / budget
        + person.weight("comfort") * burden / HALF_HOUR
        + person.weight("punctuality") * belief.risk
    )
