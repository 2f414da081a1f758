"""The cognitive commuter's weekly/daily/abstraction cycle and its fallbacks, scripted model."""

from __future__ import annotations

import random

import pytest

from simulacra.commuter import (
    CommuteConfig,
    CommuterAgent,
    DayRecord,
    Reflection,
    ablation_table,
    plan_models,
    prompts,
    random_week,
    run_commute,
    script_commuters,
)
from simulacra.commuter.plans import DayPlan
from simulacra.llm import Request, load_model
from simulacra.worlds.commute import BuiltinExecutor, City, build_population, parse_hhmm

from .conftest import SCENARIO


def agent_for(config: CommuteConfig, variant: str = "Full") -> CommuterAgent:
    person = build_population(config.profiles, config.population)[1]  # administrative worker
    models = plan_models(person.profile, City(config.city).window)
    return CommuterAgent(person, models, variant, seed=7)  # type: ignore[arg-type]


async def test_stm_grows_daily_is_cleared_weekly_and_ltm_gains_an_abstraction(
    small_config: CommuteConfig,
) -> None:
    model = script_commuters(load_model("scripted"))
    agent = agent_for(small_config)
    executor = BuiltinExecutor(City(small_config.city))
    await agent.plan_week(model, week=1)
    assert len(agent.week) == 5
    sizes = []
    for day in range(1, 6):
        weekday = day - 1
        if weekday:
            await agent.reflect(model, day - 1, outcome)  # noqa: F821 - set below on day 1
        sizes.append(len(agent.stm))
        await agent.replan(model, day, weekday, "A normal working day.")
        [outcome] = executor.execute_day(day, [agent.trip()])
    await agent.reflect(model, 5, outcome)
    assert sizes == [0, 1, 2, 3, 4] and len(agent.stm) == 5
    await agent.abstract(model, week=1)
    assert len(agent.stm) == 0 and len(agent.ltm) == 1
    assert "keep" in agent.ltm.patterns[0].text
    assert sum(agent.fallbacks.values()) == 0
    assert agent.calls == {
        "commute.weekly": 1,
        "commute.reflect": 5,
        "commute.daily": 5,
        "commute.abstract": 1,
    }
    # The next weekly plan reads the lesson from long-term memory.
    await agent.plan_week(model, week=2)
    assert agent.ltm.patterns[0].text.split("keep ")[1].startswith(agent.week[0].mode)


async def test_weekly_fallback_is_a_random_valid_plan_after_three_failures(
    small_config: CommuteConfig,
) -> None:
    model = load_model("scripted")
    attempts: list[int] = []

    def junk(request: Request) -> str:
        attempts.append(request.seed)
        return "I think I will take the bus, maybe"

    model.on("commute", junk)
    agent = agent_for(small_config)
    decision = await agent.plan_week(model, week=1)
    assert decision.fallback and len(attempts) == 3
    assert agent.fallbacks["commute.weekly"] == 1
    profile = agent.profile
    deadline = parse_hhmm(profile.deadline)
    for plan in agent.week:
        assert plan.mode in profile.allowed_modes and plan.destination == profile.destination
        assert deadline - 90 <= plan.departure_min <= deadline - 20
    again = random_week(agent.models, profile, random.Random(1))
    assert type(again) is agent.models.week


async def test_daily_fallback_keeps_the_initial_plan_and_is_counted(
    small_config: CommuteConfig,
) -> None:
    model = script_commuters(load_model("scripted"))
    agent = agent_for(small_config)
    await agent.plan_week(model, week=1)
    model.on("commute.daily", lambda request: {"departure": "25:99", "mode": "rocket"})
    decision = await agent.replan(model, day=1, weekday=0, environment="A normal working day.")
    assert decision.fallback and agent.plan == agent.week[0]
    assert agent.fallbacks == {"commute.daily": 1}


def test_plans_outside_the_window_or_the_allowed_modes_are_rejected(
    small_config: CommuteConfig,
) -> None:
    models = agent_for(small_config).models
    good = {"departure": "07:45", "mode": "bus", "destination": "city_centre"}
    assert models.day.model_validate(good).departure_min == 465
    for bad in (
        {"departure": "05:59"},
        {"departure": "7:45"},
        {"mode": "car"},
        {"destination": "beach"},
    ):
        with pytest.raises(ValueError):
            models.day.model_validate(good | bad)
    schema = models.day.model_json_schema()
    assert schema["properties"]["mode"]["enum"] == ["taxi", "bus", "walk"]


def test_prompts_render_with_a_fixture(small_config: CommuteConfig) -> None:
    agent = agent_for(small_config)
    plan = DayPlan(departure="08:00", mode="taxi", destination="city_centre")
    weekly = prompts.weekly_messages(agent.identity, "(none)")
    daily = prompts.daily_messages(agent.identity, "(nothing yet this week)", 2, "Rain.", plan)
    reflect = prompts.reflect_messages(agent.identity, plan, "taxi departing 08:00: arrived")
    abstract = prompts.abstract_messages(agent.identity, "Day 1: ...")
    assert "Arrive by 08:45 (strict)" in weekly[1].content
    assert "Today is Wednesday. Rain." in daily[1].content
    assert "taxi at 08:00 to city_centre" in reflect[1].content
    assert "lesson" in abstract[1].content
    assert len(weekly[1].content) < 700  # compact enough for the embedded model
    assert Reflection(summary="  fine  ").summary == "fine"


async def test_run_is_deterministic_and_variants_call_the_model_as_designed(
    small_config: CommuteConfig,
) -> None:
    city = City(small_config.city)
    runs = {}
    for variant in ("A1", "B1", "Full"):
        config = small_config.model_copy(update={"variant": variant, "days": 5})
        runs[variant] = await run_commute(
            config, script_commuters(load_model("scripted")), BuiltinExecutor(city)
        )
    assert runs["A1"].calls_per_agent_day() == pytest.approx(1 / 5)
    assert runs["B1"].calls_per_agent_day() == pytest.approx(10 / 5)
    assert runs["Full"].calls_per_agent_day() == pytest.approx(12 / 5)
    again = await run_commute(
        small_config.model_copy(update={"variant": "Full", "days": 5}),
        script_commuters(load_model("scripted")),
        BuiltinExecutor(city),
    )

    # Each run builds its own plan classes, so plans are compared by value.
    def view(records: list[DayRecord]) -> list[tuple[object, ...]]:
        return [(r.agent, r.day, r.plan.model_dump(), r.outcome, r.plan_fallback) for r in records]

    assert view(again.records) == view(runs["Full"].records)
    rows = ablation_table(list(runs.values()))
    assert [r["variant"] for r in rows] == ["A1", "B1", "Full"]
    assert all(r["trips"] == 20 for r in rows)


def test_the_shipped_scenario_has_the_source_population() -> None:
    from simulacra.commuter import load_commute_config

    config = load_commute_config(SCENARIO)
    people = build_population(config.profiles, config.population)
    assert len(people) == 320 and config.days == 20
    distances = {p.profile_name: p.profile.distance_km for p in people}
    assert distances == {
        "student": 1.8,
        "administrative_worker": 4.0,
        "elderly_resident": 2.8,
        "factory_worker": 8.6,
    }
    assert len(City(config.city).taxis_in_service(12)) == 13


def test_a_profile_whose_distance_disagrees_with_the_city_is_refused() -> None:
    from simulacra.commuter import load_commute_config

    with pytest.raises(ValueError, match="distance_km"):
        load_commute_config(
            SCENARIO,
            city={
                "zones": {
                    "riverside": 0.4,
                    "west_end": 1.5,
                    "old_quarter": 3.0,
                    "city_centre": 6.5,
                    "hospital": 5.8,
                    "university": 6.2,
                    "student_quarter": 8.0,
                    "industrial_estate": 9.0,
                }
            },
        )
