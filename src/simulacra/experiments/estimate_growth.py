"""How much longer a prompt is in each later period of a run, for the estimate.

An agent's memory outlasts the day: on the scripted two-day town a reaction's prompt averages
616 tokens on the first morning and 2,346 on the second, because retrieval quotes a day more
of it. A pilot of the first period alone cannot see that, so the pilot runs on into the
second period for a quarter of one (the window), and each purpose family's calls there are
compared with the first period's calls at the same times of the period. Their difference in
prompt tokens per call is the growth per period, taken to add up period on period (the
memory keeps growing); a commuter's prompts, whose short-term memory starts again each week,
show none. A family seen in only one of the two gets no growth: it is said in docs/cost.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from simulacra.experiments.estimate_pilot import family_of


@dataclass(frozen=True)
class Growth:
    """Prompt tokens to add to a family's extrapolated total, and the variance they bring."""

    tokens: float = 0.0
    variance: float = 0.0


def window(period: int, pilot: int, total: int) -> int:
    """The ticks of the second period a pilot of `pilot` ticks should add: a quarter of a
    period (one tick at least) where the run has a second period of more than one tick."""
    if period <= 1 or total <= period or pilot < period:
        return 0
    return min(max(1, period // 4), total - period)


def per_period(calls: Sequence[tuple[int, float]], period: int, pilot: int) -> tuple[float, float]:
    """From (tick, prompt tokens) of a family's calls in a pilot that ran `pilot` ticks, the
    first `period` of them a whole period: the growth per call per period and its variance."""
    later = [p for i, p in calls if period <= i < pilot]
    earlier = [p for i, p in calls if i < pilot - period]
    if not later or not earlier:
        return 0.0, 0.0
    return _mean(later) - _mean(earlier), _var_of_mean(later) + _var_of_mean(earlier)


def growth(calls_total: float, periods: int, step: float, step_var: float) -> Growth:
    """What `step` more tokens per call per period adds to `calls_total` calls spread evenly
    over `periods` periods: the k-th (from 0) carries k steps, k·step·calls_total/periods in
    all, (periods - 1)/2 steps on average."""
    if periods < 2 or calls_total <= 0:
        return Growth()
    weight = calls_total * (periods - 1) / 2
    return Growth(weight * step, weight**2 * step_var)


def family_growth(
    at_tick: Mapping[str, Sequence[tuple[int, float]]],
    family: str,
    calls: float,
    periods: int,
    period: int,
    pilot: int,
) -> Growth:
    """A purpose family's growth over the periods after the first, from each call's (tick,
    prompt tokens) by purpose: purpose by purpose (a commuter's weekly plan grows, its daily
    one does not), each weighed by its share of the family's calls in the first period."""
    own = {p: c for p, c in at_tick.items() if family_of(p) == family}
    seen = {p: sum(1 for i, _ in c if i < period) for p, c in own.items()}
    total = sum(seen.values())
    tokens = variance = 0.0
    for purpose, points in own.items():
        if seen[purpose]:
            step = per_period(points, period, pilot)
            part = growth(calls * seen[purpose] / total, periods, *step)
            tokens, variance = tokens + part.tokens, variance + part.variance
    return Growth(tokens, variance)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _var_of_mean(values: Sequence[float]) -> float:
    n = len(values)
    if n < 2:
        return 0.0
    mean = _mean(values)
    return sum((v - mean) ** 2 for v in values) / (n - 1) / n
