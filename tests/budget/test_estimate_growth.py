"""The estimate's prompt growth from one period to the next: worked by hand, and on the
scripted two-day town, whose second day's prompts quote a day more of memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.experiments import load_scenario, run
from simulacra.experiments.estimate import estimate
from simulacra.experiments.estimate_growth import growth, per_period, window
from simulacra.runlog import read_events

TOWN_2DAY = Path(__file__).resolve().parents[2] / "scenarios" / "town-2day.yaml"


def test_the_window_is_a_quarter_of_a_period_where_a_second_one_follows() -> None:
    assert window(84, 84, 168) == 21  # the two-day town: 07:00-10:30 of the second day
    assert window(5, 5, 20) == 1  # the commute's weeks: the second Monday
    assert window(1, 3, 30) == 0  # a tick a period: the ticks are the sample
    assert window(84, 84, 84) == 0  # one day only
    assert window(84, 60, 168) == 0  # a pilot short of a period


def test_growth_per_period_is_the_later_calls_mean_over_the_same_times_earlier() -> None:
    # A period of 4 ticks, a pilot of 6: ticks 4 and 5 are compared with ticks 0 and 1.
    calls = [(0, 100.0), (1, 120.0), (2, 500.0), (3, 500.0), (4, 150.0), (5, 190.0)]
    step, var = per_period(calls, period=4, pilot=6)
    # (150 + 190) / 2 - (100 + 120) / 2 = 170 - 110 = 60; the variances of the two means
    # are 20^2 * 2 / 1 / 2 = 400 and 10^2 * 2 / 1 / 2 = 100.
    assert step == pytest.approx(60) and var == pytest.approx(400 + 100)
    # 30 calls over 3 periods: 10 carry no step, 10 one, 10 two: 30 steps of 60.
    found = growth(30, 3, step, var)
    assert found.tokens == pytest.approx(30 * 60)
    assert found.variance == pytest.approx(30**2 * 500)


def test_a_purpose_seen_in_one_period_only_grows_nothing() -> None:
    assert per_period([(0, 100.0), (1, 90.0)], period=4, pilot=6) == (0.0, 0.0)
    assert per_period([(4, 100.0), (5, 90.0)], period=4, pilot=6) == (0.0, 0.0)
    assert growth(100, 1, 60, 10).tokens == 0


def test_the_second_day_of_a_town_is_estimated_with_its_longer_prompts(tmp_path: Path) -> None:
    scenario = load_scenario(
        TOWN_2DAY,
        [
            "model.spec=scripted",
            "agents.count=4",
            "memory.embedder=hashing",  # the growth is the memory's, not the embedder's
            f"output.root={tmp_path}",
            "output.report=false",
        ],
    )
    found = estimate(scenario, work=tmp_path / "pilots")
    first_day_only = estimate(scenario, pilot_ticks=84, work=tmp_path / "day-one")
    calls = list(read_events(run(scenario, progress=False).events_path, {"llm.call"}))
    tokens = sum(c.data["prompt_tokens"] + c.data["completion_tokens"] for c in calls)
    assert found.pilot_ticks == 84 + 21
    # Within the 15% (measured: +9%), and the interval covers the run.
    assert found.tokens.value == pytest.approx(tokens, rel=0.15) and found.tokens.covers(tokens)
    # The first day alone, its prompts carried flat into the second, falls short, and further
    # than the estimate that grows the prompts (measured: -10% against +9%; -28% before
    # retrieval took a top-k, when prompts grew with the whole stream).
    assert first_day_only.tokens.value < found.tokens.value
    assert abs(found.tokens.value - tokens) < abs(first_day_only.tokens.value - tokens)
