"""Means with confidence intervals over replicates, computed here (no SciPy): Student's t for
a figure of any range, and for a share (a figure between 0 and a full scale: a proportion, a
percentage, a mean of values in that range) a Wilson score interval, which never leaves the
range. `METHOD` says so in words, for every page that shows the intervals.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

CONFIDENCE = 0.95
# How each interval is made, as summary.md and the sweep's report.html both say it.
METHOD = (
    "Student's t over the replicates; for a share (0 to 1, or a percentage), Wilson's score "
    "interval with the replicates' effective sample size. Where the replicates of a share all "
    "agree, or all sit at 0 or the full scale, their spread says nothing of the uncertainty: "
    "the interval (marked *) is Wilson's with each replicate counted as one trial. Where the "
    "replicates of any other figure all agree, Student's t has no width (marked \u2020): the "
    "runs gave one value, which is no certainty; more replicates or seeds would size it."
)
WILSON_COUNT = "wilson, one trial a replicate"
T_AGREED = "t, replicates agree"  # Student's t from values that are all the same: no width
# What a paired difference's mark means, under its table.
PAIRED = (
    "\u2020: every pair differed by the same amount, an interval of no width, which is no "
    "certainty."
)
# The mark a table puts after an interval its replicates' agreement made; METHOD says why.
MARKS = {WILSON_COUNT: "*", T_AGREED: "\u2020"}


@dataclass(frozen=True)
class Interval:
    """A mean and its confidence interval; no interval from fewer than two values."""

    mean: float
    low: float | None
    high: float | None
    n: int
    method: str = "t"  # "t", T_AGREED, "wilson", or WILSON_COUNT

    def as_dict(self) -> dict[str, float | int | str | None]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "n": self.n} | {
            "method": self.method
        }

    def text(self, digits: int = 2) -> str:
        if self.low is None or self.high is None:
            return f"{self.mean:.{digits}f} (CI n/a)"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


def mean_ci(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """Mean with a two-sided Student-t interval: mean +- t(df=n-1) * sd / sqrt(n), of no
    width where the values all agree (its method T_AGREED says so)."""
    n = len(values)
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = math.fsum(values) / n
    if n < 2:
        return Interval(mean, None, None, n)
    if all(v == values[0] for v in values):
        return Interval(mean, mean, mean, n, T_AGREED)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n)


def share_ci(
    values: Sequence[float], scale: float = 1.0, confidence: float = CONFIDENCE
) -> Interval:
    """Mean of shares (each between 0 and `scale`) with a Wilson score interval, which stays
    inside [0, scale] where the t-interval spills over (0.45 [-0.19, 1.09] from two runs).

    The replicates' own spread sets the interval's width: Wilson's n is the effective number
    of trials n p(1 - p) / s^2 that gives the mean its observed variance s^2 / n (the design
    effect of survey statistics), and z is Student's t quantile with n - 1 degrees of freedom,
    so that, away from 0 and the full scale, the interval is the t-interval's."""
    n = len(values)
    if n == 0:
        raise ValueError("share_ci needs at least one value")
    if scale <= 0 or any(not 0 <= v <= scale for v in values):
        raise ValueError(f"share_ci needs values between 0 and {scale}, got {list(values)}")
    p = math.fsum(values) / n / scale
    if n < 2:
        return Interval(p * scale, None, None, n, "wilson")
    variance = math.fsum((v / scale - p) ** 2 for v in values) / (n - 1) / n  # of the mean
    if variance == 0 or p in (0.0, 1.0):
        # No spread to size it by (three runs at 0.50 are no certainty): each replicate is
        # one trial, the least the runs can be worth, with the normal quantile.
        low, high = _wilson(p, n, NormalDist().inv_cdf(0.5 + confidence / 2))
        return Interval(p * scale, low * scale, high * scale, n, WILSON_COUNT)
    trials = p * (1 - p) / variance
    z = t_quantile(0.5 + confidence / 2, n - 1)
    low, high = _wilson(p, trials, z)
    return Interval(p * scale, low * scale, high * scale, n, "wilson")


def mark(method: object) -> str:
    """The mark after an interval made by `method` ("" for none); METHOD says what each means."""
    return MARKS.get(str(method), "")


def _wilson(p: float, trials: float, z: float) -> tuple[float, float]:
    """Wilson's score interval for a proportion `p` of `trials` (a real number of them)."""
    shrink = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / shrink
    half = z / shrink * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def figure_ci(
    name: str,
    values: Sequence[float],
    shares: Mapping[str, float],
    confidence: float = CONFIDENCE,
) -> Interval:
    """A figure's mean and interval: Wilson's for a share (`shares` maps each share figure to
    its full scale, 1 or 100) whose values all lie in its range, Student's t for the rest."""
    if name in shares and all(0 <= v <= shares[name] for v in values):
        return share_ci(values, shares[name], confidence)
    return mean_ci(values, confidence)


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (0.5 < p < 1), by bisection
    on its distribution function."""
    if not 0.5 < p < 1 or df < 1:
        raise ValueError(f"t_quantile needs 0.5 < p < 1 and df >= 1, got p={p}, df={df}")
    low, high = 0.0, 1.0
    while _t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if _t_cdf(mid, df) < p else (low, mid)
        if high - low < 1e-12:
            break
    return (low + high) / 2


def _t_cdf(t: float, df: int) -> float:
    """P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2) / 2 with x = df / (df + t^2)."""
    return 1.0 - 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b), by its continued fraction (Lentz)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only on this side
        return 1.0 - _betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return front * result / a
