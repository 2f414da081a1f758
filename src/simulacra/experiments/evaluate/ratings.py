"""Believability ratings: rankings aggregated with TrueSkill into mu and sigma per condition,
intervals from bootstrap resamples of the rankings, and the agreement of people and judge."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import trueskill

from simulacra.experiments.evaluate.judging import Ranking

# Ranks are strict: a judge's permutation has no ties, so TrueSkill learns no draws.
_ENV = trueskill.TrueSkill(draw_probability=0.0)


@dataclass(frozen=True)
class Rating:
    condition: str
    mu: float
    sigma: float
    low: float | None = None  # 2.5th percentile of mu over bootstrap resamples
    high: float | None = None  # 97.5th
    rankings: int = 0


def trueskill_ratings(
    rankings: Iterable[Ranking], conditions: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """mu and sigma per condition after playing every ranking, in order, as one match."""
    ratings = {c: _ENV.create_rating() for c in conditions}
    for ranking in rankings:
        if ranking.fallback:
            continue
        groups = [(ratings[c],) for c in ranking.order]
        rated = _ENV.rate(groups, ranks=list(range(len(groups))))
        for condition, (new,) in zip(ranking.order, rated, strict=True):
            ratings[condition] = new
    return {c: (r.mu, r.sigma) for c, r in ratings.items()}


def rate(
    rankings: Sequence[Ranking], conditions: Sequence[str], bootstrap: int, seed: int
) -> list[Rating]:
    """TrueSkill per condition, with 95% intervals from `bootstrap` resamples (with
    replacement, shuffled) of the rankings."""
    used = [r for r in rankings if not r.fallback]
    rng = random.Random(seed)
    # TrueSkill depends on the order of matches: play them in a seeded order, not by agent.
    point = trueskill_ratings(rng.sample(used, len(used)), conditions)
    draws: dict[str, list[float]] = {c: [] for c in conditions}
    for _ in range(bootstrap if used else 0):
        sample = [used[rng.randrange(len(used))] for _ in used]
        for condition, (mu, _) in trueskill_ratings(sample, conditions).items():
            draws[condition].append(mu)
    found = []
    for c in conditions:
        low = high = None
        if draws[c]:
            low, high = (float(v) for v in np.percentile(draws[c], [2.5, 97.5]))
        found.append(Rating(c, point[c][0], point[c][1], low, high, len(used)))
    return found


def agreement(people: Sequence[Ranking], judge: Sequence[Ranking]) -> dict[str, float | int]:
    """How often a person and the judge order a pair of conditions alike, over every pair of
    every item both ranked, and the mean Kendall tau per item."""
    by_item: dict[str, list[tuple[str, ...]]] = {}
    for ranking in judge:
        if not ranking.fallback:
            by_item.setdefault(ranking.item, []).append(ranking.order)
    same = pairs = 0
    taus = []
    for person in people:
        for order in by_item.get(person.item, ()):
            agree, total = _concordant(person.order, order)
            same, pairs = same + agree, pairs + total
            if total:
                taus.append((2 * agree - total) / total)
    return {
        "items": len({p.item for p in people if p.item in by_item}),
        "pairs": pairs,
        "pairwise_agreement": round(same / pairs, 4) if pairs else 0.0,
        "kendall_tau": round(float(np.mean(taus)), 4) if taus else 0.0,
    }


def _concordant(a: Sequence[str], b: Sequence[str]) -> tuple[int, int]:
    place_a = {c: i for i, c in enumerate(a)}
    place_b = {c: i for i, c in enumerate(b)}
    shared = [c for c in a if c in place_b]
    agree = total = 0
    for x, y in combinations(shared, 2):
        total += 1
        agree += (place_a[x] < place_a[y]) == (place_b[x] < place_b[y])
    return agree, total


def people_rankings(saved: Mapping[str, object], key: Mapping[str, str]) -> list[Ranking]:
    """Rankings a person saved from the rating page; `key` maps each blinded answer id to its
    "item\\tcondition". A file from another page or with unknown answers is refused."""
    rater = str(saved.get("rater") or "person")
    rows = saved.get("rankings")
    if not isinstance(rows, list):
        raise ValueError("the ratings file has no `rankings` list; save it from the rating page")
    found = []
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping) or not isinstance(row.get("order"), list):
            raise ValueError(f"rankings[{i}]: expected an object with an `order` list")
        order = [str(k) for k in row["order"]]
        unknown = [k for k in order if k not in key]
        if unknown:
            raise ValueError(
                f"rankings[{i}]: answer {unknown[0]!r} is not on this evaluation's rating page; "
                "was the file saved from another run's page?"
            )
        items = {key[k].split("\t")[0] for k in order}
        if len(items) != 1 or len(set(order)) != len(order):
            raise ValueError(f"rankings[{i}]: the order must rank each answer of one item once")
        conditions = tuple(key[k].split("\t")[1] for k in order)
        found.append(Ranking(items.pop(), f"person:{rater}", conditions))
    return found
