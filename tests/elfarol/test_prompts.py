import pytest

from simulacra.llm import OutputError, parse_output
from simulacra.mind.elfarol import FALLBACK, BarChoice, Choice, Week, choose_prompt
from simulacra.worlds.elfarol import ElFarolConfig, ElFarolWorld

from .test_world import tick

# Week 15 of Arthur's example: the last five of his fourteen weeks, 60 seats for 100 people.
WEEK = Week(week=15, agents=100, seats=60, history=(84, 34, 45, 76, 40))


def test_the_prompt_shows_the_seats_and_the_weeks_remembered_oldest_first() -> None:
    system, user = choose_prompt(WEEK)
    assert "You are one of 100 people" in system.content
    assert "enjoyable when at most 60 people go" in system.content
    assert user.content.startswith("Week 15\n")
    assert (
        "- 5 weeks ago: 84 went (crowded)\n"
        "- 4 weeks ago: 34 went (enjoyable)\n"
        "- 3 weeks ago: 45 went (enjoyable)\n"
        "- 2 weeks ago: 76 went (crowded)\n"
        "- 1 week ago: 40 went (enjoyable)\n"
    ) in user.content
    assert '"choice" ("go" or "stay")' in user.content


def test_the_first_week_says_there_is_no_history_yet() -> None:
    _, user = choose_prompt(Week(week=1, agents=10, seats=6, history=()))
    assert "none yet: this is the first week" in user.content


def test_the_view_is_read_from_the_worlds_observation() -> None:
    config = ElFarolConfig(memory_weeks=5, history=(0.44, 0.78, 0.56, 0.15, 0.23, 0.67))
    world = ElFarolWorld(config, [str(i) for i in range(100)])
    facts = world.observe("0", "choose", tick(1)).facts
    assert Week.of(facts) == Week(week=1, agents=100, seats=60, history=(78, 56, 15, 23, 67))


def test_the_choice_is_an_enum_of_go_and_stay_in_the_schema() -> None:
    schema = BarChoice.model_json_schema()
    ref = schema["properties"]["choice"]["$ref"].rsplit("/", 1)[-1]
    assert schema["$defs"][ref]["enum"] == ["go", "stay"]
    assert schema["required"] == ["choice"]
    assert schema["properties"]["reason"]["maxLength"] == 160


def test_a_small_models_capitalised_choice_is_understood() -> None:
    parsed = parse_output('{"reason": "It was quiet.", "choice": " Go"}', BarChoice)
    assert parsed == BarChoice(reason="It was quiet.", choice=Choice.GO)


def test_a_choice_outside_go_and_stay_is_rejected() -> None:
    with pytest.raises(OutputError, match="choice"):
        parse_output('{"reason": "", "choice": "maybe"}', BarChoice)


def test_the_fallback_stays_home_and_says_it_is_a_fallback() -> None:
    assert FALLBACK.choice is Choice.STAY and "fallback" in FALLBACK.reason
