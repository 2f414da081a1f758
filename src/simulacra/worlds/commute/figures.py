"""The data behind the commute report's figures beyond Table 5, read back from the log.

- `origins`: each agent's home and destination on the corridor, by profile (Figure 4).
- `choices`: each agent of one profile on one day: where it went from and to, by what mode,
  and how it came out (Figure 5; the source drew its students on day 14).
- `taxi_wait_by_profile`: each profile's mean taxi wait per day (the bars of Figure 7).
- `trace`: one agent's weeks as Appendix B lays them out: each day's mode, departure, arrival
  and the reflection on it, each week's lesson and every merge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from simulacra.core import format_hhmm
from simulacra.runlog import Event
from simulacra.worlds.commute.config import CommuteFigures
from simulacra.worlds.commute.outcomes import TripOutcome

Trips = Sequence[tuple[str, TripOutcome]]


def origins(
    agents: Mapping[str, Mapping[str, Any]], zones: Mapping[str, float]
) -> list[dict[str, Any]]:
    """Each agent's profile and the corridor positions (km) of its home and destination."""
    return [
        {
            "agent": agent,
            "profile": info.get("profile", ""),
            "home_km": zones[info["home"]],
            "destination_km": zones[info["destination"]],
        }
        for agent, info in agents.items()
        if info.get("home") in zones and info.get("destination") in zones
    ]


def choices(
    done: Trips,
    agents: Mapping[str, Mapping[str, Any]],
    zones: Mapping[str, float],
    profile: str,
    day: int,
) -> list[dict[str, Any]]:
    """Every trip of `profile`'s agents on `day`, with where it began and ended."""
    found = []
    for name, outcome in done:
        info = agents.get(outcome.agent, {})
        if name != profile or outcome.day != day or info.get("home") not in zones:
            continue
        found.append(
            {
                "agent": outcome.agent,
                "mode": outcome.mode,
                "home_km": zones[info["home"]],
                "destination_km": zones[info["destination"]],
                "departure": format_hhmm(outcome.departure_min),
                "arrival": None
                if outcome.arrival_min is None
                else format_hhmm(outcome.arrival_min),
                "punctuality": outcome.punctuality,
            }
        )
    return found


def taxi_wait_by_profile(done: Trips, days: int) -> dict[str, list[dict[str, Any]]]:
    waits: dict[str, dict[int, list[float]]] = {}
    for profile, o in done:
        if o.mode == "taxi":
            waits.setdefault(profile, {}).setdefault(o.day, []).append(o.wait_min)
    return {
        profile: [
            {
                "day": day,
                "mean_wait_min": round(sum(w) / len(w), 2) if (w := by_day.get(day)) else None,
                "taxi_trips": len(by_day.get(day, [])),
            }
            for day in range(1, days + 1)
        ]
        for profile, by_day in sorted(waits.items())
    }


def trace(events: Iterable[Event], agent: str) -> list[dict[str, Any]]:
    """`agent`'s weeks: per day its trip and the reflection on it; per week its lesson and any
    merge made at its end."""
    days: dict[int, dict[str, Any]] = {}
    weeks: dict[int, dict[str, Any]] = {}
    for event in events:
        if event.agent != agent:
            continue
        data = event.data
        if event.kind == "action" and data.get("phase") == "travel":
            day = int(data["day"])
            arrival = data.get("arrival_min")
            days.setdefault(day, {}).update(
                {
                    "day": day,
                    "mode": data["mode"],
                    "departure": format_hhmm(float(data["departure_min"])),
                    "arrival": None if arrival is None else format_hhmm(float(arrival)),
                    "punctuality": data["punctuality"],
                    "satisfaction": data.get("satisfaction"),
                }
            )
        elif event.kind == "decision" and data.get("purpose") == "commute.reflect":
            days.setdefault(int(data["day"]), {})["reflection"] = data["choice"]
        elif event.kind == "decision" and data.get("purpose") in (
            "commute.abstract",
            "commute.merge",
        ):
            key = "lesson" if data["purpose"] == "commute.abstract" else "merged"
            weeks.setdefault(int(data["week"]), {})[key] = data["choice"]
    by_week: dict[int, list[dict[str, Any]]] = {}
    for day, row in sorted(days.items()):
        by_week.setdefault((day - 1) // 5 + 1, []).append({"day": day, **row})
    return [
        {"week": week, "days": rows, **weeks.get(week, {})}
        for week, rows in sorted(by_week.items())
    ]


def trace_agent(agents: Mapping[str, Mapping[str, Any]], figures: CommuteFigures) -> str | None:
    """The agent the trace follows: the one named, else the first of the profile named, else
    the first agent."""
    if figures.trace_agent in agents:
        return figures.trace_agent
    wanted = figures.trace_profile
    for agent, info in agents.items():
        if wanted is None or info.get("profile") == wanted:
            return agent
    return None
