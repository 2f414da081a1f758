"""`run_commute(config, model, executor)`: commuters over working days on one executor.

Each day: new weekly plans on the cycle's first day; then, concurrently for every agent, a
reflection on yesterday (same cycle only) and a daily re-plan; then the executor runs the day.
On the cycle's last day the outcome is reflected on and abstracted (Full), and short-term
memory is cleared. Given the seed and a deterministic model, two runs are identical.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from simulacra.commuter.agent import CommuterAgent, Decision, Variant
from simulacra.commuter.plans import PLAN_DAYS, DayPlan, plan_models
from simulacra.llm import LanguageModel
from simulacra.runlog import EventWriter
from simulacra.worlds.commute import (
    MODES,
    City,
    CityConfig,
    ProfileBook,
    ProfileCount,
    PunctualitySummary,
    TripExecutor,
    TripOutcome,
    build_population,
    load_profiles,
    summarize,
)


class CommuteConfig(BaseModel):
    """The commute experiment: city, profiles, population mix, days, variant and seed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    city: CityConfig = CityConfig()
    profiles: ProfileBook
    population: tuple[ProfileCount, ...] = Field(min_length=1)
    days: int = Field(default=20, ge=1)
    variant: Variant = "Full"
    seed: int = 0
    # What agents are told each day; the strike is not announced (source 6.2).
    environment: dict[int, str] = Field(default_factory=dict)
    default_environment: str = "A normal working day; no announcements."
    # The calendar of the log: working day 1 is this Monday; weekends are skipped.
    start_date: date = date(2025, 1, 6)

    @model_validator(mode="after")
    def _starts_on_a_monday(self) -> CommuteConfig:
        if self.start_date.weekday() != 0:
            raise ValueError(
                f"start_date {self.start_date} is a {self.start_date:%A}; weekly plans run "
                "Monday to Friday, so give a Monday"
            )
        return self

    @model_validator(mode="after")
    def _profiles_fit_city(self) -> CommuteConfig:
        city = City(self.city)
        for line in self.population:
            profile = self.profiles.get(line.profile)
            for zone in (profile.home, profile.destination):
                city.position(zone)
            gap = city.distance_km(profile.home, profile.destination)
            if abs(gap - profile.distance_km) > 0.05:
                raise ValueError(
                    f"profile {line.profile}: distance_km {profile.distance_km} but the city puts "
                    f"{profile.home} and {profile.destination} {gap:g} km apart; move the zones "
                    "or fix the distance"
                )
        return self

    def environment_on(self, day: int) -> str:
        return self.environment.get(day, self.default_environment)

    def moment(self, day: int, minutes: float) -> datetime:
        """Simulated time of working day `day` (from 1) at `minutes` after midnight."""
        week, weekday = divmod(day - 1, PLAN_DAYS)
        midnight = datetime.combine(self.start_date, datetime.min.time())
        return midnight + timedelta(days=7 * week + weekday, minutes=minutes)


def load_commute_config(path: str | Path, **overrides: Any) -> CommuteConfig:
    """Read a commute scenario; `profiles:` may be a file path relative to the scenario."""
    path = Path(path)
    with path.open(encoding="utf-8") as fh:
        data: dict[str, Any] = yaml.safe_load(fh)
    section = dict(data.get("commute", data))
    if isinstance(section.get("profiles"), str):
        section["profiles"] = load_profiles(path.parent / section["profiles"]).model_dump()
    section.update(overrides)
    return CommuteConfig.model_validate(section)


@dataclass(frozen=True)
class DayRecord:
    """One agent's day: the plan executed, what happened, and whether it came from a fallback."""

    agent: str
    profile: str
    day: int
    plan: DayPlan
    outcome: TripOutcome
    replanned: bool
    plan_fallback: bool

    def outcome_place(self, book: ProfileBook) -> str:
        """Where the agent ended the morning: at work if it arrived, else still at home."""
        profile = book.get(self.profile)
        return profile.destination if self.outcome.completed else profile.home


@dataclass
class CommuteResults:
    variant: Variant
    agents: int
    days: int
    records: list[DayRecord] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    fallbacks: Counter[str] = field(default_factory=Counter)

    def summary(self) -> PunctualitySummary:
        return summarize(r.outcome for r in self.records)

    def calls_per_agent_day(self) -> float:
        return sum(self.calls.values()) / max(1, self.agents * self.days)

    def modal_split(self) -> dict[str, dict[int, dict[str, float]]]:
        """Percent of each profile's trips per mode, per day (the source's Figure 6)."""
        counts: dict[str, dict[int, Counter[str]]] = {}
        for r in self.records:
            counts.setdefault(r.profile, {}).setdefault(r.day, Counter())[r.plan.mode] += 1
        return {
            profile: {
                day: {mode: 100.0 * n / sum(c.values()) for mode, n in sorted(c.items())}
                for day, c in sorted(days.items())
            }
            for profile, days in sorted(counts.items())
        }

    def taxi_wait_by_day(self) -> dict[int, float]:
        """Mean taxi wait in minutes per day (the source's Figure 7), over taxi trips."""
        waits: dict[int, list[float]] = {}
        for r in self.records:
            if r.outcome.mode == "taxi":
                waits.setdefault(r.day, []).append(r.outcome.wait_min)
        return {day: sum(w) / len(w) for day, w in sorted(waits.items())}


DayHook = Callable[[int], None]


class _DayLog:
    """Writes a run's decisions, trips and one world event per day, stamped in simulated time."""

    def __init__(self, log: EventWriter | None, config: CommuteConfig, city: City) -> None:
        self.log = log
        self.config = config
        self.city = city

    def decision(self, agent: str, day: int, decision: Decision, *, end: bool = False) -> None:
        """Every decision keeps the raw output, the parsed value and whether a fallback was
        used."""
        if self.log is None:
            return
        window = self.city.window
        data = {"day": day, "purpose": decision.purpose, "value": decision.value.model_dump()}
        data |= {"fallback": decision.fallback, "raw": decision.raw, "error": decision.error}
        when = self.config.moment(day, window.end_min if end else window.start_min)
        self.log.emit("decision", data, t=when, agent=agent)

    def trip(self, record: DayRecord) -> None:
        if self.log is None:
            return
        outcome = record.outcome
        data: dict[str, Any] = {"profile": record.profile, "plan": record.plan.model_dump()}
        data |= {"replanned": record.replanned, "plan_fallback": record.plan_fallback}
        data |= asdict(outcome) | {
            "completed": outcome.completed,
            "lateness_min": outcome.lateness_min,
        }
        when = self.config.moment(record.day, outcome.departure_min)
        self.log.emit("trip", data, t=when, agent=record.agent)

    def world(self, day: int, records: Sequence[DayRecord]) -> None:
        """The day at a glance: modal split, taxi wait, punctuality, where everyone ended up."""
        if self.log is None:
            return
        modes: Counter[str] = Counter(r.plan.mode for r in records)
        by_profile: dict[str, Counter[str]] = {}
        for r in records:
            by_profile.setdefault(r.profile, Counter())[r.plan.mode] += 1
        waits = [r.outcome.wait_min for r in records if r.outcome.mode == "taxi"]
        zones = self.config.city.zones
        agents = {}
        for r in records:
            place = r.outcome_place(self.config.profiles)
            agents[r.agent] = {"place": place, "x": zones[place], "y": 0.0, "mode": r.plan.mode}
        data = {
            "tick": day - 1,
            "day": day,
            "strike": len(self.city.taxis_in_service(day)) < self.config.city.taxi.size,
            "taxis_in_service": len(self.city.taxis_in_service(day)),
            "modal_split": _percent(modes),
            "modal_split_by_profile": {p: _percent(c) for p, c in sorted(by_profile.items())},
            "taxi_trips": len(waits),
            "taxi_wait_min": round(sum(waits) / len(waits), 2) if waits else None,
            "punctuality": summarize(r.outcome for r in records).as_dict(),
            "agents": agents,
        }
        self.log.emit("world", data, t=self.config.moment(day, self.city.window.end_min))


def _percent(counts: Counter[str]) -> dict[str, float]:
    total = sum(counts.values())
    return {mode: round(100.0 * counts[mode] / total, 2) for mode in MODES} if total else {}


async def run_commute(
    config: CommuteConfig,
    model: LanguageModel,
    executor: TripExecutor,
    log: EventWriter | None = None,
    on_day: DayHook | None = None,
) -> CommuteResults:
    """Drive every agent over `config.days` working days and collect their outcomes.

    With `log`, every decision, every trip (kind `trip`) and one `world` event per day are
    written; `on_day(day)` is called after each day has run."""
    city = City(config.city)
    days_log = _DayLog(log, config, city)
    people = build_population(config.profiles, config.population)
    models = {name: plan_models(p, city.window) for name, p in config.profiles.profiles.items()}
    agents = [CommuterAgent(p, models[p.profile_name], config.variant, config.seed) for p in people]
    results = CommuteResults(config.variant, len(agents), config.days)
    yesterday: dict[str, TripOutcome] = {}
    plan_fallback: dict[str, bool] = {}

    async def start_day(agent: CommuterAgent, day: int, weekday: int) -> tuple[bool, bool]:
        if not agent.faculties.short_term:
            agent.keep_initial(weekday)
            return False, plan_fallback[agent.id]
        if weekday > 0:
            days_log.decision(
                agent.id, day, await agent.reflect(model, day - 1, yesterday[agent.id])
            )
        decision = await agent.replan(model, day, weekday, config.environment_on(day))
        days_log.decision(agent.id, day, decision)
        return True, decision.fallback

    async def end_week(agent: CommuterAgent, day: int, week: int) -> None:
        if agent.faculties.long_term:
            reflection = await agent.reflect(model, day, yesterday[agent.id])
            days_log.decision(agent.id, day, reflection, end=True)
            days_log.decision(agent.id, day, await agent.abstract(model, week), end=True)
        else:
            agent.end_week()

    for day in range(1, config.days + 1):
        weekday, week = (day - 1) % PLAN_DAYS, (day - 1) // PLAN_DAYS + 1
        if weekday == 0:
            weekly = await asyncio.gather(*(a.plan_week(model, week) for a in agents))
            for agent, decision in zip(agents, weekly, strict=True):
                days_log.decision(agent.id, day, decision)
                plan_fallback[agent.id] = decision.fallback
        starts = await asyncio.gather(*(start_day(a, day, weekday) for a in agents))
        outcomes = executor.execute_day(day, [a.trip() for a in agents])
        today = []
        for agent, (replanned, fallback), outcome in zip(agents, starts, outcomes, strict=True):
            assert agent.plan is not None
            yesterday[agent.id] = outcome
            record = DayRecord(
                agent.id, agent.person.profile_name, day, agent.plan, outcome, replanned, fallback
            )
            today.append(record)
            days_log.trip(record)
        results.records.extend(today)
        days_log.world(day, today)
        if weekday == PLAN_DAYS - 1 or day == config.days:
            await asyncio.gather(*(end_week(a, day, week) for a in agents))
        if on_day is not None:
            on_day(day)
    for agent in agents:
        results.calls.update(agent.calls)
        results.fallbacks.update(agent.fallbacks)
    return results


def ablation_table(results: Sequence[CommuteResults]) -> list[dict[str, float | str]]:
    """One Table-5 row per result: variant, early, late, on_time, incomplete, completion."""
    rows: list[dict[str, float | str]] = []
    for r in results:
        row: dict[str, float | str] = {"variant": r.variant}
        row.update({k: round(v, 2) for k, v in r.summary().as_dict().items()})
        rows.append(row)
    return rows
