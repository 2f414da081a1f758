"""What a commute run measured, as metrics.json holds it.

- `punctuality`: the source's Table 5 (early, late, on time, incomplete, completion, percent of
  trips), with the on-time window stated; also per profile and on strike days alone.
- `modal_split`: percent of each profile's trips per mode per day (the source's Figure 6).
- `taxi_wait`: mean taxi wait per day, strike days marked (the source's Figure 7).
- `fallbacks`: per purpose, calls that ended in the declared fallback and their rate.
- `budget`: the model ledger per purpose and calls per agent-day.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from simulacra.commuter.run import CommuteConfig, CommuteResults
from simulacra.llm import Ledger
from simulacra.worlds.commute import MODES, City, format_hhmm, summarize

TABLE5_COLUMNS = ("early", "late", "on_time", "incomplete", "completion")


def on_time_window(config: CommuteConfig) -> str:
    """The classification in words, as Table 5 needs it stated."""
    window = config.city.on_time_window_min
    close = format_hhmm(City(config.city).window.end_min)
    return (
        f"on time: arrival within the {window:g} minutes before the deadline; early: before "
        f"that; late: after the deadline; incomplete: not arrived by {close}"
    )


def strike_days(config: CommuteConfig) -> list[int]:
    city = City(config.city)
    size = config.city.taxi.size
    return [d for d in range(1, config.days + 1) if len(city.taxis_in_service(d)) < size]


def table5_row(results: CommuteResults) -> dict[str, Any]:
    summary = results.summary().as_dict()
    row: dict[str, Any] = {"variant": results.variant, "trips": int(summary["trips"])}
    row.update({k: round(summary[k], 2) for k in TABLE5_COLUMNS})
    return row


def commute_metrics(
    results: CommuteResults, config: CommuteConfig, ledger: Ledger
) -> dict[str, Any]:
    """metrics.json for one run (JSON-ready: days are string keys where they key a mapping)."""
    strikes = strike_days(config)
    city = City(config.city)
    waits = results.taxi_wait_by_day()
    taxi_trips = Counter(r.day for r in results.records if r.outcome.mode == "taxi")
    by_profile = {
        profile: _rounded(summarize(r.outcome for r in results.records if r.profile == profile))
        for profile in sorted({r.profile for r in results.records})
    }
    return {
        "punctuality": {
            "variant": results.variant,
            "on_time_window": on_time_window(config),
            "table": [table5_row(results)],
            "by_profile": by_profile,
            "strike_days_only": _rounded(
                summarize(r.outcome for r in results.records if r.day in strikes)
            ),
        },
        "modal_split": _modal_split(results),
        "taxi_wait": {
            "strike_days": strikes,
            "by_day": [
                {
                    "day": day,
                    "mean_wait_min": round(waits[day], 2) if day in waits else None,
                    "taxi_trips": taxi_trips[day],
                    "taxis_in_service": len(city.taxis_in_service(day)),
                    "strike": day in strikes,
                }
                for day in range(1, config.days + 1)
            ],
        },
        "fallbacks": fallback_rates(results),
        "budget": budget(results, ledger),
    }


def fallback_rates(results: CommuteResults) -> dict[str, dict[str, float]]:
    """Per purpose: calls, fallbacks and their share (section 4.4: every fallback is counted)."""
    rates = {
        purpose: {
            "calls": float(calls),
            "fallbacks": float(results.fallbacks[purpose]),
            "rate": round(results.fallbacks[purpose] / calls, 4) if calls else 0.0,
        }
        for purpose, calls in sorted(results.calls.items())
    }
    calls, fallbacks = sum(results.calls.values()), sum(results.fallbacks.values())
    rates["total"] = {
        "calls": float(calls),
        "fallbacks": float(fallbacks),
        "rate": round(fallbacks / calls, 4) if calls else 0.0,
    }
    return rates


def budget(results: CommuteResults, ledger: Ledger) -> dict[str, Any]:
    agent_days = max(1, results.agents * results.days)
    book = ledger.to_dict()
    return {
        "calls_per_agent_day": round(results.calls_per_agent_day(), 4),
        "calls_per_agent_day_by_purpose": {
            p: round(n / agent_days, 4) for p, n in sorted(results.calls.items())
        },
        "total": book["total"],
        "by_purpose": book["by_purpose"],
    }


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


def _modal_split(results: CommuteResults) -> dict[str, dict[str, dict[str, float]]]:
    return {
        profile: {
            str(day): {mode: round(split.get(mode, 0.0), 2) for mode in MODES}
            for day, split in days.items()
        }
        for profile, days in results.modal_split().items()
    }


def _rounded(summary: Any) -> dict[str, float]:
    return {k: round(v, 2) for k, v in summary.as_dict().items()}


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else 0.0
