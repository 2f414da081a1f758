"""How satisfied a traveller is with one trip: the s_t of the source's section 4.2 carries
"travel duration, delays, costs, and satisfaction scores"; the source does not say how
satisfaction is scored, so here it is each priority's score weighted by the traveller's own
weights (its profile's priorities).

Each part is between 0 and 1:
- time: the quickest door-to-door time the city offers for the distance (a taxi that comes at
  once) over the trip's own; 0 when it did not arrive.
- cost: 1 - cost / budget, the budget being what the traveller is prepared to pay a trip.
- comfort: the mode's own comfort (taxi 1.0, bus 0.75, walk 0.6), less an hour's worth for
  every minute spent walking or waiting (an hour of either costs 1.0).
- punctuality: 1 at or before the deadline; 0.75 while within the traveller's flexibility
  after it, then falling to 0 over the next 30 minutes; 0 when it did not arrive.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from simulacra.worlds.commute.outcomes import TripOutcome

PRIORITIES = ("time", "cost", "comfort", "punctuality")
MODE_COMFORT = {"taxi": 1.0, "bus": 0.75, "walk": 0.6}
_GRACE_SCORE, _LATE_SPAN_MIN = 0.75, 30.0


@dataclass(frozen=True)
class Traveller:
    """What the world needs of a traveller to score a trip: its weights (by priority, summing
    to 1), its budget for a trip in EUR, and its flexibility in minutes."""

    weights: Mapping[str, float]
    budget_eur: float
    flexibility_min: float = 0.0

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> Traveller | None:
        """From a travel action's args (`priorities`, `budget_eur`, `flexibility_min`); None
        when the action carries no priorities."""
        raw = args.get("priorities")
        if not isinstance(raw, Mapping) or not raw:
            return None
        unknown = sorted(set(raw) - set(PRIORITIES))
        if unknown:
            raise ValueError(f"unknown priorities {unknown}; a trip is scored on {PRIORITIES}")
        weights = {k: float(v) for k, v in raw.items()}
        total = sum(weights.values())
        if total <= 0:
            raise ValueError("a traveller's priorities must have a positive weight")
        return cls(
            {k: weights.get(k, 0.0) / total for k in PRIORITIES},
            float(args.get("budget_eur", 0.0)),
            float(args.get("flexibility_min", 0.0)),
        )


def parts(outcome: TripOutcome, traveller: Traveller, quickest_min: float) -> dict[str, float]:
    """Each priority's score for `outcome` (see the module docstring)."""
    arrived = outcome.arrival_min is not None
    door_to_door = (outcome.arrival_min or 0.0) - outcome.departure_min
    time = min(1.0, quickest_min / door_to_door) if arrived and door_to_door > 0 else 0.0
    if outcome.cost_eur <= 0:
        cost = 1.0
    elif traveller.budget_eur <= 0:
        cost = 0.0
    else:
        cost = max(0.0, 1.0 - outcome.cost_eur / traveller.budget_eur)
    burden = (outcome.walk_min + outcome.wait_min) / 60.0
    comfort = min(1.0, max(0.0, MODE_COMFORT[outcome.mode] - burden))
    late = outcome.lateness_min
    if late is None:
        punctual = 0.0
    elif late <= 0:
        punctual = 1.0
    elif late <= traveller.flexibility_min:
        punctual = _GRACE_SCORE
    else:
        beyond = late - traveller.flexibility_min
        punctual = _GRACE_SCORE * max(0.0, 1.0 - beyond / _LATE_SPAN_MIN)
    found = {"time": time, "cost": cost, "comfort": comfort, "punctuality": punctual}
    return {k: round(v, 3) for k, v in found.items()}


def score(found: Mapping[str, float], traveller: Traveller) -> float:
    """The weighted sum of the parts: the trip's satisfaction, 0 to 1."""
    return round(sum(traveller.weights[k] * found[k] for k in PRIORITIES), 3)
