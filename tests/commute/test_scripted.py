"""The scripted stand-in reads only the prompt, as a language model would: its first plan
follows the identity (so the people of one profile spread over the modes); its reflections
and lessons state what happened; its plans decide from those facts by the commuter's weights
(a late taxi it remembers reopens the choice, a lesson of slow taxis makes fewer); and the
strike moves people one by one, not a whole profile on one day."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from simulacra.core import parse_hhmm
from simulacra.experiments import run
from simulacra.llm import Message, Request
from simulacra.mind.commuter import Profile, build_population, plan_models, prompts, scripted
from simulacra.worlds.commute import City, CommuteConfig

from .conftest import commute

SHIPPED = commute()
PROFILES = {n: Profile.model_validate(raw) for n, raw in SHIPPED.agents.profiles.items()}
assert isinstance(SHIPPED.world, CommuteConfig)
WINDOW = City(SHIPPED.world.city).window


def identity(profile: str, seed: int = 0) -> str:
    [person] = build_population(PROFILES, {profile: 1}, seed)
    return prompts.render_identity(person, plan_models(person.profile, WINDOW).rules)


def ask(user: str, seed: int = 1) -> Request:
    return Request(messages=(Message("system", prompts.SYSTEM), Message("user", user)), seed=seed)


def first_modes(text: str, seeds: range) -> Counter[str]:
    found: Counter[str] = Counter()
    for seed in seeds:
        for day in scripted.weekly(ask(text, seed))["days"]:
            found[day["mode"]] += 1
    return found


def test_the_person_is_read_back_from_the_prompt() -> None:
    profiles = {n: Profile.model_validate(raw) for n, raw in SHIPPED.agents.profiles.items()}
    [person] = build_population(profiles, {"elderly_resident": 1}, seed=4)
    text = prompts.render_identity(person, plan_models(person.profile, WINDOW).rules)
    read = scripted.person_of(text)
    assert (read.age, read.gender, read.income_eur) == (
        person.person.age,
        person.person.gender,
        person.person.income_eur,
    )
    assert (read.flexibility_min, read.habit_min) == (
        person.person.flexibility_min,
        person.person.habit_min,
    )
    for (name, weight), (same, shown) in zip(read.weights, person.person.weights, strict=True):
        assert name == same and weight == pytest.approx(shown, abs=0.01)


def test_the_first_plan_follows_the_identity_not_the_expectation() -> None:
    student = identity("student")
    # A student who minds the cost walks or rides the bus.
    assert first_modes(student, range(20))["taxi"] <= 5
    # The same trip for one whom time alone matters and who earns ten times as much: taxis.
    income = student.split("income ")[1].split(" EUR")[0]
    hurried = _weights(student, time=85, cost=5, comfort=5, punctuality=5)
    hurried = hurried.replace(f"income {income} EUR", f"income {int(income) * 10} EUR")
    assert first_modes(hurried, range(20)).most_common(1)[0][0] == "taxi"
    # The expectation, even where a scenario shows it, changes nothing.
    shown = student.replace(".\nTrip", ". Usual modes: taxi, bus.\nTrip", 1)
    assert "Usual modes" in shown
    assert first_modes(shown, range(20)) == first_modes(student, range(20))


def _weights(text: str, **percent: int) -> str:
    head, rest = text.split("What matters to me: ", 1)
    _, tail = rest.split(".", 1)
    shares = ", ".join(f"{k} {v}%" for k, v in percent.items())
    return f"{head}What matters to me: {shares}.{tail}"


DEADLINE = "08:45"  # the administrative worker's


def stated(day: int, mode: str, left: str, arrived: str | None, burden: int, cost: float) -> str:
    """A reflection as the stand-in writes it, through its own reflect responder."""
    outcome = f"{mode} departing {left}: did not arrive before the day ended (waited {burden} min)"
    if arrived is not None:
        late = parse_hhmm(arrived) - parse_hhmm(DEADLINE)
        when = f"{late:.0f} min late" if late > 0 else f"{-late:.0f} min early"
        outcome = (
            f"{mode} departing {left}: arrived {arrived} ({when}), waited {burden} min, rode 10 "
            f"min, walked 0 min, cost {cost:.2f} EUR"
        )
    text = f"{WORKER}\nThe plan of day {day}: {mode} at {left}.\nWhat happened: {outcome}."
    summary: str = scripted.reflect(ask(text))["summary"]
    return summary


WORKER = identity("administrative_worker")


def daily_prompt(planned: str, reflections: list[str]) -> str:
    lines = [
        f"Day {d}: (the world's sentence). Reflection: {said}"
        for d, said in enumerate(reflections, start=1)
    ]
    week = "\n".join(lines) or "(nothing yet this week)"
    return (
        f"{WORKER}\nThis week so far:\n{week}\nToday is Wednesday.\n"
        f"Planned for today: {planned} to city_centre.\nKeep or change today's plan "
        "(departure HH:MM, mode)."
    )


def test_a_reflection_states_what_happened_not_what_to_do() -> None:
    said = stated(12, "taxi", "07:40", "08:52", 38, 13.9)
    assert said == (
        "Day 12: the taxi at 07:40 arrived 08:52, 7 min late; 72 min door to door, 38 min "
        "walking and waiting, 13.90 EUR."
    )
    missed = stated(13, "taxi", "07:40", None, 260, 0.0)
    assert missed.startswith("Day 13: the taxi at 07:40 did not arrive by 12:00;")
    for text in (said, missed):
        assert not re.search(r"\b(switch|leave|keep|earlier|later)\b", text), text
        prompts.Reflection(summary=text)  # names an outcome, so it is no fallback


def test_the_daily_plan_stands_while_the_week_holds_nothing_of_its_mode() -> None:
    # Two good bus days say nothing about today's taxi.
    bus = [stated(d, "bus", "07:30", "07:52", 6, 1.5) for d in (1, 2)]
    assert scripted.daily(ask(daily_prompt("taxi at 07:30", bus))) == {
        "departure": "07:30",
        "mode": "taxi",
    }
    # A taxi that did as well as guessed keeps today's taxi as planned.
    quick = [stated(1, "taxi", "07:30", "07:47", 6, 8.6)]
    assert scripted.daily(ask(daily_prompt("taxi at 07:30", quick))) == {
        "departure": "07:30",
        "mode": "taxi",
    }


def test_a_remembered_late_taxi_reopens_the_choice_by_the_commuters_weights() -> None:
    late = [stated(1, "taxi", "07:30", "08:55", 60, 8.6)]  # 10 min late after an hour's wait
    text = daily_prompt("taxi at 07:30", late)
    changed = scripted.daily(ask(text))
    assert changed["mode"] == "bus"  # the bus's first guess now beats the taxi it lived
    # What it judged by: the trip as its reflection stated it, weighed by its own weights.
    situation = scripted.Situation.read(text)
    [trip] = scripted._remembered_trips(text, situation)
    assert (trip.day, trip.mode, trip.minutes, trip.burden_min, trip.late_min) == (
        1, "taxi", 85.0, 60.0, 10.0
    )  # fmt: skip
    # One to whom only the cost matters and who earns a fortune shrugs the hour off.
    rich = _weights(text, time=1, cost=97, comfort=1, punctuality=1)
    rich = re.sub(r"income \d+ EUR", "income 90000 EUR", rich)
    assert scripted.daily(ask(rich)) == {"departure": "07:30", "mode": "taxi"}


def test_a_remembered_late_bus_makes_the_commuter_leave_earlier_by_what_it_took() -> None:
    slow = [stated(1, "bus", "07:30", "08:50", 45, 1.5)]  # 80 min door to door, 5 min late
    only_bus = re.sub(
        r"Modes allowed: [a-z, ]+\.", "Modes allowed: bus.", daily_prompt("bus at 07:30", slow)
    )
    # Believed now: (the first guess, 26 min, + the 80 it took) / 2 = 53 min; to arrive 5
    # minutes before 08:45 it leaves by 07:47, on the 5-minute grid 07:45, and never later
    # than its usual time; a commuter who usually leaves at 07:50 leaves at 07:45.
    usual = re.sub(r"I usually leave at \d\d:\d\d", "I usually leave at 07:50", only_bus)
    assert scripted.daily(ask(usual)) == {"departure": "07:45", "mode": "bus"}


def test_the_lesson_states_each_modes_days_and_outcomes_and_the_next_week_reads_it() -> None:
    week = [
        stated(11, "taxi", "07:30", "09:05", 75, 8.6),
        stated(12, "taxi", "07:30", "09:20", 90, 8.6),
        stated(13, "bus", "07:30", "07:55", 8, 1.5),
        stated(14, "bus", "07:30", "07:55", 8, 1.5),
        stated(15, "bus", "07:30", "07:56", 9, 1.5),
    ]
    stm = "\n".join(f"Day {11 + i}: x. Reflection: {r}" for i, r in enumerate(week))
    lesson = scripted.abstract(ask(f"{WORKER}\nThis week:\n{stm}\nState the lesson."))
    assert lesson["pattern"] == (
        "Taxi on days 11-12: 102 min door to door, 82 walking and waiting, 8.60 EUR, late 2 "
        "times (up to 35 min); Bus on days 13-15: 25 min door to door, 8 walking and waiting, "
        "1.50 EUR."
    )
    prompts.Patterns(pattern=lesson["pattern"])
    shown = f"{WORKER}\nLessons from past weeks:\nWeek 3: {lesson['pattern']}\nPlan."
    none = f"{WORKER}\nLessons from past weeks:\n(none)\nPlan."
    taught, untaught = Counter[str](), Counter[str]()
    for seed in range(40):
        taught.update(d["mode"] for d in scripted.weekly(ask(shown, seed))["days"])
        untaught.update(d["mode"] for d in scripted.weekly(ask(none, seed))["days"])
    assert taught["taxi"] < untaught["taxi"] / 2, (taught, untaught)


def test_a_merge_states_the_weeks_modes_together() -> None:
    lessons = (
        "Week 1: Taxi on days 1-2: 20 min door to door, 6 walking and waiting, 8.60 EUR; Bus on "
        "day 3: 30 min door to door, 10 walking and waiting, 1.50 EUR.\nWeek 2: Taxi on days 6, "
        "8: 40 min door to door, 30 walking and waiting, 8.60 EUR, late once (up to 12 min)."
    )
    merged = scripted.merge(ask(f"{WORKER}\nLessons of the past weeks:\n{lessons}\nMerge."))
    assert merged["pattern"] == (
        "Taxi on days 1-2, 6, 8: 30 min door to door, 18 walking and waiting, 8.60 EUR, late "
        "once (up to 12 min); Bus on day 3: 30 min door to door, 10 walking and waiting, 1.50 "
        "EUR."
    )


def profile_split(root: Path, *changes: str) -> dict[str, Any]:
    scenario = commute(f"output.root={root}", "output.report=false", *changes)
    done = run(scenario, progress=False)
    metrics: dict[str, Any] = json.loads((done.path / "metrics.json").read_text())
    return metrics


def test_the_people_of_a_profile_spread_over_the_modes(tmp_path: Path) -> None:
    metrics = profile_split(tmp_path, "clock.ticks=5", "world.city.taxi_strikes=[]")
    for profile, split in metrics["modal_share"].items():
        if profile != "all":
            assert max(split.values()) < 85, (profile, split)  # no profile all of one mind


def test_the_strike_moves_people_one_by_one_not_a_whole_profile(tmp_path: Path) -> None:
    metrics = profile_split(
        tmp_path,
        "agents.mix={administrative_worker: 80}",
        "clock.ticks=9",
        "world.city.taxi_strikes=[{days: [6, 7, 8, 9], out_of_service: 0.8}]",
    )
    taxi = [metrics["modal_split"]["administrative_worker"][str(d)]["taxi"] for d in range(1, 10)]
    before, after = taxi[5], taxi[6]  # the strike's first day, when all still take taxis
    assert before > 40
    assert 0.1 * before < after < 0.9 * before, taxi  # some give the taxi up, not all
