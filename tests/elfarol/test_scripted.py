import pytest

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.elfarol import (
    FALLBACK,
    PREDICTORS,
    PURPOSE,
    BarChoice,
    Choice,
    Week,
    bag_of,
    choose_by_predictors,
    choose_prompt,
    script_elfarol,
)

SEEDS = range(200)


def forecast(name: str, history: list[int], agents: int = 100) -> int:
    (predictor,) = [p for p in PREDICTORS if p.name == name]
    return predictor.forecast(history, agents)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("same as last week", 40),
        ("same as 2 weeks ago", 76),
        ("same as 5 weeks ago", 84),
        ("mirror of last week around half", 60),
        ("mean of the last 4 weeks", 49),  # (34 + 45 + 76 + 40) / 4 = 48.75
        ("mirror of the 4-week mean around half", 51),
    ],
)
def test_arthurs_predictors_forecast_from_the_weeks_shown(name: str, expected: int) -> None:
    assert forecast(name, [84, 34, 45, 76, 40]) == expected


def test_a_trend_continues_the_line_and_stays_within_the_agents() -> None:
    assert forecast("trend of the last 4 weeks", [10, 20, 30, 40]) == 50
    assert forecast("trend of the last 4 weeks", [70, 80, 90, 100]) == 100


def test_an_agent_holds_three_distinct_predictors_fixed_by_its_seed() -> None:
    assert bag_of(7) == bag_of(7)
    assert len(set(bag_of(7))) == 3
    assert len({bag_of(seed) for seed in SEEDS}) > 100


def test_everyone_goes_after_weeks_of_a_quiet_bar_and_stays_after_weeks_of_a_crowded_one() -> None:
    # The mirror predictors err on a steady bar, so every agent trusts a steady forecast.
    quiet, crowded = [30] * 5, [80] * 5
    assert {choose_by_predictors(quiet, 100, 60, seed).choice for seed in SEEDS} == {Choice.GO}
    assert {choose_by_predictors(crowded, 100, 60, seed).choice for seed in SEEDS} == {Choice.STAY}


def test_agents_disagree_when_the_weeks_swing() -> None:
    choices = [choose_by_predictors([84, 34, 45, 76, 40], 100, 60, seed).choice for seed in SEEDS]
    assert 0 < choices.count(Choice.GO) < len(choices)


def test_the_reason_names_the_predictor_trusted_and_its_forecast() -> None:
    answer = choose_by_predictors([30] * 5, 100, 60, 3)
    assert answer.reason.endswith(": 30 will go.")


def test_with_no_history_an_agent_guesses_from_its_seed() -> None:
    answers = [choose_by_predictors([], 100, 60, seed) for seed in SEEDS]
    assert all(a.reason.startswith("No weeks to go by") for a in answers)
    assert {a.choice for a in answers} == {Choice.GO, Choice.STAY}
    assert choose_by_predictors([], 100, 60, 5) == choose_by_predictors([], 100, 60, 5)


async def test_the_scripted_model_answers_the_prompt_with_the_predictors() -> None:
    model = script_elfarol(ScriptedModel())
    week = Week(week=15, agents=100, seats=60, history=(84, 34, 45, 76, 40))
    for seed in (1, 2, 3):
        request = Request(
            messages=choose_prompt(week),
            output=BarChoice,
            fallback=FALLBACK,
            seed=seed,
            purpose=PURPOSE,
            agent="0",
        )
        completion = await model.complete(request)
        assert not completion.fallback
        assert completion.value == choose_by_predictors(list(week.history), 100, 60, seed)
    assert model.name == "scripted"
