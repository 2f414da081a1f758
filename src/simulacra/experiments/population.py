"""A commute population fitted to census-style margins: iterative proportional fitting of a
seed sample's weights to each zone's control totals, an integer population drawn from the
weights, and that population written as the commute's population file (`agents.personas`).

The seed sample is a small table of persons (CSV): a `profile` column (the commute's profile
each one commutes as), `age`, `gender`, `income_eur`, optionally `work` (a zone; else the
profile's destination) and `weight` (a prior weight; else 1), and a column for every margin
the controls name (categories as text: `age_band`, `household_size`...). The controls (YAML)
give, for each home zone, each margin's count per category: `zones: {riverside: {age_band:
{"18-25": 20, ...}, employment: {...}}}`.

Each zone is fitted on its own by ipfn (list-based IPF, "raking", as PopulationSim does for
ActivitySim's households): every seed person starts at its prior weight, and the weights are
scaled to each margin in turn until they meet all of them. Margins whose totals differ in a
zone contradict each other and are refused before fitting; a category with persons wanted but
none in the seed is refused too. Margins that agree in their totals but that no weighting of
the seed can meet together (more retired persons wanted than persons over 65, when only the
over-65s are retired) are fitted as well as they can be and reported as not met.

The integer population: each seed person is taken the whole part of its weight times, and the
persons still missing are drawn without replacement, with chances by the fractional parts
("truncate, replicate, sample", Lovelace and Ballas 2013). Each person drawn is a commuter
whose age, gender and income are its seed row's and whose weights, flexibility and usual
departure are drawn from its profile, seeded by the fit's seed and its id.

The fit's figures per margin: its target total, the fitted and the drawn totals, and the
standardised root mean square error over its cells (zone x category) of the fitted weights and
of the drawn population, SRMSE = sqrt(mean((fitted - target)^2)) / mean(target), 0 for a
perfect fit.
"""

from __future__ import annotations

import contextlib
import io
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from ipfn import ipfn
from pydantic import BaseModel, ConfigDict, Field

from simulacra.errors import UserError, unknown
from simulacra.experiments.yaml_model import read_model
from simulacra.mind.commuter import Commuter, Profile, draw_person, persona_of
from simulacra.mind.commuter.profiles import person_seed
from simulacra.report.population_page import MET_WITHIN, write_population_report

REQUIRED = ("profile", "age", "gender", "income_eur")
# Margins whose totals in a zone differ by more than this many persons contradict each other.
TOTALS_TOLERANCE = 0.5


class PopulationError(UserError, ValueError):
    """A seed sample or controls that cannot be fitted; the message names the field."""


class Controls(BaseModel):
    """Control totals: zone -> margin -> category -> persons."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    zones: dict[str, dict[str, dict[str, float]]] = Field(min_length=1)


@dataclass(frozen=True)
class PopulationFit:
    """The fit: each cell's target, fitted and drawn persons, and the people drawn."""

    cells: pd.DataFrame  # zone, margin, category, target, fitted, drawn
    people: list[Commuter]
    iterations: dict[str, int]  # per zone

    def margins(self) -> pd.DataFrame:
        """One row per margin: totals and the SRMSE of the fitted weights and of the drawn
        population over its cells, the largest gap and whether every cell is met."""
        rows = []
        for margin, cells in self.cells.groupby("margin", sort=False):
            gap = (cells["fitted"] - cells["target"]).abs().max()
            rows.append(
                {
                    "margin": margin,
                    "cells": len(cells),
                    "target": round(float(cells["target"].sum()), 2),
                    "fitted": round(float(cells["fitted"].sum()), 2),
                    "drawn": int(cells["drawn"].sum()),
                    "srmse_fitted": round(srmse(cells["fitted"], cells["target"]), 4),
                    "srmse_drawn": round(srmse(cells["drawn"], cells["target"]), 4),
                    "largest_gap": round(float(gap), 2),
                    "met": bool(gap <= MET_WITHIN),
                }
            )
        return pd.DataFrame(rows)

    def unmet(self) -> list[str]:
        """`zone.margin.category` of every cell the fit could not meet."""
        gaps = (self.cells["fitted"] - self.cells["target"]).abs() > MET_WITHIN
        return [f"{r.zone}.{r.margin}.{r.category}" for r in self.cells[gaps].itertuples()]


def srmse(estimate: Sequence[float] | pd.Series, target: Sequence[float] | pd.Series) -> float:
    """Standardised root mean square error: the RMSE over the cells over the mean target."""
    got, want = np.asarray(estimate, dtype=float), np.asarray(target, dtype=float)
    mean = want.mean() if want.size else 0.0
    if mean == 0:
        return 0.0 if np.allclose(got, want) else math.inf
    return float(np.sqrt(np.mean((got - want) ** 2)) / mean)


def read_controls(path: Path) -> Controls:
    """The controls file, validated: a clear error names the field at fault."""
    return read_model(path, Controls, "controls file", PopulationError, str(path))


def read_seed(path: Path) -> pd.DataFrame:
    """The seed sample: every column as text but the numbers a person needs."""
    if not path.is_file():
        raise PopulationError(f"seed sample not found: {path}")
    seed = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in REQUIRED if c not in seed.columns]
    if missing:
        raise PopulationError(f"{path}: the seed sample needs the columns {missing}")
    for column in ("age", "income_eur", "weight"):
        if column in seed.columns:
            numbers = pd.to_numeric(seed[column], errors="coerce")
            bad = seed.index[numbers.isna() | (numbers < 0)].tolist()
            if bad:
                raise PopulationError(
                    f"{path}: column {column!r}, row {bad[0] + 2}: {seed[column][bad[0]]!r} "
                    "is not a number of 0 or more"
                )
    return seed


def fit_population(
    seed: pd.DataFrame,
    controls: Controls,
    profiles: Mapping[str, Profile],
    zones: Sequence[str],
    *,
    rng_seed: int = 0,
    max_iterations: int = 500,
) -> PopulationFit:
    """Fit each zone's weights to its margins by IPF, draw the integer population."""
    _check(seed, controls, profiles, zones)
    prior = (
        pd.to_numeric(seed["weight"]) if "weight" in seed.columns else pd.Series(1.0, seed.index)
    )
    cells: list[dict[str, Any]] = []
    people: list[Commuter] = []
    iterations: dict[str, int] = {}
    rng = random.Random(rng_seed)
    works = _works(seed, profiles)
    for zone, margins in controls.zones.items():
        weights, iterations[zone] = _ipf(seed, prior * (works != zone), margins, max_iterations)
        counts = _integerise(weights, round(_total(margins)), rng)
        for margin, targets in margins.items():
            for category, target in targets.items():
                members = seed[margin] == category
                cells.append(
                    {
                        "zone": zone,
                        "margin": margin,
                        "category": category,
                        "target": float(target),
                        "fitted": round(float(weights[members].sum()), 4),
                        "drawn": int(counts[members].sum()),
                    }
                )
        people += _commuters(seed, counts, zone, profiles, rng_seed)
    return PopulationFit(pd.DataFrame(cells), people, iterations)


def write_population(fit: PopulationFit, out: Path) -> None:
    """`population.yaml` (the commute's population file), `fit.csv` (each cell),
    `margins.csv` (each margin's figures) and `report.html` (both as tables) into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    personas = [persona_of(p) for p in fit.people]
    text = yaml.safe_dump({"personas": personas}, sort_keys=False, allow_unicode=True)
    (out / "population.yaml").write_text(text, encoding="utf-8")
    fit.cells.to_csv(out / "fit.csv", index=False)
    margins = fit.margins()
    margins.to_csv(out / "margins.csv", index=False)
    records = [
        [{str(k): v for k, v in row.items()} for row in table.to_dict("records")]
        for table in (margins, fit.cells)
    ]
    write_population_report(out, records[0], records[1], len(fit.people))


def _works(seed: pd.DataFrame, profiles: Mapping[str, Profile]) -> pd.Series:
    """Each seed person's work zone: its own, else its profile's destination."""
    own = seed["work"] if "work" in seed.columns else pd.Series("", seed.index)
    return pd.Series(
        [w or profiles[p].destination for w, p in zip(own, seed["profile"], strict=True)],
        seed.index,
    )


def _total(margins: Mapping[str, Mapping[str, float]]) -> float:
    return sum(next(iter(margins.values())).values())


def _check(
    seed: pd.DataFrame,
    controls: Controls,
    profiles: Mapping[str, Profile],
    zones: Sequence[str],
) -> None:
    """Refuse what no fit can mend, every fault at once."""
    problems = []
    for i, name in enumerate(seed["profile"]):
        if name not in profiles:
            problems.append(
                f"seed row {i + 2}, profile: {unknown('profile', name, list(profiles))}"
            )
    if "work" in seed.columns:
        for i, zone in enumerate(seed["work"]):
            if zone and zone not in zones:
                problems.append(f"seed row {i + 2}, work: {unknown('zone', zone, list(zones))}")
    for zone, margins in controls.zones.items():
        where = f"zones.{zone}"
        if zone not in zones:
            problems.append(f"{where}: {unknown('zone', zone, list(zones))}")
        if not margins:
            problems.append(f"{where}: no margin; give at least one")
            continue
        totals = {m: sum(c.values()) for m, c in margins.items()}
        if max(totals.values()) - min(totals.values()) > TOTALS_TOLERANCE:
            said = ", ".join(f"{m} {t:g}" for m, t in totals.items())
            problems.append(
                f"{where}: the margins contradict each other: their totals differ ({said}); "
                "every margin of a zone counts the same persons"
            )
        for margin, categories in margins.items():
            if margin not in seed.columns:
                columns = [c for c in seed.columns if c not in (*REQUIRED, "work", "weight")]
                problems.append(f"{where}.{margin}: {unknown('seed column', margin, columns)}")
                continue
            for category, count in categories.items():
                if count < 0:
                    problems.append(f"{where}.{margin}.{category}: {count:g} is negative")
                elif count > 0 and not (seed[margin] == category).any():
                    problems.append(
                        f"{where}.{margin}.{category}: {count:g} persons wanted, but no seed "
                        f"person is {category!r}; this margin cannot be met"
                    )
            unlisted = sorted(set(seed[margin]) - set(categories))
            if unlisted:
                problems.append(
                    f"{where}.{margin}: the seed has categories the margin leaves out "
                    f"({', '.join(unlisted)}); give each a count (0 for none)"
                )
    if problems:
        raise PopulationError(
            "the population cannot be fitted:\n" + "\n".join(f"  {p}" for p in problems)
        )


def _ipf(
    seed: pd.DataFrame,
    prior: pd.Series,
    margins: Mapping[str, Mapping[str, float]],
    max_iterations: int,
) -> tuple[pd.Series, int]:
    """One zone's weights (indexed as the seed) and the IPF iterations they took.

    Fitted on the seed's cross-table (ipfn's array form, far quicker than its table form):
    list-based IPF scales every person of a cell by the same factors, so each person's weight
    is its prior times its cell's fitted over its cell's prior sum. Persons of a prior weight
    0 (those who work in the zone) or in a category of none wanted are left out of the fit
    (ipfn divides by each target)."""
    wanted = {m: [c for c, n in targets.items() if n > 0] for m, targets in margins.items()}
    keep = (prior > 0).to_numpy().copy()
    codes = []
    for margin, categories in wanted.items():
        code = seed[margin].map({c: i for i, c in enumerate(categories)})
        keep &= code.notna().to_numpy()
        codes.append(code)
    weights = pd.Series(0.0, seed.index)
    if not keep.any():
        return weights, 0
    cells = tuple(code[keep].astype(int).to_numpy() for code in codes)
    table = np.zeros([len(c) for c in wanted.values()])
    np.add.at(table, cells, prior[keep].to_numpy(dtype=float))
    aggregates = [np.array([margins[m][c] for c in cs], dtype=float) for m, cs in wanted.items()]
    fitter = ipfn.ipfn(
        table.copy(),
        aggregates,
        [[axis] for axis in range(len(wanted))],
        convergence_rate=1e-6,
        max_iteration=max_iterations,
        verbose=2,
    )
    with contextlib.redirect_stdout(io.StringIO()):  # it prints when it stops early
        fitted, _, trace = fitter.iteration()
    factor = np.divide(fitted, table, out=np.zeros_like(table), where=table > 0)
    weights[keep] = prior[keep].to_numpy(dtype=float) * factor[cells]
    return weights, len(trace)


def _integerise(weights: pd.Series, total: int, rng: random.Random) -> pd.Series:
    """Truncate, replicate, sample: whole parts kept, the rest drawn by fractional parts."""
    whole = np.floor(weights.to_numpy() + 1e-9).astype(int)
    fractions = np.clip(weights.to_numpy() - whole, 0.0, None)
    missing = max(0, total - int(whole.sum()))
    order = [i for i in range(len(fractions)) if fractions[i] > 0]
    for _ in range(min(missing, len(order))):
        pick = rng.choices(order, weights=[fractions[i] for i in order])[0]
        whole[pick] += 1
        order.remove(pick)
    return pd.Series(whole, weights.index)


def _commuters(
    seed: pd.DataFrame,
    counts: pd.Series,
    zone: str,
    profiles: Mapping[str, Profile],
    rng_seed: int,
) -> list[Commuter]:
    found: list[Commuter] = []
    works = _works(seed, profiles)
    for row, record in zip(seed.index, seed.to_dict("records"), strict=True):
        base = profiles[record["profile"]]
        profile = base.model_copy(update={"home": zone, "destination": works[row]})
        for _ in range(int(counts[row])):
            agent = f"{zone}_{len(found) + 1:04d}"
            drawn = draw_person(profile, random.Random(person_seed(rng_seed, agent)))
            person = replace(
                drawn,
                age=int(float(record["age"])),
                gender=str(record["gender"]),
                income_eur=int(float(record["income_eur"])),
            )
            found.append(Commuter(agent, str(record["profile"]), profile, person))
    return found
