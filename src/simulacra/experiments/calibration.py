"""The commute's two calibrations to the source's baseline scenario (no strike): the builtin
executor's taxi ranks, to its mean taxi wait, and the logit model's constants, to its modal
split per profile.

The taxi ranks.

The source reports a mean taxi wait of 14 simulated minutes under baseline conditions
(section 5.3) for 64 taxis on Valencia's streets. On our 10 km corridor with ranks spread
along it, the nearest free taxi is a few hundred metres away and waits come to 2-3 minutes.
The city around the corridor is what is missing: here the ranks lie `taxi.rank_km` off the
corridor by road, and a free taxi waits at its rank.

The reference baseline day: the study's population (the scenario's profiles, mix and seed),
each profile split over the modes in the shares the source reports for its baseline days
(section 6.1), each commuter leaving at its usual departure. `calibrate_rank_km` finds the
rank distance whose reference day gives the target mean wait, by bisection.

The logit model's constants. A transport modeller calibrates a logit model's alternative-
specific constants to observed shares. `calibrate_logit` runs the scenario's logit model with
every taxi in service over its working days and moves each profile's constant of each mode by
the log of the source's share over the share it gave (taxi held at 0), until every profile's
split is within `tolerance` points of the source's (section 6.1, as `SOURCE_BASELINE_SPLIT`
reads it), over the populations of several seeds.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from collections.abc import Mapping, Sequence
from statistics import fmean

from simulacra.core import parse_hhmm
from simulacra.experiments.pipeline import run
from simulacra.experiments.scenario import Scenario
from simulacra.mind.commuter import Profile, build_population
from simulacra.worlds.commute import BuiltinExecutor, City, CommuteConfig, Trip

TARGET_WAIT_MIN = 14.0
# Baseline shares per profile (percent), read from the source's section 6.1 and Figure 6:
# administrative workers above 75% taxi; elderly residents 60-70% taxi, buses the rest but
# under 2% walking; factory workers about 80% taxi and 19-20% bus; students mostly bus, then
# walking, taxis under 5%.
SOURCE_BASELINE_SPLIT: dict[str, dict[str, float]] = {
    "administrative_worker": {"taxi": 75, "bus": 25, "walk": 0},
    "elderly_resident": {"taxi": 65, "bus": 33, "walk": 2},
    "factory_worker": {"taxi": 80, "bus": 20, "walk": 0},
    "student": {"taxi": 4, "bus": 66, "walk": 30},
}


def reference_day(scenario: Scenario, seed: int | None = None) -> list[Trip]:
    """Every commuter's trip on the reference baseline day: modes by the source's shares
    (largest remainders, assigned in a seeded order), departures at each one's habit."""
    profiles = {n: Profile.model_validate(raw) for n, raw in scenario.agents.profiles.items()}
    seed = scenario.seed if seed is None else seed
    people = build_population(profiles, scenario.agents.mix, seed)
    missing = sorted(set(scenario.agents.mix) - set(SOURCE_BASELINE_SPLIT))
    if missing:
        raise ValueError(
            f"no baseline modal split from the source for profiles {missing}; the reference "
            f"day knows {sorted(SOURCE_BASELINE_SPLIT)}"
        )
    rng = random.Random(seed)
    trips: list[Trip] = []
    for name in scenario.agents.mix:
        members = [p for p in people if p.profile_name == name]
        modes = _quota(SOURCE_BASELINE_SPLIT[name], len(members))
        rng.shuffle(modes)
        for person, mode in zip(members, modes, strict=True):
            trips.append(
                Trip(
                    person.id,
                    mode,  # type: ignore[arg-type]
                    person.person.habit_min,
                    person.profile.home,
                    person.profile.destination,
                    parse_hhmm(person.profile.deadline),
                )
            )
    return trips


def baseline_taxi_wait(
    scenario: Scenario, rank_km: float, seeds: Sequence[int] = (0, 1, 2)
) -> float:
    """The mean taxi wait of the reference day on the builtin executor with ranks `rank_km`
    off the corridor, over the populations of `seeds`."""
    config = _commute(scenario)
    city = City(config.city.model_copy(update={"taxi": _ranks(config, rank_km)}))
    executor = BuiltinExecutor(city)
    waits = []
    for seed in seeds:
        done = executor.execute_day(_quiet_day(city), reference_day(scenario, seed))
        waits += [o.wait_min for o in done if o.mode == "taxi"]
    return fmean(waits) if waits else 0.0


def calibrate_rank_km(
    scenario: Scenario,
    target_min: float = TARGET_WAIT_MIN,
    seeds: Sequence[int] = (0, 1, 2),
    tolerance_km: float = 0.05,
) -> float:
    """The rank distance (km) whose reference day's mean taxi wait is `target_min`."""
    low, high = 0.0, _commute(scenario).city.corridor_km
    if baseline_taxi_wait(scenario, high, seeds) < target_min:
        raise ValueError(
            f"even ranks {high:g} km off the corridor give under {target_min:g} min; "
            "the target needs more demand or fewer taxis"
        )
    while high - low > tolerance_km:
        middle = (low + high) / 2
        if baseline_taxi_wait(scenario, middle, seeds) < target_min:
            low = middle
        else:
            high = middle
    return round((low + high) / 2, 2)


Split = dict[str, dict[str, float]]
# A share the source gives as none is aimed at as half a percent: a logit gives every mode some.
_FLOOR_PCT = 0.5


def logit_split(
    scenario: Scenario, constants: Mapping[str, Mapping[str, float]], seeds: Sequence[int]
) -> Split:
    """Each profile's modal split (percent of its trips over the run) of the logit model with
    `constants` and every taxi in service, averaged over the populations of `seeds`."""
    options = dict(scenario.agents.options)
    options["logit"] = {**options.get("logit", {}), "constants": dict(constants)}
    agents = scenario.agents.model_copy(update={"mind": "logit", "options": options})
    world = _commute(scenario)
    city = world.city.model_copy(update={"taxi_strikes": ()})
    shares: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            once = scenario.model_copy(
                update={
                    "seed": seed,
                    "agents": agents,
                    "world": world.model_copy(update={"city": city}),
                    "output": scenario.output.model_copy(update={"root": tmp, "report": False}),
                }
            )
            done = run(once, progress=False)
            metrics = json.loads((done.path / "metrics.json").read_text(encoding="utf-8"))
            for profile, split in metrics["modal_share"].items():
                if profile != "all":
                    for mode, pct in split.items():
                        shares.setdefault(profile, {}).setdefault(mode, []).append(pct)
    return {p: {m: round(fmean(v), 2) for m, v in by.items()} for p, by in shares.items()}


def calibrate_logit(
    scenario: Scenario,
    seeds: Sequence[int] = (0, 1, 2),
    tolerance: float = 3.0,
    rounds: int = 15,
) -> tuple[Split, Split]:
    """The constants (profile -> mode -> value, taxi 0) whose split is within `tolerance`
    points of the source's in every profile and mode, or the best of `rounds`; and that
    split."""
    constants: Split = {p: {m: 0.0 for m in shares} for p, shares in _sources(scenario).items()}
    best: tuple[float, Split, Split] | None = None
    for _ in range(rounds):
        split = logit_split(scenario, constants, seeds)
        worst = split_error(split)
        if best is None or worst < best[0]:
            best = (worst, {p: dict(c) for p, c in constants.items()}, split)
        if worst <= tolerance:
            break
        for profile, targets in _sources(scenario).items():
            for mode, target in targets.items():
                got = max(split.get(profile, {}).get(mode, 0.0), _FLOOR_PCT / 5)
                constants[profile][mode] += math.log(max(target, _FLOOR_PCT) / got)
            taxi = constants[profile].get("taxi", 0.0)
            constants[profile] = {m: round(c - taxi, 3) for m, c in constants[profile].items()}
    assert best is not None
    return best[1], best[2]


def split_error(split: Mapping[str, Mapping[str, float]]) -> float:
    """The largest gap, in percentage points, between `split` and the source's baseline
    split over every profile and mode the source gives."""
    return max(
        abs(split.get(p, {}).get(m, 0.0) - target)
        for p, targets in SOURCE_BASELINE_SPLIT.items()
        if p in split
        for m, target in targets.items()
    )


def _sources(scenario: Scenario) -> dict[str, dict[str, float]]:
    missing = sorted(set(scenario.agents.mix) - set(SOURCE_BASELINE_SPLIT))
    if missing:
        raise ValueError(
            f"no baseline modal split from the source for profiles {missing}; it gives "
            f"{sorted(SOURCE_BASELINE_SPLIT)}"
        )
    return {p: SOURCE_BASELINE_SPLIT[p] for p in scenario.agents.mix}


def _quota(shares: Mapping[str, float], count: int) -> list[str]:
    total = sum(shares.values())
    exact = {m: count * s / total for m, s in shares.items()}
    whole = {m: int(x) for m, x in exact.items()}
    by_remainder = sorted(exact, key=lambda m: (whole[m] - exact[m], m))
    for mode in by_remainder[: count - sum(whole.values())]:
        whole[mode] += 1
    return [mode for mode, n in whole.items() for _ in range(n)]


def _commute(scenario: Scenario) -> CommuteConfig:
    if not isinstance(scenario.world, CommuteConfig):
        raise ValueError(f"a {scenario.world.kind} scenario has no taxis to calibrate")
    return scenario.world


def _ranks(config: CommuteConfig, rank_km: float) -> object:
    return config.city.taxi.model_copy(update={"rank_km": rank_km})


def _quiet_day(city: City) -> int:
    """The first day with every taxi in service."""
    day = 1
    while len(city.taxis_in_service(day)) < city.config.taxi.size:
        day += 1
    return day
