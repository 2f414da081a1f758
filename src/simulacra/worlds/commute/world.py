"""The commute world: a working day is one tick, in up to three phases.

`plan`: each commuter decides today's trip (`Action("travel", args={mode, departure_min,
origin, destination, deadline})`, and optionally the traveller's `priorities`, `budget_eur`
and `flexibility_min`, by which the world scores each trip's satisfaction), which the world
books. `travel`: the executor runs the day
with every booked trip, and each trip's outcome is the agent's action event. `reflect` (the
week's last working day, and the run's last): the commuters look back; the world does nothing.

Observations carry `day` (from 1), `weekday` (0 for Monday), `week` (from 1), `environment`
(what agents are told today) and `last_trip`, the latest trip's outcome (`describe`, a
sentence, and its fields), or None before the first; and `announcement` on a day an `event`
intervention announced something (its text, which is then that day's environment too).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from simulacra.core import Action, Observation, Outcome, Phase, Resolution, Tick, parse_hhmm
from simulacra.worlds.commute.city import City
from simulacra.worlds.commute.config import CommuteConfig
from simulacra.worlds.commute.executor import open_executor
from simulacra.worlds.commute.outcomes import MODES, Trip, TripOutcome, summarize
from simulacra.worlds.commute.satisfaction import Traveller, parts, score

WEEK_DAYS = 5
PLAN, TRAVEL, REFLECT = Phase("plan"), Phase("travel", minds=False), Phase("reflect")


def week_of(day: int) -> tuple[int, int]:
    """(weekday from 0, week from 1) of working day `day` (from 1)."""
    return (day - 1) % WEEK_DAYS, (day - 1) // WEEK_DAYS + 1


class CommuteWorld:
    def __init__(
        self,
        config: CommuteConfig,
        homes: Mapping[str, str],
        workdir: Path | None = None,
    ) -> None:
        """`homes`: each agent's home zone, in roster order (where it is before its trip)."""
        self.config = config
        self.city = City(config.city)
        self.homes = dict(homes)
        self.executor = open_executor(config.executor, self.city, workdir)
        self.booked: dict[str, Trip] = {}
        self.travellers: dict[str, Traveller] = {}
        self.last: dict[str, TripOutcome] = {}
        self._today: dict[str, TripOutcome] = {}
        self.news: dict[int, str] = {}  # day -> what an intervention announced that day

    # --- the World protocol -------------------------------------------------------------

    def layout(self) -> dict[str, Any]:
        zones = self.config.city.zones
        return {
            "kind": "commute",
            "places": [
                {"name": zone, "kind": "zone", "x": x - 0.1, "y": -0.1, "w": 0.2, "h": 0.2}
                for zone, x in zones.items()
            ],
            "stops": [
                {"name": f"stop {i}", "x": x, "y": 0.4} for i, x in enumerate(self.city.stops)
            ],
        }

    def phases(self, tick: Tick) -> Sequence[Phase]:
        weekday, _ = week_of(tick.step)
        end_of_week = weekday == WEEK_DAYS - 1 or tick.last
        return [PLAN, TRAVEL, REFLECT] if end_of_week else [PLAN, TRAVEL]

    def observe(self, agent: str, phase: str, tick: Tick) -> Observation:
        weekday, week = week_of(tick.step)
        last = self.last.get(agent)
        trip = None if last is None else {"describe": last.describe(), **vars(last)}
        place = self._where(agent) if agent in self._today else self.homes[agent]
        facts = {
            "day": tick.step,
            "weekday": weekday,
            "week": week,
            "environment": self.news.get(tick.step) or self.config.environment_on(tick.step),
            "last_trip": trip,
        }
        if tick.step in self.news:
            facts["announcement"] = self.news[tick.step]
        return Observation(agent, place, facts=facts)

    def intervene(self, change: Mapping[str, Any], tick: Tick) -> Resolution:
        """An announcement (`text`): every commuter is told it today, before planning."""
        said = str(change.get("text", ""))
        earlier = self.news.get(tick.step)
        self.news[tick.step] = f"{earlier} {said}" if earlier else said
        return Resolution()

    def resolve(self, phase: str, actions: Mapping[str, Action], tick: Tick) -> Resolution:
        if phase == PLAN.name:
            for agent, action in actions.items():
                self.booked[agent] = _trip(agent, action)
                traveller = Traveller.of(action.args)
                if traveller is not None:
                    self.travellers[agent] = traveller
            return Resolution()
        if phase != TRAVEL.name:
            return Resolution()
        agents = [a for a in self.homes if a in self.booked]
        done = self.executor.execute_day(tick.step, [self.booked[a] for a in agents])
        outcomes = {}
        for agent, outcome in zip(agents, done, strict=True):
            outcome = self._scored(agent, outcome)
            self.last[agent] = self._today[agent] = outcome
            facts = {
                "description": f"{outcome.mode} departing at {outcome.departure_min:g} min",
                **vars(outcome),
                "completed": outcome.completed,
                "lateness_min": outcome.lateness_min,
            }
            outcomes[agent] = Outcome(True, facts=facts)
        return Resolution(outcomes=outcomes)

    def frame(self) -> dict[str, Any]:
        """The day at a glance: modal split, taxi wait, punctuality, where everyone ended up."""
        today = list(self._today.values())
        day = today[0].day if today else 0
        modes: Counter[str] = Counter(o.mode for o in today)
        waits = [o.wait_min for o in today if o.mode == "taxi"]
        zones = self.config.city.zones
        agents = {}
        for agent in self.homes:
            place = self._where(agent) if agent in self._today else self.homes[agent]
            mode = self._today[agent].mode if agent in self._today else None
            agents[agent] = {"place": place, "x": zones[place], "y": 0.0, "action": mode}
        in_service = len(self.city.taxis_in_service(day)) if day else self.config.city.taxi.size
        return {
            "day": day,
            "strike": in_service < self.config.city.taxi.size,
            "taxis_in_service": in_service,
            "modal_split": _percent(modes),
            "taxi_trips": len(waits),
            "taxi_wait_min": round(sum(waits) / len(waits), 2) if waits else None,
            "punctuality": summarize(today).as_dict(),
            "agents": agents,
        }

    def advance(self, tick: Tick) -> None:
        self.booked = {}
        self.travellers = {}
        self._today = {}

    def snapshot(self) -> dict[str, Any]:
        return {
            "last": {a: dict(vars(o)) for a, o in self.last.items()},
            "news": {str(day): text for day, text in self.news.items()},
        }

    def restore(self, snapshot: Mapping[str, Any]) -> None:
        self.last = {a: TripOutcome(**o) for a, o in snapshot["last"].items()}
        self.news = {int(day): str(text) for day, text in snapshot.get("news", {}).items()}

    def _scored(self, agent: str, outcome: TripOutcome) -> TripOutcome:
        traveller = self.travellers.get(agent)
        if traveller is None:
            return outcome
        quickest = self.city.quickest_minutes(outcome.distance_km)
        found = parts(outcome, traveller, quickest)
        return replace(outcome, satisfaction=score(found, traveller), satisfaction_parts=found)

    def _where(self, agent: str) -> str:
        """Where the agent ended today's trip: at work if it arrived, else still at home."""
        arrived = self._today[agent].completed
        return self.booked[agent].destination if arrived else self.homes[agent]


def _trip(agent: str, action: Action) -> Trip:
    args = action.args
    return Trip(
        agent=agent,
        mode=args["mode"],
        departure_min=float(args["departure_min"]),
        origin=str(args["origin"]),
        destination=str(args["destination"]),
        deadline_min=parse_hhmm(str(args["deadline"])),
    )


def _percent(counts: Counter[str]) -> dict[str, float]:
    total = sum(counts.values())
    return {mode: round(100.0 * counts[mode] / total, 2) for mode in MODES} if total else {}
