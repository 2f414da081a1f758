"""What a run will cost, before it runs: model calls, prompt and completion tokens (and the
share a prompt cache serves), wall time and dollars, each with a 95% interval.

Two pilots, each a real run of the scenario's first ticks in a scratch folder:

- the structure pilot, on the scripted model (real prompts, seconds to run), over the first
  period of the clock (a day when a tick is shorter than a day, a week when it is shorter
  than a week, else a tick), at most half the run and at least the ticks that reach the
  first interview. Its calls per tick extrapolate to the run's ticks, in strata: the ticks
  that open a period, those where the world's binding says calls come once per occasion
  (`Binding.occasions`: the town's hour after two agents meet by their plans), and the rest;
  its interviews to the scenario's interviews. Where a second period follows, it runs on
  into it for a quarter of one: how much longer prompts are there (estimate_growth.py).
  Where the world's episodes may end before the clock (`Binding.finishes`), the pilot's
  spend is carried on to the decisions the binding expects from its progress
  (`Binding.decisions`).
- the model pilot, only when the run's model is not the scripted one: the first few ticks
  on that model. Per purpose it gives the calls the model makes for each scripted one and the
  tokens it spends per call; those ratios carry the structure over to the model.

The interval of a total extrapolated from ticks is that of a sample of ticks drawn from the
run's ticks (Student's t, with the finite-population correction: a pilot of the whole run
leaves none); a model pilot's ratios add their own standard errors.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from simulacra.experiments.estimate_growth import family_growth, window
from simulacra.experiments.estimate_pilot import (
    Pilot,
    Sums,
    at,
    merge,
    run_pilot,
    scratch,
    triple,
)
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.kinds.base import Binding
from simulacra.experiments.scenario import Scenario
from simulacra.experiments.stats import t_quantile
from simulacra.llm.budget import Price

MODEL_PILOT_TICKS = 2


@dataclass(frozen=True)
class Figure:
    """An estimate and its 95% interval."""

    value: float
    low: float
    high: float

    @classmethod
    def of(cls, value: float, parts: Sequence[tuple[float, int]]) -> Figure:
        """From independent parts of the variance, each with its degrees of freedom."""
        half = math.sqrt(sum(_t(df) ** 2 * var for var, df in parts))
        return cls(value, max(0.0, value - half), value + half)

    def covers(self, actual: float) -> bool:
        return self.low <= actual <= self.high


@dataclass(frozen=True)
class Estimate:
    scenario: str
    model: str
    ticks: int
    pilot_ticks: int  # the structure pilot's, on the scripted model
    model_pilot_ticks: int  # the model pilot's (0: the run's model is the scripted one)
    calls: Figure
    prompt_tokens: Figure
    completion_tokens: Figure
    cached_share: float  # of prompt tokens, served by the prompt cache in the model pilot
    wall_s: Figure
    dollars: Figure | None
    pilot_wall_s: float
    by_purpose: dict[str, float] = field(default_factory=dict)  # calls
    # The world's episodes may end before the clock (embodied): the interval runs from what
    # the pilot spent to a run that goes to its last tick; the value follows the pilot's
    # progress toward the agents' goals (`by_progress`), or where the world says nothing of
    # that it is the cost to the last tick, at most (`at_most`).
    at_most: bool = False
    by_progress: bool = False

    @property
    def tokens(self) -> Figure:
        a, b = self.prompt_tokens, self.completion_tokens
        return Figure(a.value + b.value, a.low + b.low, a.high + b.high)

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        found["tokens"] = asdict(self.tokens)
        return found


def estimate(
    scenario: Scenario,
    *,
    pilot_ticks: int | None = None,
    model_pilot_ticks: int = MODEL_PILOT_TICKS,
    work: Path | None = None,
) -> Estimate:
    """Estimate what running `scenario` (on its own model) costs, from its pilots."""
    times = scenario.clock.calendar().times()
    total_ticks = len(times)
    plan = scenario.interviews
    interviews = [scenario.when(t) for t in plan.times] if plan is not None else []
    pilot = pilot_ticks or default_pilot(scenario, times, interviews)
    pilot = max(1, min(pilot, total_ticks))
    scripted = scenario.model.spec == "scripted"
    with scratch(work) as folder:
        structure = run_pilot(scenario, "scripted", pilot, times, folder / "structure")
        chosen = None
        if not scripted:
            k = max(1, min(model_pilot_ticks, pilot))
            chosen = run_pilot(scenario, scenario.model.spec, k, times, folder / "model")
    n_interviews = len(interviews)
    sums: dict[str, tuple[float, float, float]] = {}  # family -> calls, prompt, completion
    variance = [0.0, 0.0, 0.0]  # of the extrapolated totals: from the scripted pilot
    calibrated = [0.0, 0.0, 0.0]  # and from the model pilot's ratios
    spent = [0.0, 0.0, 0.0]  # by the structure pilot, on the run's model
    by_purpose: dict[str, float] = {}
    opens = _opens_period(scenario, times)
    n_opens = sum(opens)
    period = _period(opens)
    # Ticks past the first period are the growth's window, not a sample of the ticks (a
    # pilot of the whole run is the run itself).
    sampled = period if 1 < period < pilot < total_ticks else pilot
    strata = _strata(opens, times, structure, sampled, binding_of(scenario))
    for family in sorted(structure.families()):
        series = structure.per_tick.get(family, [])[:sampled]
        # Strata apart: a day's first tick holds its plans, a meeting brings its calls once.
        total, spread = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
        for stratum in sorted(set(strata)):
            sample = [s for i, s in enumerate(series) if strata[i] == stratum]
            m, v = _extrapolate(sample, strata.count(stratum))
            total = [a + b for a, b in zip(total, m, strict=True)]
            spread = [a + b for a, b in zip(spread, v, strict=True)]
        mean: tuple[float, ...] = tuple(total)
        var: tuple[float, ...] = tuple(spread)
        if sampled < pilot:
            grown = family_growth(structure.at_tick, family, mean[0], n_opens, period, pilot)
            mean = (mean[0], mean[1] + grown.tokens, mean[2])
            var = (var[0], var[1] + grown.variance, var[2])
        done = structure.interviews.get(family)
        if done is not None and structure.interview_times:
            scale = n_interviews / structure.interview_times
            mean = tuple(m + s * scale for m, s in zip(mean, triple(done), strict=True))
        ratio, ratio_rel_var = _calibration(family, structure, chosen)
        values = tuple(m * r for m, r in zip(mean, ratio, strict=True))
        sums[family] = values  # type: ignore[assignment]
        by_purpose[family] = round(values[0], 1)
        for i, part in enumerate(triple(structure.total(family))):
            spent[i] += part * ratio[i]
        for i in range(3):
            variance[i] += var[i] * ratio[i] ** 2
            calibrated[i] += values[i] ** 2 * ratio_rel_var[i]
    calls = sum(v[0] for v in sums.values())
    prompt = sum(v[1] for v in sums.values())
    completion = sum(v[2] for v in sums.values())
    df = max(1, sampled - 1)
    df_model = max(
        1, int(sum(chosen.total(f).calls for f in chosen.families())) - 1 if chosen else 1
    )
    figures = [
        Figure.of(total, [(var, df), (cal, df_model)])
        for total, var, cal in zip((calls, prompt, completion), variance, calibrated, strict=True)
    ]
    binding = binding_of(scenario)
    early = binding.finishes and pilot < total_ticks
    progress = binding.decisions(structure.world, total_ticks) if early else None
    by_progress = progress is not None and progress[0] > 0
    if early:  # the run spends at least what its first ticks did, at most to its last
        ahead = progress[1] / progress[0] if progress is not None and by_progress else None
        figures = [
            Figure(
                f.value if ahead is None else min(f.high, max(s, s * ahead)), min(f.low, s), f.high
            )
            for f, s in zip(figures, spent, strict=True)
        ]
    wall_from = chosen or structure
    wall = _wall(wall_from, calls, figures[0], total_ticks)
    cached_share = _cached_share(chosen or structure)
    dollars = _dollars(scenario.model.price, figures[1], figures[2], cached_share)
    return Estimate(
        scenario=scenario.name,
        model=scenario.model.spec,
        ticks=total_ticks,
        pilot_ticks=pilot,
        model_pilot_ticks=0 if chosen is None else chosen.ticks,
        calls=figures[0],
        prompt_tokens=figures[1],
        completion_tokens=figures[2],
        cached_share=round(cached_share, 4),
        wall_s=wall,
        dollars=dollars,
        pilot_wall_s=round(structure.wall_s + (chosen.wall_s if chosen else 0.0), 2),
        by_purpose=by_purpose,
        at_most=early and not by_progress,
        by_progress=by_progress,
    )


def default_pilot(scenario: Scenario, times: Sequence[datetime], interviews: list[datetime]) -> int:
    """The first period of the clock (three ticks at least), at most half the run, and as
    far as the first interview; then a window into the second period, for the growth."""
    period = _period(_opens_period(scenario, times))
    # Three ticks at least, for a spread to read the interval from; half the run at most, so
    # that the estimate is an extrapolation.
    pilot = min(max(period, 3), max(1, math.ceil(len(times) / 2)))
    if interviews:
        pilot = max(pilot, bisect.bisect_right(list(times), min(interviews)))
    return pilot + window(period, pilot, len(times))


def _period(opens: Sequence[bool]) -> int:
    """The ticks of the run's first period."""
    return opens.index(True, 1) if True in opens[1:] else len(opens)


# --- inside ----------------------------------------------------------------------------------


def _strata(
    opens: Sequence[bool],
    times: Sequence[datetime],
    pilot: Pilot,
    sampled: int,
    binding: Binding,
) -> list[str]:
    """Each tick's stratum: it opens a period (a day's first holds its plans), it falls where
    the world's binding says calls come once per occasion (the town: the hour after two
    agents meet, for the sights, the reaction and the conversation), or neither. A stratum
    none of the `sampled` ticks is in is counted with the rest."""
    occasions = binding.occasions(pilot.world, times)
    strata = [
        "open" if o else "occasion" if m else "rest" for o, m in zip(opens, occasions, strict=True)
    ]
    seen = set(strata[:sampled])
    return [s if s in seen else "rest" for s in strata]


def _opens_period(scenario: Scenario, times: Sequence[datetime]) -> list[bool]:
    """Whether each tick is the first of its period: of its day when a tick is shorter than a
    day, of its week when shorter than a week; with longer ticks, every tick."""
    tick = scenario.clock.tick
    if tick < timedelta(days=1):
        keys: list[object] = [t.date() for t in times]
    elif tick < timedelta(days=7):
        keys = [t.isocalendar()[:2] for t in times]
    else:
        keys = list(range(len(times)))
    return [i == 0 or keys[i] != keys[i - 1] for i in range(len(times))]


def _extrapolate(
    series: list[Sums], total_ticks: int
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Totals over `total_ticks` from a sample of the first ticks, and their variances."""
    n = len(series)
    if n == 0:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    means, variances = [], []
    for values in zip(*(triple(s) for s in series), strict=True):
        mean = sum(values) / n
        s2 = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
        means.append(mean * total_ticks)
        fpc = max(0.0, 1 - n / total_ticks)
        variances.append(total_ticks**2 * s2 / n * fpc)
    return (means[0], means[1], means[2]), (variances[0], variances[1], variances[2])


def _calibration(
    family: str, structure: Pilot, chosen: Pilot | None
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The model's calls per scripted call and its prompt and completion tokens per scripted
    ones, for a purpose family over the model pilot's ticks (all families together where the
    pilot saw none of this one), and their squared relative standard errors: the calls' from
    the spread of the ratio over ticks, the tokens' from the spread over calls."""
    if chosen is None:
        return (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)
    families = [family] if chosen.total(family).calls and _early(structure, family, chosen) else []
    families = families or sorted(chosen.families())
    model, base = Sums(), Sums()
    ratios, samples = [], []
    for tick in range(chosen.ticks):
        m, b = Sums(), Sums()
        for name in families:
            merge(m, at(chosen, name, tick))
            merge(b, at(structure, name, tick))
        merge(model, m)
        merge(base, b)
        if b.calls:
            ratios.append(m.calls / b.calls)
    for name in families:
        samples.extend(chosen.samples.get(name, []))
    if not base.calls or not model.calls:
        return (1.0, 1.0, 1.0), (0.0, 0.0, 0.0)
    r_calls = model.calls / base.calls
    r_prompt = (model.prompt / model.calls) / max(base.prompt / base.calls, 1e-9) * r_calls
    r_completion = (model.completion / model.calls) / max(base.completion / base.calls, 1e-9)
    r_completion *= r_calls
    calls_var = _mean_var(ratios) / r_calls**2
    prompt_var = calls_var + _mean_var([p for p, _ in samples]) / _mean2([p for p, _ in samples])
    done_var = calls_var + _mean_var([c for _, c in samples]) / _mean2([c for _, c in samples])
    return (r_calls, r_prompt, r_completion), (calls_var, prompt_var, done_var)


def _mean_var(values: Sequence[float]) -> float:
    """The variance of the mean of `values` (none from fewer than two)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean = sum(values) / n
    return sum((v - mean) ** 2 for v in values) / (n - 1) / n


def _mean2(values: Sequence[float]) -> float:
    mean = sum(values) / len(values) if values else 0.0
    return mean**2 if mean else 1.0


def _early(structure: Pilot, family: str, chosen: Pilot) -> bool:
    return any(at(structure, family, t).calls for t in range(chosen.ticks))


def _wall(pilot: Pilot, calls: float, estimated: Figure, total_ticks: int) -> Figure:
    """Wall time: the pilot's start and first tick, then its pace after them, per call where
    it made calls, else per tick."""
    first_calls = sum(at(pilot, f, 0).calls for f in pilot.families())
    made = sum(pilot.total(f).calls for f in pilot.families()) - first_calls
    later_s = pilot.wall_s - pilot.first_s
    if made > 0 and calls > first_calls:
        per = later_s / made
        return Figure(
            pilot.first_s + per * (calls - first_calls),
            pilot.first_s + per * max(0.0, estimated.low - first_calls),
            pilot.first_s + per * max(0.0, estimated.high - first_calls),
        )
    per_tick = later_s / (pilot.ticks - 1) if pilot.ticks > 1 else pilot.wall_s
    value = pilot.first_s + per_tick * (total_ticks - 1)
    return Figure(value, value, value)


def _cached_share(pilot: Pilot) -> float:
    sums = [pilot.total(f) for f in pilot.families()]
    prompt = sum(s.prompt for s in sums)
    return sum(s.cached for s in sums) / prompt if prompt else 0.0


def _dollars(
    price: Price | None, prompt: Figure, completion: Figure, share: float
) -> Figure | None:
    if price is None:
        return None

    def cost(p: float, c: float) -> float:
        return price.cost(p, p * share, c)

    return Figure(
        cost(prompt.value, completion.value),
        cost(prompt.low, completion.low),
        cost(prompt.high, completion.high),
    )


def _t(df: int) -> float:
    return t_quantile(0.975, df)
