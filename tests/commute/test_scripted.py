"""The scripted stand-in reads only the prompt, as a language model would: its first plan
follows the identity (so the people of one profile spread over the modes), its daily re-plan
follows the weekly plan until a reflection asks for a change, and the strike moves people one
by one, not a whole profile on one day."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

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


def daily_prompt(planned: str, episodes: list[tuple[str, str]]) -> str:
    lines = [
        f"Day {d}: {trip}: arrived 08:30 (15 min early), waited 2 min. Reflection: {said}"
        for d, (trip, said) in enumerate(episodes, start=1)
    ]
    week = "\n".join(lines) or "(nothing yet this week)"
    return (
        f"{identity('administrative_worker')}\nThis week so far:\n{week}\n"
        f"Today is Wednesday. A normal working day.\nPlanned for today: {planned} to "
        "city_centre.\nKeep or change today's plan (departure HH:MM, mode)."
    )


def test_the_daily_plan_follows_the_weekly_plan_while_reflections_keep_it() -> None:
    kept = daily_prompt(
        "taxi at 07:50",
        [("bus departing 07:40", "The plan worked; keep it."), ("bus departing 07:45", "Fine.")],
    )
    assert scripted.daily(ask(kept)) == {"departure": "07:50", "mode": "taxi"}


def test_a_change_a_reflection_asks_carries_on_from_yesterdays_trip() -> None:
    changed = daily_prompt(
        "taxi at 07:50",
        [
            ("taxi departing 07:40", "Late after a 40 min taxi wait; switch to bus and leave "
             "20 min earlier."),
            ("bus departing 07:20", "The plan worked; keep it."),
        ],
    )  # fmt: skip
    assert scripted.daily(ask(changed)) == {"departure": "07:20", "mode": "bus"}
    asked_today = daily_prompt(
        "taxi at 07:50", [("taxi departing 07:40", "Late by 10 min; leave 15 min earlier.")]
    )
    assert scripted.daily(ask(asked_today)) == {"departure": "07:25", "mode": "taxi"}


def test_lateness_within_the_flexibility_keeps_the_plan() -> None:
    flexible = identity("elderly_resident")
    assert "min late does no harm" in flexible
    allowed = int(flexible.split("up to ")[1].split(" min")[0])
    outcome = f"bus departing 09:00: arrived 10:0{min(allowed, 9)} ({min(allowed, 9)} min late)"
    said = scripted.reflect(ask(f"{flexible}\nYesterday's plan: x.\nWhat happened: {outcome}."))
    assert "keep it" in said["summary"]


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
