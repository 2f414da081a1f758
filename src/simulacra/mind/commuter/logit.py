"""The logit model: a classical baseline commuter, multinomial-logit mode choice with
day-to-day learning.

No language model: the kind of agent a transport modeller would write, run in the same
world, scenario, sweep and report as the cognitive commuter. Each working day it

1. learns from yesterday's trip: its expectations for the mode it took (door-to-door time,
   cost, minutes spent walking and waiting, and the lateness risk: 1 late beyond its
   flexibility or not arrived, a quarter late within it) move towards what happened by
   `learning_rate` (exponential smoothing; the other modes keep their expectations: it
   learns only from what it experienced);
2. plans each allowed mode: leave at its usual time, or earlier when the expected time would
   not leave `margin_min` before the deadline;
3. scores each mode, V = ASC - scale x disutility (choice.py: time and leaving earlier than
   usual, cost against its budget, the effort of walking, harder with age, and waiting, and
   the lateness risk, each weighed by the commuter's own weights), the ASC being its
   profile's constant for the mode (`constants`, 0 where none is given);
4. draws a mode from the logit probabilities exp(V) / sum exp(V), with its seed and the day.

The constants of the shipped scenario are fitted by `scripts/calibrate_logit.py` so that the
no-strike modal split of each profile is the source's (section 6.1). Each choice is logged as
a `decision` ("commute.logit") with the utilities and probabilities behind it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from simulacra.core import Action, Observation, format_hhmm, parse_hhmm
from simulacra.mind.commuter.choice import (
    Belief,
    departure,
    disutility,
    first_guess,
    lateness_risk,
)
from simulacra.mind.commuter.plans import PlanModels, trip_action
from simulacra.mind.commuter.profiles import Commuter
from simulacra.mind.decision import rule_decision
from simulacra.runlog import EventSink

PURPOSE = "commute.logit"


class LogitOptions(BaseModel):
    """The logit model's settings (`agents.options.logit`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    scale: float = Field(default=4.0, gt=0, description="logit scale: higher, more certain")
    learning_rate: float = Field(
        default=0.3, gt=0, le=1, description="weight of the latest experience"
    )
    margin_min: float = Field(default=5.0, ge=0, description="slack aimed for at the deadline")
    constants: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="alternative-specific constants per profile and mode (0 where none); "
        "scripts/calibrate_logit.py fits them",
    )


class LogitCommuter:
    """The logit model (see the module docstring); the commute world's `logit` mind."""

    def __init__(
        self,
        person: Commuter,
        models: PlanModels,
        seed: int,
        options: LogitOptions,
        sink: EventSink | None = None,
    ) -> None:
        self.id = person.id
        self.commuter = person
        self.models = models
        self.seed = seed
        self.options = options
        self.sink = sink
        km = person.profile.distance_km
        self.beliefs = {mode: first_guess(mode, km) for mode in models.rules.modes}
        self.constants = options.constants.get(person.profile_name, {})
        self.deadline_min = parse_hhmm(person.profile.deadline)
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
        left, arrival = float(trip["departure_min"]), trip.get("arrival_min")
        end = self.models.rules.window.end_min
        lateness = None if arrival is None else float(arrival) - float(trip["deadline_min"])
        seen = Belief(
            minutes=(float(arrival) if arrival is not None else end) - left,
            cost_eur=float(trip["cost_eur"]),
            burden_min=float(trip["walk_min"]) + float(trip["wait_min"]),
            risk=lateness_risk(lateness, self.commuter.person.flexibility_min),
        )
        self.beliefs[mode] = self.beliefs[mode].learn(seen, self.options.learning_rate)
        self.learned_day = int(trip["day"])

    def choose(self, day: int, now: datetime) -> Action:
        departures = {mode: self.departure(belief) for mode, belief in self.beliefs.items()}
        utilities = {
            mode: self.utility(mode, belief, departures[mode])
            for mode, belief in self.beliefs.items()
        }
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
        if self.sink is not None:
            decided = rule_decision(
                PURPOSE,
                plan.describe(),
                {
                    "plan": plan.model_dump(),
                    "probabilities": {m: round(p, 4) for m, p in probabilities.items()},
                    "utilities": {m: round(u, 4) for m, u in utilities.items()},
                    "beliefs": {m: asdict(b) for m, b in self.beliefs.items()},
                },
                extra={"day": day},
            )
            self.sink.emit(decided, t=now, agent=self.id)
        return trip_action(self.commuter, plan)

    def departure(self, belief: Belief) -> float:
        """The usual departure, or earlier to arrive `margin_min` before the deadline."""
        return departure(
            self.commuter.person,
            self.deadline_min,
            belief.minutes,
            self.options.margin_min,
            self.models.rules.window,
        )

    def utility(self, mode: str, belief: Belief, departure_min: float) -> float:
        cost = disutility(self.commuter.person, mode, belief, departure_min)
        return self.constants.get(mode, 0.0) - self.options.scale * cost

    def state(self) -> dict[str, Any]:
        return {
            "beliefs": {m: asdict(b) for m, b in self.beliefs.items()},
            "learned_day": self.learned_day,
        }

    def restore(self, state: Mapping[str, Any]) -> None:
        self.beliefs = {m: Belief(**b) for m, b in state["beliefs"].items()}
        self.learned_day = int(state["learned_day"])
