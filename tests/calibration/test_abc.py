"""ABC-SMC (experiments/abc.py) on models whose posterior is known in closed form."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from simulacra.experiments.abc import Prior, abc_smc, weighted_quantiles


def _noisy(sd: float, seed: int = 1):  # type: ignore[no-untyped-def]
    """A simulator of y = theta + N(0, sd) per parameter, counting its runs."""
    rng = np.random.default_rng(seed)
    calls: list[int] = []

    def simulate(theta: np.ndarray) -> np.ndarray:
        calls.append(len(theta))
        return theta + rng.normal(0.0, sd, size=theta.shape)

    return simulate, calls


def test_the_posterior_of_a_noisy_mean_is_the_observation_with_the_noise_as_its_width() -> None:
    """Flat prior, one observation y of theta + N(0, 0.5): the posterior is N(y, 0.5), its
    95% interval y -/+ 0.98. The prior's interval is 19 wide."""
    simulate, calls = _noisy(0.5)
    observed = [1.5, -2.0]
    found = abc_smc(
        [Prior(uniform=(-10, 10)), Prior(uniform=(-10, 10))],
        simulate,
        observed,
        particles=300,
        generations=8,
        max_runs=20_000,
    )
    post = found.posterior
    assert post.index >= 5 and abs(post.weights.sum() - 1) < 1e-9
    assert found.runs == sum(calls)
    for j, y in enumerate(observed):
        low, median, high = weighted_quantiles(
            post.particles[:, j], post.weights, (0.025, 0.5, 0.975)
        )
        assert abs(median - y) < 0.25
        assert low < y < high
        # ABC's tolerance widens it a little over the exact 1.96.
        assert 1.4 < high - low < 3.0
    # The tolerance shrinks from one generation to the next.
    epsilons = [g.epsilon for g in found.generations[1:]]
    assert epsilons == sorted(epsilons, reverse=True)


def test_a_run_budget_stops_it_and_the_last_full_generation_stands() -> None:
    simulate, calls = _noisy(0.5)
    found = abc_smc(
        [Prior(normal=(0, 3))], simulate, [2.0], particles=50, generations=20, max_runs=400
    )
    assert sum(calls) <= 400 and found.runs == sum(calls)
    assert "run budget" in found.stopped
    assert all(len(g.weights) == 50 for g in found.generations)


@settings(max_examples=20, deadline=None)
@given(st.floats(-4, 4), st.integers(0, 1000))
def test_particles_stay_inside_a_uniform_prior_and_weights_sum_to_one(y: float, seed: int) -> None:
    simulate, _ = _noisy(1.0, seed)
    found = abc_smc(
        [Prior(uniform=(-5, 5))],
        simulate,
        [y],
        particles=30,
        generations=3,
        max_runs=2000,
        seed=seed,
    )
    for generation in found.generations:
        assert ((generation.particles >= -5) & (generation.particles <= 5)).all()
        assert generation.weights.sum() == pytest.approx(1.0)
        assert (generation.distances <= generation.epsilon).all()
        assert len(generation.weights) <= generation.accepted <= generation.runs


def test_a_prior_says_what_is_wrong_with_it() -> None:
    with pytest.raises(ValidationError, match="give one prior"):
        Prior()
    with pytest.raises(ValidationError, match="low below high"):
        Prior(uniform=(3, 1))
    with pytest.raises(ValidationError, match="sd must be above 0"):
        Prior(normal=(0, 0))
