"""A classical baseline commuter: multinomial-logit mode choice with day-to-day learning.

No language model: the kind of agent a transport modeller would write, run in the same
world, scenario, sweep and report as the cognitive commuter. Each working day it

1. learns from yesterday's trip: its expectations for the mode it took (door-to-door time,
   cost, minutes spent walking and waiting, and whether it was late or did not arrive) move
   towards what happened by `learning_rate` (exponential smoothing; the other modes keep
   their expectations: it learns only from what it experienced);
2. plans each allowed mode: leave at its usual time, or earlier when the expected time would
   not leave `margin_min` before the deadline;
3. scores each mode, V = -scale x (w_time x time/30 + w_cost x cost/budget
   + w_comfort x (walk + wait)/30 + w_punctuality x lateness risk), with its own weights
   (its profile's priorities), times in minutes and cost against its budget for a trip;
4. draws a mode from the logit probabilities exp(V) / sum exp(V), with its seed and the day.

Before any experience it expects walking at 5 km/h; the bus at 15 km/h door to door plus 10
minutes of access and waiting, for 1.50 EUR; a taxi at 25 km/h plus 5 minutes of waiting, for
4.00 EUR plus 1.15 EUR/km; and a lateness risk of 0.1. Each choice is logged as a `decision`
("commute.logit") with the utilities and probabilities behind it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core import Action, Observation, format_hhmm, parse_hhmm
from simulacra.mind.commuter.plans import PlanModels, trip_action
from simulacra.mind.commuter.profiles import Commuter
from simulacra.runlog import EventSink
from simulacra.runlog.events import Decided

PURPOSE = "commute.logit"
_PRIOR_SPEED_KMH = {"walk": 5.0, "bus": 15.0, "taxi": 25.0}
_PRIOR_WAIT_MIN = {"walk": 0.0, "bus": 10.0, "taxi": 5.0}
_PRIOR_RISK = 0.1
_BUS_FARE, _TAXI_FLAG, _TAXI_PER_KM = 1.50, 4.00, 1.15
_MINUTES = 30.0  # a half hour of time, or of walking and waiting, weighs like the budget


class LogitOptions(BaseModel):
    """The logit commuter's settings (`agents.options.logit`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scale: float = Field(default=4.0, gt=0, description="logit scale: higher, more certain")
    learning_rate: float = Field(
        default=0.3, gt=0, le=1, description="weight of the latest experience"
    )
    margin_min: float = Field(default=5.0, ge=0, description="slack aimed for at the deadline")


@dataclass(frozen=True)
class Belief:
    """What the commuter expects of one mode."""

    minutes: float  # door to door
    cost_eur: float
    burden_min: float  # walking and waiting
    risk: float  # of arriving late or not at all

    def learn(self, seen: Belief, rate: float) -> Belief:
        def mix(old: float, new: float) -> float:
            return round((1 - rate) * old + rate * new, 4)

        return Belief(
            mix(self.minutes, seen.minutes),
            mix(self.cost_eur, seen.cost_eur),
            mix(self.burden_min, seen.burden_min),
            mix(self.risk, seen.risk),
        )


def prior(mode: str, km: float) -> Belief:
    minutes = km / _PRIOR_SPEED_KMH[mode] * 60.0 + _PRIOR_WAIT_MIN[mode]
    cost = {"walk": 0.0, "bus": _BUS_FARE, "taxi": _TAXI_FLAG + _TAXI_PER_KM * km}[mode]
    burden = minutes if mode == "walk" else _PRIOR_WAIT_MIN[mode]
    return Belief(round(minutes, 4), round(cost, 2), round(burden, 4), _PRIOR_RISK)


class LogitCommuter:
    """The baseline mind (see the module docstring); the commute world's `logit` mind."""

    def __init__(
        self,
        person: Commuter,
        models: PlanModels,
        seed: int,
        options: LogitOptions,
        events: EventSink | None = None,
    ) -> None:
        self.id = person.id
        self.commuter = person
        self.models = models
        self.seed = seed
        self.options = options
        self.events = events
        km = person.profile.distance_km
        self.beliefs = {mode: prior(mode, km) for mode in models.rules.modes}
        self.learned_day = 0

    async def decide(self, phase: str, observation: Observation, now: datetime) -> Action | None:
        if phase != "plan":
            return None
        facts = observation.facts
        last = facts.get("last_trip")
        if isinstance(last, Mapping) and int(last["day"]) > self.learned_day:
            self.learn(last)
        return self.choose(int(facts["day"]), now)

    def learn(self, trip: Mapping[str, Any]) -> None:
        """Move the expectations of yesterday's mode towards what happened."""
        mode = str(trip["mode"])
        if mode not in self.beliefs:
            return
        departure, arrival = float(trip["departure_min"]), trip.get("arrival_min")
        end = self.models.rules.window.end_min
        seen = Belief(
            minutes=(float(arrival) if arrival is not None else end) - departure,
            cost_eur=float(trip["cost_eur"]),
            burden_min=float(trip["walk_min"]) + float(trip["wait_min"]),
            risk=0.0 if trip["punctuality"] in ("early", "on_time") else 1.0,
        )
        self.beliefs[mode] = self.beliefs[mode].learn(seen, self.options.learning_rate)
        self.learned_day = int(trip["day"])

    def choose(self, day: int, now: datetime) -> Action:
        departures = {mode: self.departure(belief) for mode, belief in self.beliefs.items()}
        utilities = {mode: self.utility(belief) for mode, belief in self.beliefs.items()}
        top = max(utilities.values())
        weights = {m: math.exp(v - top) for m, v in utilities.items()}
        total = sum(weights.values())
        probabilities = {m: w / total for m, w in weights.items()}
        rng = random.Random(f"{self.seed}|{self.id}|{day}")
        mode = rng.choices(list(probabilities), weights=list(probabilities.values()))[0]
        plan = self.models.day(
            departure=format_hhmm(departures[mode]),
            mode=mode,
            destination=self.commuter.profile.destination,
        )
        if self.events is not None:
            decided = Decided(
                purpose=PURPOSE,
                choice=plan.describe(),
                raw="",
                parsed={
                    "plan": plan.model_dump(),
                    "probabilities": {m: round(p, 4) for m, p in probabilities.items()},
                    "utilities": {m: round(u, 4) for m, u in utilities.items()},
                    "beliefs": {m: asdict(b) for m, b in self.beliefs.items()},
                },
                fallback=False,
                extra={"day": day},
            )
            self.events.emit(decided, t=now, agent=self.id)
        return trip_action(self.commuter, plan)

    def departure(self, belief: Belief) -> float:
        """The usual departure, or earlier to arrive `margin_min` before the deadline; on the
        day's 5-minute grid."""
        window = self.models.rules.window
        deadline = parse_hhmm(self.commuter.profile.deadline)
        wanted = min(
            self.commuter.person.habit_min, deadline - belief.minutes - self.options.margin_min
        )
        latest = window.end_min - 5
        return min(latest, max(window.start_min, 5 * math.floor(wanted / 5)))

    def utility(self, belief: Belief) -> float:
        person = self.commuter.person
        budget = max(person.budget_eur, 0.01)
        disutility = (
            person.weight("time") * belief.minutes / _MINUTES
            + person.weight("cost") * belief.cost_eur / budget
            + person.weight("comfort") * belief.burden_min / _MINUTES
            + person.weight("punctuality") * belief.risk
        )
        return -self.options.scale * disutility

    def state(self) -> dict[str, Any]:
        return {
            "beliefs": {m: asdict(b) for m, b in self.beliefs.items()},
            "learned_day": self.learned_day,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.beliefs = {m: Belief(**b) for m, b in state["beliefs"].items()}
        self.learned_day = int(state["learned_day"])
