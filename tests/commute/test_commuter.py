"""The cognitive commuter's weekly/daily/abstraction cycle, its memory stream and its fallbacks,
scripted model."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from tests.runs import same

from simulacra.core import DayWindow, parse_hhmm
from simulacra.embed import HashingEmbedder
from simulacra.engine import Clock, Engine, EventRouter
from simulacra.experiments import Scenario, ScenarioError, load_scenario, run
from simulacra.llm import Request, ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind.commuter import (
    CommuterAgent,
    DayPlan,
    Patterns,
    Profile,
    Reflection,
    build_population,
    plan_models,
    prompts,
    random_week,
    script_commuters,
    scripted,
)
from simulacra.mind.commuter.plans import window_pattern
from simulacra.runlog import EventWriter, RunDir, read_events
from simulacra.worlds.commute import City, CommuteConfig, CommuteWorld

from .conftest import NO_STRIKE, ONE_EACH, SCENARIO, commute

MONDAY = datetime(2025, 1, 6, 6, 0)
# The stand-in's lesson: per mode, its days and what they came to.
_LESSON = re.compile(
    r"^Week 1: ((Bus|Taxi|Walk) on days? [\d, -]+: \d+ min door to door[^;]*(; )?)+\.$"
)


@pytest.fixture
def small() -> Scenario:
    """The shipped scenario with one agent per profile and one week plus one day."""
    return commute(ONE_EACH, "clock.ticks=6", NO_STRIKE)


def city_of(scenario: Scenario) -> CommuteConfig:
    assert isinstance(scenario.world, CommuteConfig)
    return scenario.world


def agent_for(
    scenario: Scenario, model: ScriptedModel, ablation: str = "Full", merge_every: int = 4
) -> CommuterAgent:
    """The administrative worker, with its own in-memory memory stream."""
    profiles = {n: Profile.model_validate(raw) for n, raw in scenario.agents.profiles.items()}
    person = build_population(profiles, scenario.agents.mix, scenario.seed)[1]
    assert person.profile_name == "administrative_worker"
    models = plan_models(person.profile, City(city_of(scenario).city).window)
    memory = MemoryStream(person.id, HashingEmbedder())
    return CommuterAgent(person, models, ablation, 7, model, memory, merge_every=merge_every)


def engine_for(agent: CommuterAgent, scenario: Scenario, tmp_path: Path) -> Engine:
    """The one engine driving this one commuter through the scenario's working days."""
    world = CommuteWorld(city_of(scenario), {agent.id: agent.profile.home})
    router = EventRouter(EventWriter(tmp_path / "events.jsonl"), [agent.id])
    assert isinstance(agent.model, ScriptedModel)
    clock = Clock(scenario.clock.calendar())
    return Engine(world, {agent.id: agent}, model=agent.model, router=router, clock=clock, seed=0)


async def test_stm_grows_daily_is_cleared_weekly_and_ltm_gains_an_abstraction(
    small: Scenario, tmp_path: Path
) -> None:
    model = script_commuters(load_model("scripted"))
    agent = agent_for(small, model)
    engine = engine_for(agent, small, tmp_path)
    sizes = []
    for _ in range(5):
        await engine.step()
        sizes.append(len(agent.episodes))
    # Monday to Thursday each reflect on the day before; Friday reflects on itself, abstracts
    # the week and clears short-term memory.
    assert sizes == [0, 1, 2, 3, 0]
    [(_, lesson)] = agent.patterns
    assert _LESSON.match(lesson), lesson
    assert model.ledger.total.fallbacks == 0
    assert {p: t.calls for p, t in model.ledger.by_purpose.items()} == {
        "commute.weekly": 1,
        "commute.reflect": 5,
        "commute.daily": 5,
        "commute.abstract": 1,
    }
    # The next weekly plan reads the lesson from long-term memory: it plans only modes it
    # states, or first guesses for the others.
    seen: list[str] = []
    model.on("commute.weekly", lambda r: (seen.append(r.messages[-1].text), scripted.weekly(r))[1])
    await engine.step()
    assert f"Lessons from past weeks:\n{lesson}\n" in seen[0]
    assert agent.episodes == []  # Friday was reflected on in its own reflect phase


async def test_episodes_and_the_weekly_pattern_land_in_the_memory_stream(
    small: Scenario, tmp_path: Path
) -> None:
    agent = agent_for(small, script_commuters(load_model("scripted")))
    engine = engine_for(agent, small, tmp_path)
    for _ in range(5):
        await engine.step()
    records = agent.memory.recent(10)
    assert [r.kind for r in records] == ["episode"] * 5 + ["pattern"]
    episodes, pattern = records[:5], records[5]
    assert [r.text.split(":")[0] for r in episodes] == [f"Day {d}" for d in range(1, 6)]
    assert all("Reflection: " in r.text for r in episodes)
    assert [r.meta["day"] for r in episodes] == [1, 2, 3, 4, 5]
    # The pattern is the week's lesson and cites that week's episodes as its evidence.
    assert (pattern.id, pattern.text) == agent.patterns[0]
    assert pattern.evidence_ids == tuple(r.id for r in episodes)
    assert all(r.id.startswith(f"{agent.id}-") for r in records)
    # Invalidating an episode invalidates what was learnt from it.
    assert agent.memory.invalidate(episodes[2].id, "a wrong record") == [pattern.id]


async def test_the_reflection_reads_the_outcome_with_its_satisfaction(
    small: Scenario, tmp_path: Path
) -> None:
    model = script_commuters(load_model("scripted"))
    seen: list[str] = []

    def reflect(request: Request) -> dict[str, str]:
        seen.append(request.messages[-1].content)
        return {"summary": "The bus trip went fine."}

    model.on("commute.reflect", reflect)
    agent = agent_for(small, model)
    engine = engine_for(agent, small, tmp_path)
    for _ in range(2):
        await engine.step()
    [prompt] = seen
    found = re.search(r"satisfaction (\d\.\d\d) of 1 \(time [\d.]+, cost [\d.]+, comfort", prompt)
    assert found is not None, prompt
    # The identity it reflects as is its own: age, income and weights drawn for it.
    who = agent.commuter.person
    assert f"{who.age}, {who.gender}" in prompt and f"income {who.income_eur} EUR" in prompt


async def test_the_weekly_lessons_are_merged_and_the_merge_cites_them(
    small: Scenario, tmp_path: Path
) -> None:
    model = script_commuters(load_model("scripted"))
    plans: list[str] = []

    def plan(request: Request) -> Any:
        plans.append(request.messages[-1].content)
        return scripted.weekly(request)

    model.on("commute.weekly", plan)
    eleven_days = commute(ONE_EACH, "clock.ticks=11", NO_STRIKE)
    agent = agent_for(eleven_days, model, merge_every=2)
    engine = engine_for(agent, eleven_days, tmp_path)
    for _ in range(11):
        await engine.step()
    assert model.ledger.by_purpose["commute.merge"].calls == 1
    patterns = [r for r in agent.memory.recent(30) if r.kind == "pattern"]
    week1, week2, merged, _ = patterns  # the run's last day closes week 3 early
    assert merged.evidence_ids == (week1.id, week2.id) and merged.meta["merges"] == 2
    assert re.match(r"Weeks 1-2: (Bus|Taxi|Walk) on days [\d, -]+: ", merged.text), merged.text
    # The third week is planned from the merged lesson, in place of the two weeks it merged.
    assert f"Lessons from past weeks:\n{merged.text}\n" in plans[2]
    assert "Week 1:" in plans[1] and "Week 1:" not in plans[2]
    # Invalidating an episode takes down its week's lesson and the merge above it.
    assert set(agent.memory.invalidate(week1.evidence_ids[0], "wrong")) == {week1.id, merged.id}


async def test_the_a1_commuter_keeps_no_memory_and_b1_keeps_no_pattern(
    small: Scenario, tmp_path: Path
) -> None:
    kept = {}
    for ablation in ("A1", "B1"):
        agent = agent_for(small, script_commuters(load_model("scripted")), ablation)
        engine = engine_for(agent, small, tmp_path / ablation)
        for _ in range(6):
            await engine.step()
        kept[ablation] = [r.kind for r in agent.memory.recent(20)]
        assert agent.patterns == [] and agent.episodes == []
    # B1 reflects on Monday to Thursday (Friday's trip is reflected on only to abstract it).
    assert kept == {"A1": [], "B1": ["episode"] * 4}


async def test_weekly_fallback_is_a_random_valid_plan_after_three_failures(
    small: Scenario,
) -> None:
    model = load_model("scripted")
    attempts: list[int] = []

    def junk(request: Request) -> str:
        attempts.append(request.seed)
        return "I think I will take the bus, maybe"

    model.on("commute", junk)
    agent = agent_for(small, model)
    decision = await agent.plan_week(1, MONDAY)
    assert decision.fallback and len(attempts) == 3
    assert model.ledger.by_purpose["commute.weekly"].fallbacks == 1
    profile = agent.profile
    earliest, latest = (parse_hhmm(t) for t in profile.habit)  # its preferred departures
    for plan in agent.week:
        assert plan.mode in profile.allowed_modes and plan.destination == profile.destination
        assert earliest <= plan.departure_min <= latest and plan.departure_min % 5 == 0
    again = random_week(agent.models, profile, random.Random(1))
    assert type(again) is agent.models.week


async def test_daily_fallback_keeps_the_initial_plan_and_is_counted(small: Scenario) -> None:
    model = script_commuters(load_model("scripted"))
    agent = agent_for(small, model)
    await agent.plan_week(1, MONDAY)
    model.on("commute.daily", lambda request: {"departure": "25:99", "mode": "rocket"})
    decision = await agent.replan(1, 0, "", MONDAY)
    assert decision.fallback and agent.plan == agent.week[0]
    fallbacks = {p: t.fallbacks for p, t in model.ledger.by_purpose.items() if t.fallbacks}
    assert fallbacks == {"commute.daily": 1}


def test_plans_outside_the_window_or_the_allowed_modes_are_rejected(small: Scenario) -> None:
    models = agent_for(small, ScriptedModel()).models
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


def test_prompts_render_with_a_fixture(small: Scenario) -> None:
    agent = agent_for(small, ScriptedModel())
    plan = DayPlan(departure="08:00", mode="taxi", destination="city_centre")
    weekly = prompts.weekly_messages(agent.identity, "(none)")
    daily = prompts.daily_messages(agent.identity, "(nothing yet this week)", 2, "Rain.", plan)
    reflect = prompts.reflect_messages(agent.identity, 3, plan, "taxi departing 08:00: arrived")
    abstract = prompts.abstract_messages(agent.identity, "Day 1: ...")
    assert "Arrive by 08:45 (strict)" in weekly[1].content
    assert "Today is Wednesday. Rain." in daily[1].content
    assert "The plan of day 3: taxi at 08:00 to city_centre" in reflect[1].content
    assert "lesson" in abstract[1].content
    assert len(weekly[1].content) < 700  # compact enough for the embedded model
    assert Reflection(summary="  The bus was  fine.  ").summary == "The bus was fine."
    assert weekly[1].content.startswith("I am an administrative worker, ")


def test_the_expectation_is_told_only_where_the_scenario_asks(small: Scenario) -> None:
    # Table 4's expectation is what the study measures deviation from: not in the prompt.
    told = agent_for(small, ScriptedModel()).identity
    assert "Usual modes" not in told and "taxi, bus." not in told.split("Modes allowed")[0]
    profiles = {n: Profile.model_validate(raw) for n, raw in small.agents.profiles.items()}
    person = build_population(profiles, small.agents.mix, small.seed)[1]
    models = plan_models(person.profile, City(city_of(small).city).window)
    shown = prompts.render_identity(person, models.rules, show_expectation=True)
    assert "Usual modes: taxi, bus." in shown
    with_option = commute(ONE_EACH, "agents.options.commuter.show_expectation=true")
    assert with_option.agents.options["commuter"]["show_expectation"] is True


@pytest.mark.parametrize("said", ["", "{{", "{{ ", "  ", "ok then", "{ a b c }"])
def test_a_reflection_or_lesson_without_words_is_refused(said: str) -> None:
    for model, field in ((Reflection, "summary"), (Patterns, "pattern")):
        with pytest.raises(ValueError, match="says nothing"):
            model.model_validate({field: said})


@pytest.mark.parametrize(
    "said",
    [
        "Miscellaneous 1000s of useful tips for a better life.",
        "The plan failed, and the plan should change. The plan failed.",
    ],
)
def test_a_reflection_or_lesson_that_names_no_outcome_is_refused(said: str) -> None:
    for model, field in ((Reflection, "summary"), (Patterns, "pattern")):
        with pytest.raises(ValueError, match="names no outcome"):
            model.model_validate({field: said})
    # A loop is refused even where it names a mode.
    looping = "Modes allowed: walk, bus, taxi, taxi, taxi, taxi, taxi, taxi, taxi, taxi"
    with pytest.raises(ValueError, match="repeats 'taxi' 8 times in 12 words"):
        Patterns(pattern=looping)
    # A mode, a time or a day is enough.
    for named in ("The taxi was slow.", "I left at 07:40 and it worked.", "Late on day 3 again.",
                  "Waited 40 min for nothing.", "Wednesday went badly for me."):  # fmt: skip
        assert Reflection(summary=named).summary == named


def test_a_day_with_nothing_announced_is_not_called_normal(small: Scenario) -> None:
    agent = agent_for(small, ScriptedModel())
    plan = DayPlan(departure="08:00", mode="taxi", destination="city_centre")
    quiet = prompts.daily_messages(agent.identity, "(nothing yet this week)", 2, "", plan)[1]
    assert "Today is Wednesday.\nPlanned for today: taxi at 08:00" in quiet.text
    assert "normal" not in quiet.text and "announce" not in quiet.text
    assert city_of(small).environment_on(12) == ""  # a strike day of the shipped scenario


async def test_an_empty_reflection_is_a_counted_fallback(small: Scenario) -> None:
    model = script_commuters(load_model("scripted"))
    model.on("commute.reflect", lambda request: {"summary": "{{ "})
    agent = agent_for(small, model)
    await agent.plan_week(1, MONDAY)
    agent.plan = agent.week[0]
    trip = {"describe": "bus departing 08:00: arrived 08:30 (15 min early)"}
    decision = await agent.reflect(1, trip, MONDAY)
    assert decision.fallback
    assert decision.value == prompts.reflection_fallback(trip["describe"])
    assert model.ledger.by_purpose["commute.reflect"].fallbacks == 1


def test_the_plan_schema_allows_only_the_days_times_and_the_allowed_modes(
    small: Scenario,
) -> None:
    models = agent_for(small, ScriptedModel()).models
    day = models.week.model_json_schema()["$defs"][models.day.__name__]
    assert set(day["properties"]) == {"departure", "mode"}  # the identity fixes the destination
    times = re.compile(day["properties"]["departure"]["pattern"])
    assert all(times.match(t) for t in ("06:00", "07:32", "11:59"))
    assert not any(times.match(t) for t in ("05:59", "12:00", "18:00", "7:45", "24:00"))
    assert models.day.model_validate({"departure": "07:32", "mode": "bus"}).destination == (
        "city_centre"
    )
    assert window_pattern(DayWindow.of("06:35", "07:05")) == (
        "^(06:3[5-9]|06:4[0-9]|06:5[0-9]|07:0[0-4])$"
    )


def test_run_is_deterministic_and_ablations_call_the_model_as_designed(tmp_path: Path) -> None:
    def week(ablation: str, root: Path) -> RunDir:
        scenario = commute(
            ONE_EACH,
            "clock.ticks=5",
            NO_STRIKE,
            f"ablation={ablation}",
            f"output.root={root}",
            "output.report=false",
        )
        return run(scenario, progress=False)

    runs = {ablation: week(ablation, tmp_path / ablation) for ablation in ("A1", "B1", "Full")}
    calls = {v: r.info()["summary"]["calls_per_agent_tick"] for v, r in runs.items()}
    assert calls == {
        "A1": pytest.approx(1 / 5),
        "B1": pytest.approx(10 / 5),
        "Full": pytest.approx(12 / 5),
    }
    again = week("Full", tmp_path / "again")
    assert same(again, runs["Full"])
    for ablation, done in runs.items():
        metrics = json.loads((done.path / "metrics.json").read_text())
        assert metrics["punctuality"]["table"]["trips"] == 20, ablation
    kept = {
        v: Counter(e.data["kind"] for e in read_events(r.events_path, {"memory.add"}))
        for v, r in runs.items()
    }
    assert kept == {
        "A1": Counter(),
        "B1": Counter(episode=4 * 4),
        "Full": Counter(episode=4 * 5, pattern=4),
    }


def test_the_shipped_scenario_has_the_source_population() -> None:
    scenario = load_scenario(SCENARIO)
    profiles = {n: Profile.model_validate(raw) for n, raw in scenario.agents.profiles.items()}
    people = build_population(profiles, scenario.agents.mix, scenario.seed)
    assert len(people) == 320 and len(scenario.clock.calendar().times()) == 20
    distances = {p.profile_name: p.profile.distance_km for p in people}
    assert distances == {
        "student": 1.8,
        "administrative_worker": 4.0,
        "elderly_resident": 2.8,
        "factory_worker": 8.6,
    }
    assert len(City(city_of(scenario).city).taxis_in_service(12)) == 13


def test_a_profile_whose_distance_disagrees_with_the_city_is_refused() -> None:
    zones = (
        "world.city.zones={riverside: 0.4, west_end: 1.5, old_quarter: 3.0, city_centre: 6.5, "
        "hospital: 5.8, university: 6.2, student_quarter: 8.0, industrial_estate: 9.0}"
    )
    with pytest.raises(ScenarioError) as refused:
        load_scenario(SCENARIO, [zones])
    assert refused.value.problems == [
        "scenario.agents.profiles.administrative_worker.distance_km: 4.0, but the city puts "
        "west_end and city_centre 5 km apart; move the zones or fix the distance"
    ]
