"""A share's interval never leaves its range: Wilson's score interval with the replicates'
effective sample size, which is Student's t where the share is far from 0 and the full scale."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.experiments import load_scenario
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.paired import interval_text
from simulacra.experiments.stats import (
    METHOD,
    T_AGREED,
    WILSON_COUNT,
    figure_ci,
    mean_ci,
    share_ci,
)


def test_two_runs_of_a_share_stay_inside_zero_and_one() -> None:
    # t gives 0.45 [-2.73, 3.63] from 0.2 and 0.7 (t(1) = 12.706, s = 0.354).
    assert mean_ci([0.2, 0.7]).low == pytest.approx(-2.7266, abs=1e-3)
    ci = share_ci([0.2, 0.7])
    # By hand: var of the mean 0.0625, trials 0.2475 / 0.0625 = 3.96, z^2 = 161.44,
    # centre (0.45 + 161.44 / 7.92) / (1 + 161.44 / 3.96) = 0.4988, half 0.4940.
    assert ci.mean == pytest.approx(0.45)
    assert (ci.low, ci.high) == (pytest.approx(0.0049, abs=1e-3), pytest.approx(0.9927, abs=1e-3))


def test_far_from_the_bounds_the_interval_is_student_s() -> None:
    values = [0.48, 0.52, 0.50, 0.47, 0.53, 0.49, 0.51, 0.50, 0.52, 0.48] * 3
    wilson, student = share_ci(values), mean_ci(values)
    assert wilson.low == pytest.approx(student.low, abs=2e-3)
    assert wilson.high == pytest.approx(student.high, abs=2e-3)


def test_shares_that_all_agree_count_each_replicate_as_one_trial_and_say_so() -> None:
    # Three runs at 0.50 are no certainty: Wilson's interval for 1.5 of 3 trials, z = 1.96.
    # By hand: shrink 1 + 3.8415 / 3 = 2.2805, half 1.96 / 2.2805 * sqrt(0.0833 + 0.1067)
    # = 0.3747 around 0.5.
    ci = share_ci([0.5, 0.5, 0.5])
    assert (ci.low, ci.high) == (pytest.approx(0.1253, abs=1e-3), pytest.approx(0.8747, abs=1e-3))
    assert ci.method == WILSON_COUNT
    # At the bounds too: none of 3, and all of 4 on a percentage scale, keep a width.
    assert share_ci([0.0, 0.0, 0.0]).high == pytest.approx(0.5615, abs=1e-3)
    assert share_ci([100.0] * 4, 100).low == pytest.approx(51.01, abs=0.01)
    assert share_ci([0.2, 0.7]).method == "wilson" and mean_ci([0.2, 0.7]).method == "t"


def test_only_the_shares_named_take_wilson_and_a_value_off_the_scale_falls_back() -> None:
    assert figure_ci("crowded_share", [0.2, 0.7], {"crowded_share": 1.0}).low >= 0
    assert figure_ci("attendance", [0.2, 0.7], {"crowded_share": 1.0}) == mean_ci([0.2, 0.7])
    assert figure_ci("crowded_share", [0.2, 1.7], {"crowded_share": 1.0}) == mean_ci([0.2, 1.7])


@given(
    st.lists(st.floats(min_value=0, max_value=1), min_size=2, max_size=12),
    st.sampled_from([1.0, 100.0]),
)
def test_a_share_s_interval_holds_its_mean_and_stays_in_range(
    values: list[float], scale: float
) -> None:
    ci = share_ci([v * scale for v in values], scale)
    assert ci.low is not None and ci.high is not None
    assert 0 <= ci.low <= ci.mean + 1e-9 * scale
    assert ci.mean - 1e-9 * scale <= ci.high <= scale


def test_the_town_s_count_of_aware_agents_is_no_share() -> None:
    # aware_final counts agents: runs where 0 and 1 are aware are a mean of 0.5 agents with
    # Student's interval (past 1 agent), not a share clamped inside [0, 1].
    scenario = load_scenario(Path(__file__).parents[2] / "scenarios" / "town.yaml")
    shares = binding_of(scenario).share_scales()
    assert "fallback_rate" in shares
    ci = figure_ci("aware_final", [0.0, 1.0], shares)
    assert ci == mean_ci([0.0, 1.0]) and ci.high > 1


def test_a_figure_whose_replicates_agree_has_a_zero_width_interval_marked_as_no_certainty() -> None:
    # Three runs that each gave 4 conversations: Student's t has no width, and the tables say
    # (a dagger, which METHOD explains) that this is the runs agreeing, not a certainty.
    agreed = mean_ci([4.0, 4.0, 4.0])
    assert (agreed.low, agreed.high, agreed.method) == (4.0, 4.0, T_AGREED)
    assert interval_text(agreed.as_dict()) == "4.00 [4.00, 4.00]\u2020"
    assert "(marked \u2020)" in METHOD and "no certainty" in METHOD
    # Any spread is Student's own, unmarked; a share that agrees keeps its own mark.
    spread = mean_ci([3.0, 4.0, 5.0])
    assert spread.method == "t" and interval_text(spread.as_dict()) == "4.00 [1.52, 6.48]"
    assert interval_text(share_ci([0.5, 0.5, 0.5]).as_dict()) == "0.50 [0.13, 0.87]*"
    assert mean_ci([4.0]).method == "t"  # one value: no interval at all, nothing to mark
