"""Approximate Bayesian computation by sequential Monte Carlo (ABC-SMC), the population Monte
Carlo form of Beaumont, Cornuet, Marin and Robert (2009) with an adaptive tolerance (each
generation's is a quantile of the last one's distances, as in Del Moral, Doucet and Jasra
2012 and pyabc's default).

Generation 0 draws its particles from the prior and keeps them all. Each later generation
proposes by picking a particle of the last by its weight and moving it by a Gaussian kernel
whose covariance is twice the last generation's weighted covariance; a proposal outside the
prior's support is drawn again without a run. Proposals are simulated a batch at a time (one
batch is one set of runs, side by side); those whose distance is within the tolerance are
kept, until the generation has its particles. A kept particle weighs its prior density over
the kernel's mixture density of the last generation. The last complete generation is the
posterior sample.

It stops after `generations`, when a generation accepts under `min_acceptance` of its runs,
or when the next batch would pass the run budget (`max_runs`); a generation the budget cut
short is dropped, and the last complete one stands.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, model_validator

# Simulate a batch: parameters (runs x parameters) -> statistics (runs x statistics).
Simulate = Callable[[np.ndarray], np.ndarray]


class Prior(BaseModel):
    """One parameter's prior: `uniform: [low, high]` or `normal: [mean, sd]`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uniform: tuple[float, float] | None = None
    normal: tuple[float, float] | None = None

    @model_validator(mode="after")
    def _one(self) -> Prior:
        if (self.uniform is None) == (self.normal is None):
            raise ValueError("give one prior: uniform: [low, high] or normal: [mean, sd]")
        if self.uniform is not None and not self.uniform[0] < self.uniform[1]:
            raise ValueError(f"uniform {list(self.uniform)}: write [low, high], low below high")
        if self.normal is not None and not self.normal[1] > 0:
            raise ValueError(f"normal {list(self.normal)}: the sd must be above 0")
        return self

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        if self.uniform is not None:
            return rng.uniform(*self.uniform, size=n)
        assert self.normal is not None
        return rng.normal(*self.normal, size=n)

    def density(self, x: np.ndarray) -> np.ndarray:
        if self.uniform is not None:
            low, high = self.uniform
            return np.where((x >= low) & (x <= high), 1.0 / (high - low), 0.0)
        assert self.normal is not None
        mean, sd = self.normal
        return np.exp(-0.5 * ((x - mean) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))

    def bounds(self) -> tuple[float, float]:
        """The 95% central interval of the prior (for comparing a posterior's width)."""
        if self.uniform is not None:
            low, high = self.uniform
            return low + 0.025 * (high - low), high - 0.025 * (high - low)
        assert self.normal is not None
        mean, sd = self.normal
        return mean - 1.96 * sd, mean + 1.96 * sd


@dataclass
class Generation:
    """One generation's kept particles, their weights, distances and statistics."""

    index: int
    epsilon: float
    particles: np.ndarray  # kept x parameters
    weights: np.ndarray  # kept, summing to 1
    distances: np.ndarray
    statistics: np.ndarray  # kept x statistics
    runs: int  # simulated to fill it
    accepted: int  # of those runs within the tolerance (the generation keeps `particles`)

    @property
    def acceptance(self) -> float:
        return self.accepted / self.runs if self.runs else 0.0


@dataclass
class AbcResult:
    generations: list[Generation]
    runs: int
    stopped: str  # why it ended

    @property
    def posterior(self) -> Generation:
        return self.generations[-1]


def distance(statistics: np.ndarray, observed: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The root mean square of each row's scaled gaps from the observed statistics."""
    gaps = (statistics - observed) / scale
    found: np.ndarray = np.sqrt(np.mean(gaps**2, axis=1))
    return found


def abc_smc(
    priors: Sequence[Prior],
    simulate: Simulate,
    observed: Sequence[float],
    *,
    scale: Sequence[float] | None = None,
    particles: int = 100,
    generations: int = 5,
    max_runs: int = 1000,
    quantile: float = 0.5,
    min_acceptance: float = 0.02,
    seed: int = 0,
    on_generation: Callable[[Generation], None] | None = None,
) -> AbcResult:
    """Run ABC-SMC; the result's last generation is the posterior sample. `on_generation`
    hears of each generation as it completes."""
    told = on_generation or (lambda _generation: None)
    if max_runs < particles:
        raise ValueError(f"a run budget of {max_runs} cannot fill one generation of {particles}")
    rng = np.random.default_rng(seed)
    want = np.asarray(observed, dtype=float)
    scales = np.ones_like(want) if scale is None else np.asarray(scale, dtype=float)
    theta = np.column_stack([p.sample(rng, particles) for p in priors])
    stats = simulate(theta)
    dist = distance(stats, want, scales)
    first = np.full(particles, 1 / particles)
    done = [Generation(0, math.inf, theta, first, dist, stats, particles, particles)]
    runs, stopped = particles, f"{generations} generations"
    for index in range(1, generations):
        last = done[-1]
        epsilon = _weighted_quantile(last.distances, last.weights, quantile)
        kernel = 2 * np.atleast_2d(np.cov(last.particles.T, aweights=last.weights))
        kernel += np.eye(len(priors)) * 1e-9  # a parameter the last generation agrees on
        kept: list[tuple[np.ndarray, np.ndarray, float]] = []
        tried = 0
        while len(kept) < particles:
            # At first, the last generation's acceptance, or the share within its tolerance.
            rate = len(kept) / tried if tried else min(last.acceptance, quantile)
            batch = math.ceil((particles - len(kept)) / max(rate, 0.05))
            batch = min(batch, 4 * particles, max_runs - runs)
            if batch <= 0:
                break
            proposals = _propose(rng, priors, last, kernel, batch)
            got = simulate(proposals)
            gaps = distance(got, want, scales)
            runs += batch
            tried += batch
            kept += [(proposals[i], got[i], gaps[i]) for i in range(batch) if gaps[i] <= epsilon]
        if len(kept) < particles:
            stopped = f"run budget ({max_runs} runs) reached in generation {index}"
            break
        accepted, kept = len(kept), kept[:particles]
        theta = np.array([k[0] for k in kept])
        weights = _weights(priors, theta, last, kernel)
        generation = Generation(
            index,
            epsilon,
            theta,
            weights,
            np.array([k[2] for k in kept]),
            np.array([k[1] for k in kept]),
            tried,
            accepted,
        )
        done.append(generation)
        told(generation)
        if generation.acceptance < min_acceptance:
            stopped = f"acceptance {generation.acceptance:.3f} under {min_acceptance}"
            break
    return AbcResult(done, runs, stopped)


def weighted_quantiles(values: np.ndarray, weights: np.ndarray, qs: Sequence[float]) -> list[float]:
    return [_weighted_quantile(values, weights, q) for q in qs]


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    cumulative /= cumulative[-1]
    return float(values[order][np.searchsorted(cumulative, q, side="left")])


def _propose(
    rng: np.random.Generator,
    priors: Sequence[Prior],
    last: Generation,
    kernel: np.ndarray,
    count: int,
) -> np.ndarray:
    """`count` moved particles inside the prior's support (drawn again until they are)."""
    found: list[np.ndarray] = []
    while len(found) < count:
        picks = rng.choice(len(last.weights), size=count, p=last.weights)
        moved = last.particles[picks] + rng.multivariate_normal(
            np.zeros(len(priors)), kernel, size=count
        )
        inside = _prior_density(priors, moved) > 0
        found += list(moved[inside])
    return np.array(found[:count])


def _prior_density(priors: Sequence[Prior], theta: np.ndarray) -> np.ndarray:
    density = np.ones(len(theta))
    for j, prior in enumerate(priors):
        density *= prior.density(theta[:, j])
    return density


def _weights(
    priors: Sequence[Prior], theta: np.ndarray, last: Generation, kernel: np.ndarray
) -> np.ndarray:
    """Prior density over the kernel's mixture over the last generation, normalised."""
    inverse = np.linalg.inv(kernel)
    gaps = theta[:, None, :] - last.particles[None, :, :]
    exponent = -0.5 * np.einsum("ijk,kl,ijl->ij", gaps, inverse, gaps)
    mixture = np.exp(exponent) @ last.weights  # the kernel's constant cancels on normalising
    weights: np.ndarray = _prior_density(priors, theta) / np.maximum(mixture, 1e-300)
    weights /= weights.sum()
    return weights
