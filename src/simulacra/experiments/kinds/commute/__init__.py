"""The commute world of the urban-mobility study, bound to the cognitive commuter's mind and to
the logit model beside it (`agents.mind: logit`, a classical baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from simulacra.core import Mind, parse_hhmm
from simulacra.errors import unknown
from simulacra.experiments.explain import explained
from simulacra.experiments.kinds.base import INTERVIEW, Ability, Binding, Cast, Services
from simulacra.experiments.kinds.commute.mix import mix_form, scale_mix
from simulacra.experiments.scenario import Scenario
from simulacra.llm import ScriptedModel
from simulacra.mind.commuter import (
    Commuter,
    CommuterAgent,
    CommuterOptions,
    CommuterPersona,
    LogitCommuter,
    LogitOptions,
    Profile,
    build_population,
    plan_models,
    population_of,
    script_commuters,
)
from simulacra.runlog import Event
from simulacra.worlds.commute import (
    MODES,
    TABLE5_COLUMNS,
    City,
    CommuteConfig,
    CommuteWorld,
    commute_metrics,
    executor_problem,
)


def _commute(scenario: Scenario) -> CommuteConfig:
    assert isinstance(scenario.world, CommuteConfig)
    return scenario.world


def _profiles(scenario: Scenario) -> dict[str, Profile]:
    return {name: Profile.model_validate(raw) for name, raw in scenario.agents.profiles.items()}


def people_of(scenario: Scenario) -> list[Commuter]:
    """The scenario's commuters: its population file (`agents.personas`, the first `count`
    of it where given), or else drawn from the profiles by `agents.mix`."""
    agents = scenario.agents
    if not agents.personas:
        return build_population(_profiles(scenario), agents.mix, scenario.seed)
    rows = [CommuterPersona.model_validate(raw) for raw in agents.personas][: agents.count]
    return population_of(_profiles(scenario), rows, City(_commute(scenario).city).distance_km)


def _mix_problems(scenario: Scenario) -> list[str]:
    problems: list[str] = []
    agents = scenario.agents
    form = mix_form(list(agents.profiles), agents.count)
    if not agents.mix:
        problems.append(
            f"scenario.agents.mix: give how many agents of each profile, as {form}; "
            "with agents.count, they are shares that count scales"
        )
    for name, count in agents.mix.items():
        if name not in agents.profiles:
            problems.append(
                f"scenario.agents.mix.{name}: {unknown('profile', name, list(agents.profiles))}"
            )
        if count < 0:
            problems.append(f"scenario.agents.mix.{name}: a count cannot be negative")
    if agents.mix and sum(agents.mix.values()) == 0:
        problems.append(f"scenario.agents.mix: adds up to no agent; give at least one, as {form}")
    return problems


def _persona_problems(scenario: Scenario) -> list[str]:
    """Each row of a population file: its fields, its profile, its zones; ids unique."""
    agents = scenario.agents
    zones = list(_commute(scenario).city.zones)
    problems: list[str] = []
    if agents.mix:
        problems.append(
            "scenario.agents.mix: the population file (agents.personas) lists who commutes; "
            "leave the mix out (agents.mix=null)"
        )
    seen: set[str] = set()
    for i, raw in enumerate(agents.personas):
        where = f"scenario.agents.personas[{i}]"
        try:
            row = CommuterPersona.model_validate(raw)
        except ValidationError as exc:
            problems += explained(exc.errors(), CommuterPersona, prefix=where)
            continue
        if row.profile not in agents.profiles:
            named = unknown("profile", row.profile, list(agents.profiles))
            problems.append(f"{where}.profile: {named}")
        for field in ("home", "work"):
            zone = getattr(row, field)
            if zone not in zones:
                problems.append(f"{where}.{field}: {unknown('zone', zone, zones)}")
        if row.home == row.work:
            problems.append(f"{where}.work: {row.work!r} is its home too; a commute needs two")
        if row.id in seen:
            problems.append(f"{where}.id: {row.id!r} is listed twice; ids must be unique")
        seen.add(row.id)
    return problems


def _days_problems(scenario: Scenario) -> list[str]:
    """Working days named by the world (strikes, announcements) before the first; those after
    the last are left out of the run (`CommuteBinding.trim`)."""
    config = _commute(scenario)
    problems = []
    for i, strike in enumerate(config.city.taxi_strikes):
        outside = [d for d in strike.days if d < 1]
        if outside:
            problems.append(
                f"scenario.world.city.taxi_strikes[{i}].days: {outside}: working days count from 1"
            )
    for day in config.environment:
        if day < 1:
            problems.append(
                f"scenario.world.environment.{day}: day {day}: working days count from 1"
            )
    return problems


def _days(days: list[int]) -> str:
    """Working days as a reader writes them: 11-15, 12, or 3, 7."""
    if len(days) > 1 and days == list(range(days[0], days[-1] + 1)):
        return f"{days[0]}-{days[-1]}"
    return ", ".join(map(str, days))


def _announcement_problems(scenario: Scenario, baseline: bool) -> list[str]:
    """An `event` is an announcement (worlds/commute/world.py): its text, and no change."""
    problems = []
    for i, item in enumerate(scenario.interventions):
        if item.type != "event":
            continue
        where = f"scenario.interventions[{i}]"
        if item.change:
            field = sorted(item.change)[0]
            problems.append(
                f"{where}.change: unknown field {field!r}; a commute event takes no change: "
                "its text is what every commuter is told that day"
            )
        if baseline:
            problems.append(
                f"{where}: the logit mind hears no announcement (agents.mind: commuter does)"
            )
    return problems


class CommuteBinding(Binding):
    name = "commute"
    # What agents are told each day, and the strikes' days and depth, are read day by day.
    forkable: ClassVar[tuple[str, ...]] = ("world.environment", "world.city.taxi_strikes")
    reads = frozenset({"run", "action", "decision"})
    # Table 5 and the modal split are percentages of trips.
    shares: ClassVar[dict[str, float]] = dict.fromkeys(
        (*TABLE5_COLUMNS, *(f"{mode}_share" for mode in MODES)), 100.0
    )
    changes = "nothing: the event's text is announced to every commuter on the day it fires"
    minds = ("commuter", "logit")
    baselines = ("logit",)
    options: ClassVar[dict[str, type[BaseModel]]] = {
        "commuter": CommuterOptions,
        "logit": LogitOptions,
    }
    ablations = ("Full", "A1", "B1")
    signature: ClassVar[dict[str, tuple[str, ...]]] = {
        "Table 5": TABLE5_COLUMNS,
        "modal split": tuple(f"{mode}_share" for mode in MODES),
        "taxi wait": ("taxi_wait_normal_min", "taxi_wait_strike_min"),
        "satisfaction": ("satisfaction",),
    }

    def roster(self, scenario: Scenario) -> list[str]:
        return [p.id for p in people_of(scenario)]

    def abilities(self, scenario: Scenario) -> set[Ability]:
        return set() if self.is_baseline(scenario) else {INTERVIEW}

    def check(self, scenario: Scenario) -> list[str]:
        problems: list[str] = []
        agents = scenario.agents
        city = City(_commute(scenario).city)
        profiles: dict[str, Profile] = {}
        for name, raw in agents.profiles.items():
            where = f"scenario.agents.profiles.{name}"
            try:
                profile = Profile.model_validate(raw)
            except ValidationError as exc:
                problems += explained(exc.errors(), Profile, prefix=where)
                continue
            profiles[name] = profile
            zones = list(city.config.zones)
            for field in ("home", "destination"):
                zone = getattr(profile, field)
                if zone not in zones:
                    problems.append(f"{where}.{field}: {unknown('zone', zone, zones)}")
            if profile.home in zones and profile.destination in zones:
                gap = city.distance_km(profile.home, profile.destination)
                if abs(gap - profile.distance_km) > 0.05:
                    problems.append(
                        f"{where}.distance_km: {profile.distance_km}, but the city puts "
                        f"{profile.home} and {profile.destination} {gap:g} km apart; move the "
                        "zones or fix the distance"
                    )
            deadline = parse_hhmm(profile.deadline)
            if not city.window.start_min < deadline <= city.window.end_min:
                problems.append(
                    f"{where}.deadline: {profile.deadline} is outside the day's trips "
                    f"({city.config.day_start}-{city.config.day_end}); move it into that window"
                )
            for mode in profile.allowed_modes:
                if mode not in MODES:
                    problems.append(f"{where}.allowed_modes: {unknown('mode', mode, list(MODES))}")
        if agents.personas:
            problems += _persona_problems(scenario)
        else:
            problems += _mix_problems(scenario)
        problems += _announcement_problems(scenario, self.is_baseline(scenario))
        problems += _figure_problems(scenario, profiles)
        problems += _constants_problems(scenario)
        problems += _days_problems(scenario)
        missing = executor_problem(_commute(scenario).executor)
        if missing:
            problems.append(f"scenario.world.executor: {missing}")
        clock = scenario.clock
        if clock.start.weekday() != 0:
            problems.append(
                f"scenario.clock.start: {clock.start:%Y-%m-%d} is a {clock.start:%A}; weekly "
                "plans run Monday to Friday, so start on a Monday"
            )
        if clock.tick.total_seconds() != 86400 or not clock.weekdays:
            problems.append(
                "scenario.clock: a commute ticks one working day: tick: 1d, weekdays: true"
            )
        return problems

    def resolve(self, scenario: Scenario) -> Scenario:
        """agents.count, where given, scales the mix to that many agents (kinds/commute/mix.py);
        a mix that cannot be scaled (a negative count, no agent) is left for `check`."""
        agents = scenario.agents
        weights = agents.mix.values()
        if agents.count is None or any(w < 0 for w in weights) or sum(weights) <= 0:
            return scenario
        mix = scale_mix(agents.mix, agents.count)
        return scenario.model_copy(update={"agents": agents.model_copy(update={"mix": mix})})

    def trim(self, scenario: Scenario, last: datetime) -> tuple[Scenario, list[str]]:
        config, days = _commute(scenario), len(scenario.clock.calendar().times())
        said: list[str] = []
        strikes = []
        for i, strike in enumerate(config.city.taxi_strikes):
            late = [d for d in strike.days if d > days]
            if late:
                said.append(f"world.city.taxi_strikes[{i}] on days {_days(late)}")
            kept = tuple(d for d in strike.days if d <= days)
            if kept:
                strikes.append(strike.model_copy(update={"days": kept}))
        late_news = sorted(d for d in config.environment if d > days)
        if late_news:
            said.append(f"world.environment on days {_days(late_news)}")
        if not said:
            return scenario, []
        city = config.city.model_copy(update={"taxi_strikes": tuple(strikes)})
        environment = {d: text for d, text in config.environment.items() if d <= days}
        world = config.model_copy(update={"city": city, "environment": environment})
        return scenario.model_copy(update={"world": world}), said

    def build(self, scenario: Scenario, services: Services) -> Cast:
        config = _commute(scenario)
        window = City(config.city).window
        profiles = _profiles(scenario)
        models = {name: plan_models(profile, window) for name, profile in profiles.items()}
        people = people_of(scenario)
        world = CommuteWorld(config, {p.id: p.profile.home for p in people}, services.workdir)
        options = self.mind_options(scenario)
        minds: dict[str, Mind] = {}
        for person in people:
            models_of = models[person.profile_name]
            if isinstance(options, LogitOptions):
                minds[person.id] = LogitCommuter(
                    person, models_of, scenario.seed, options, services.sink(person.id)
                )
                continue
            minds[person.id] = CommuterAgent(
                person,
                models_of,
                self.ablation(scenario) or "Full",
                scenario.seed,
                services.model,
                services.stream(person.id, scenario),
                services.sink(person.id),
                merge_every=options.merge_every,
                show_expectation=options.show_expectation,
            )
        return Cast(world, minds, services)

    def agents_info(self, cast: Cast) -> dict[str, dict[str, Any]]:
        found = {}
        for agent, mind in cast.minds.items():
            if isinstance(mind, CommuterAgent | LogitCommuter):
                who = mind.commuter.person
                found[agent] = {
                    "name": agent,
                    "profile": mind.commuter.profile_name,
                    "age": who.age,
                    "gender": who.gender,
                    "income_eur": who.income_eur,
                    "weights": dict(who.weights),
                    "flexibility_min": who.flexibility_min,
                    "habit": who.habit,
                    "home": mind.commuter.profile.home,
                    "destination": mind.commuter.profile.destination,
                }
        return found

    def script(self, model: ScriptedModel) -> None:
        script_commuters(model)

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        days = len(scenario.clock.calendar().times())
        expected = {name: p.expected_modes for name, p in _profiles(scenario).items()}
        return commute_metrics(events, _commute(scenario), days, expected)

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        return {k: float(v) for k, v in measures["headline"].items()}


def _constants_problems(scenario: Scenario) -> list[str]:
    """The logit model's constants must name profiles of the scenario and modes it knows."""
    raw = scenario.agents.options.get("logit", {})
    constants = raw.get("constants") if isinstance(raw, dict) else None
    if not isinstance(constants, dict):
        return []  # absent, or the options' own validation reports it
    where = "scenario.agents.options.logit.constants"
    problems = []
    for profile, by_mode in constants.items():
        if profile not in scenario.agents.profiles:
            named = unknown("profile", str(profile), list(scenario.agents.profiles))
            problems.append(f"{where}.{profile}: {named}")
        for mode in by_mode if isinstance(by_mode, dict) else ():
            if mode not in MODES:
                problems.append(f"{where}.{profile}.{mode}: {unknown('mode', mode, list(MODES))}")
    return problems


def _figure_problems(scenario: Scenario, profiles: dict[str, Profile]) -> list[str]:
    figures = _commute(scenario).figures
    where = "scenario.world.figures"
    problems = []
    mix = scenario.agents.mix
    for field in ("choices_profile", "trace_profile"):
        name = getattr(figures, field)
        if name is not None and name not in scenario.agents.profiles:
            named = unknown("profile", name, list(scenario.agents.profiles))
            problems.append(f"{where}.{field}: {named}")
    persona_faults = bool(scenario.agents.personas) and bool(_persona_problems(scenario))
    if figures.trace_agent is not None and set(mix) <= set(profiles) and not persona_faults:
        roster = [p.id for p in people_of(scenario)]
        if figures.trace_agent not in roster:
            problems.append(f"{where}.trace_agent: {unknown('agent', figures.trace_agent, roster)}")
    return problems


COMMUTE = CommuteBinding()
