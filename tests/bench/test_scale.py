"""bench/scale.py builds its scenarios and its stand-in model's answers; the bench itself runs
only by hand (minutes), but what it builds must be valid, or it would measure fallbacks."""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from simulacra.mind.commuter import Profile, plan_models
from simulacra.mind.town.plan_check import using
from simulacra.mind.town.plan_prompts import DailyPlanOutput
from simulacra.mind.town.react_prompts import ReactionOutput
from simulacra.worlds.commute import City, CommuteConfig
from simulacra.worlds.town import TownConfig

BENCH = Path(__file__).parents[2] / "bench"


@pytest.fixture(scope="module")
def scale() -> ModuleType:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCH))
        return importlib.import_module("scale")


def test_a_generated_town_of_a_thousand_is_a_valid_scenario(
    scale: ModuleType, tmp_path: Path
) -> None:
    scenario = scale.town_scenario(1000, 2, tmp_path, "scripted")
    people = scenario.agents.personas
    assert len(people) == 1000
    assert len({p["id"] for p in people}) == 1000
    assert len({p["name"] for p in people}) == 1000
    homes = Counter(p["home"] for p in people)
    assert max(homes.values()) == scale.HOUSEHOLD
    # Willow Bend's public places are kept beside the new homes.
    assert isinstance(scenario.world, TownConfig)
    places = scenario.world.map.place_names
    assert "Hobbs Cafe" in places
    # Each resident's words name a workplace of the map, the first listed after its home, so
    # it knows one from the start: the stand-in's day plan sends it there.
    for person in people:
        named = [
            p for p in places if p.startswith("Workplace ") and f"at {p} " in person["background"]
        ]
        assert len(named) == 1
        after = places[places.index(person["home"]) :] + places
        assert named[0] == next(p for p in after if p.startswith("Workplace "))
    # The same residents every time.
    lots = ["A", "B", "C", "D", "E", "F", "G"]
    work = dict.fromkeys(lots, "W")
    assert scale.town_personas(50, lots, work) == scale.town_personas(50, lots, work)


def test_one_commute_answer_is_valid_for_every_profile(scale: ModuleType, tmp_path: Path) -> None:
    scenario = scale.commute_scenario(10_000, 20, tmp_path, "scripted")
    assert sum(scenario.agents.mix.values()) == 10_000
    assert isinstance(scenario.world, CommuteConfig)
    window = City(scenario.world.city).window
    answers = scale.commute_answers()
    for raw in scenario.agents.profiles.values():
        models = plan_models(Profile.model_validate(raw), window)
        # The client names the schema after the output model's class.
        models.week.model_validate_json(answers[models.week.__name__])
        models.day.model_validate_json(answers[models.day.__name__])


def test_the_town_day_is_read_off_the_prompt_and_the_rest_carries_on(scale: ModuleType) -> None:
    """A resident works at the first workplace the places list names after its home (a few
    doors down), and is home before and after; the other answers carry on."""
    answers = scale.town_answers()
    assert "DailyPlanOutput" not in answers  # the day plan is read off each prompt
    assert ReactionOutput.model_validate_json(answers["ReactionOutput"]).choice == "continue"
    card = "Name: Ann\nHome: Home 7\nPlaces: Workplace 1, Home 6, Home 7, Home 8, Workplace 2\n"
    request = {
        "response_format": {"json_schema": {"name": "DailyPlanOutput"}},
        "messages": [{"role": "user", "content": card}],
    }
    plan = DailyPlanOutput.model_validate_json(scale.town_reply(request))
    assert [(b.start, b.place) for b in plan.blocks] == [
        ("07:00", "Home 7"),
        ("08:00", "Workplace 2"),
        ("12:00", "Workplace 2"),
        ("13:00", "Workplace 2"),
        ("17:00", "Home 7"),
        ("22:00", "Home 7"),
    ]
    other = {"response_format": {"json_schema": {"name": "ReplanOutput"}}, "messages": []}
    assert scale.town_reply(other) is None


def test_the_hour_s_actions_are_valid_at_home_and_at_work(scale: ModuleType) -> None:
    """An action's object is an enum of the objects known where it is done: one answer must
    hold at a home's stove and a workplace's desk (a stove at work was a fallback a resident)."""
    answer = scale.town_answers()["ActionsOutput"]
    for objects in (("bed", "stove"), ("desk", "printer")):
        using(objects).model_validate_json(answer)
