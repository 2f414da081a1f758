"""What a commute run measured, read back from its log, as metrics.json holds it.

- `punctuality`: the source's Table 5 (early, late, on time, incomplete, completion, percent of
  trips), with the on-time window stated; also per profile and on strike days alone.
- `modal_split`: percent of each profile's trips per mode per day (the source's Figure 6).
- `taxi_wait`: mean taxi wait per day, strike days marked, and per profile (the source's
  Figure 7).
- `modal_share` and `satisfaction`: the whole run's split of trips by mode, and the mean
  satisfaction of the scored trips, per profile too.
- `expectation`: each profile's split against the modes the source expected of it (Table 4's
  "Expectation", first the one it expected most): how much of the profile's travel went by
  them, and whether its most used mode is the one expected first (the source's section 6.1
  reads deviation from expectation this way).
- `figures`: origins (Figure 4), one profile's choices on one day (Figure 5) and one agent's
  weekly trace (Appendix B): figures.py.
- `headline`: the commute's signature, what a sweep compares: Table 5, the modal split, the
  taxi wait on normal and strike days, and satisfaction. A wait no taxi trip measured (a run
  with no strike day has no strike-day wait) is left out, not 0, so a sweep's mean is over the
  runs that measured it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from typing import Any

from simulacra.core import format_hhmm
from simulacra.runlog import Event
from simulacra.worlds.commute.city import City, CityConfig
from simulacra.worlds.commute.config import CommuteConfig
from simulacra.worlds.commute.figures import (
    choices,
    origins,
    taxi_wait_by_profile,
    trace,
    trace_agent,
)
from simulacra.worlds.commute.outcomes import MODES, TripOutcome, summarize

TABLE5_COLUMNS = ("early", "late", "on_time", "incomplete", "completion")
_OUTCOME_FIELDS = tuple(f.name for f in fields(TripOutcome))


def on_time_window(city: CityConfig) -> str:
    """The classification in words, as Table 5 needs it stated."""
    close = format_hhmm(City(city).window.end_min)
    return (
        f"on time: arrival within the {city.on_time_window_min:g} minutes before the deadline; "
        f"early: before that; late: after the deadline; incomplete: not arrived by {close}"
    )


def strike_days(city: CityConfig, days: int) -> list[int]:
    town = City(city)
    return [d for d in range(1, days + 1) if len(town.taxis_in_service(d)) < city.taxi.size]


def trips(events: Iterable[Event]) -> list[tuple[str, TripOutcome]]:
    """(profile, outcome) of every trip in the log, in order."""
    profiles: dict[str, str] = {}
    found = []
    for event in events:
        if event.kind == "run" and "agents" in event.data:
            profiles = {a: str(p.get("profile", "")) for a, p in event.data["agents"].items()}
        elif event.kind == "action" and event.data.get("phase") == "travel" and event.agent:
            outcome = TripOutcome(**{k: event.data[k] for k in _OUTCOME_FIELDS if k in event.data})
            found.append((profiles.get(event.agent, ""), outcome))
    return found


def commute_metrics(
    events: Sequence[Event],
    config: CommuteConfig,
    days: int,
    expected: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, Any]:
    """metrics.json's commute sections (days are string keys where they key a mapping);
    `expected`: each profile's expected modes (Table 4), first the most expected."""
    city = config.city
    done = trips(events)
    strikes = strike_days(city, days)
    town = City(city)
    waits: dict[int, list[float]] = {}
    for _, o in done:
        if o.mode == "taxi":
            waits.setdefault(o.day, []).append(o.wait_min)
    summary = _rounded(summarize(o for _, o in done))
    agents: dict[str, Any] = next((e.data["agents"] for e in events if e.kind == "run"), {})
    profiles = sorted({p for p, _ in done})
    shown = config.figures.choices_profile or (profiles[0] if profiles else "")
    followed = trace_agent(agents, config.figures)
    normal = [o.wait_min for _, o in done if o.mode == "taxi" and o.day not in strikes]
    struck = [o.wait_min for _, o in done if o.mode == "taxi" and o.day in strikes]
    share = _share(o for _, o in done)
    headline = {
        **{c: summary[c] for c in TABLE5_COLUMNS},
        **{f"{mode}_share": share.get(mode, 0.0) for mode in MODES},
    }
    for name, waits_of in (("taxi_wait_normal_min", normal), ("taxi_wait_strike_min", struck)):
        if waits_of:
            headline[name] = round(_mean(waits_of), 2)
    satisfied = _satisfaction(done)
    if satisfied["all"] is not None:
        headline["satisfaction"] = satisfied["all"]
    return {
        "punctuality": {
            "on_time_window": on_time_window(city),
            "table": summary,
            "by_profile": {
                profile: _rounded(summarize(o for p, o in done if p == profile))
                for profile in sorted({p for p, _ in done})
            },
            "strike_days_only": (
                _rounded(summarize(o for _, o in done if o.day in strikes)) if strikes else None
            ),
        },
        "modal_split": _modal_split(done),
        "taxi_wait": {
            "strike_days": strikes,
            "by_day": [
                {
                    "day": day,
                    "mean_wait_min": round(sum(w) / len(w), 2) if (w := waits.get(day)) else None,
                    "taxi_trips": len(waits.get(day, [])),
                    "taxis_in_service": len(town.taxis_in_service(day)),
                    "strike": day in strikes,
                }
                for day in range(1, days + 1)
            ],
            "by_profile": taxi_wait_by_profile(done, days),
        },
        "modal_share": {
            "all": share,
            **{p: _share(o for q, o in done if q == p) for p in profiles},
        },
        "satisfaction": satisfied,
        "expectation": against_expectation(done, expected or {}),
        "figures": {
            "origins": origins(agents, city.zones),
            "choices": {
                "profile": shown,
                "day": min(config.figures.choices_day, days),
                "trips": choices(
                    done, agents, city.zones, shown, min(config.figures.choices_day, days)
                ),
            },
            "trace": {"agent": followed, "weeks": trace(events, followed) if followed else []},
        },
        "headline": headline,
    }


def against_expectation(
    done: Sequence[tuple[str, TripOutcome]], expected: Mapping[str, Sequence[str]]
) -> dict[str, dict[str, Any]]:
    """Each profile's split beside the modes expected of it (see the module docstring)."""
    found: dict[str, dict[str, Any]] = {}
    for profile, modes in expected.items():
        share = _share(o for p, o in done if p == profile)
        if not share or not modes:
            continue
        most = max(MODES, key=lambda m: (share.get(m, 0.0), -MODES.index(m)))
        found[profile] = {
            "expected": list(modes),
            "split": share,
            "in_expected_modes": round(sum(share.get(m, 0.0) for m in modes), 2),
            "in_first_expected": share.get(modes[0], 0.0),
            "most_used": most,
            "as_expected": most == modes[0],
        }
    return found


def mean_modal_split(
    splits: Sequence[Mapping[str, Mapping[str, Mapping[str, float]]]],
) -> dict[str, dict[str, dict[str, float]]]:
    """The mean of several runs' modal splits (profile -> day -> mode -> percent)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for profile in sorted({p for split in splits for p in split}):
        days = sorted({d for split in splits for d in split.get(profile, {})}, key=int)
        out[profile] = {}
        for day in days:
            having = [s for s in splits if day in s.get(profile, {})]
            out[profile][day] = {
                mode: round(_mean(s[profile][day].get(mode, 0.0) for s in having), 2)
                for mode in MODES
            }
    return out


def mean_taxi_wait(runs: Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The mean over runs of each day's mean taxi wait (days with no taxi trip are skipped)."""
    days: dict[int, list[float]] = {}
    strike: dict[int, bool] = {}
    for by_day in runs:
        for row in by_day:
            day = int(row["day"])
            strike[day] = bool(row.get("strike")) or strike.get(day, False)
            days.setdefault(day, [])
            if row.get("mean_wait_min") is not None:
                days[day].append(float(row["mean_wait_min"]))
    return [
        {
            "day": day,
            "mean_wait_min": round(_mean(waits), 2) if waits else None,
            "strike": strike[day],
        }
        for day, waits in sorted(days.items())
    ]


def _modal_split(done: Sequence[tuple[str, TripOutcome]]) -> dict[str, dict[str, dict[str, float]]]:
    counts: dict[str, dict[int, Counter[str]]] = {}
    for profile, o in done:
        counts.setdefault(profile, {}).setdefault(o.day, Counter())[o.mode] += 1
    return {
        profile: {
            str(day): {mode: round(100.0 * c[mode] / sum(c.values()), 2) for mode in MODES}
            for day, c in sorted(days.items())
        }
        for profile, days in sorted(counts.items())
    }


def _share(outcomes: Iterable[TripOutcome]) -> dict[str, float]:
    counts = Counter(o.mode for o in outcomes)
    total = sum(counts.values())
    return {m: round(100.0 * counts[m] / total, 2) for m in MODES} if total else {}


def _satisfaction(done: Sequence[tuple[str, TripOutcome]]) -> dict[str, float | None]:
    """The mean satisfaction of the scored trips, in all and per profile."""
    scores: dict[str, list[float]] = {"all": []}
    for profile, o in done:
        if o.satisfaction is not None:
            scores["all"].append(o.satisfaction)
            scores.setdefault(profile, []).append(o.satisfaction)
    return {k: round(_mean(v), 3) if v else None for k, v in scores.items()}


def _rounded(summary: Any) -> dict[str, float]:
    return {k: round(v, 2) for k, v in summary.as_dict().items()}


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
