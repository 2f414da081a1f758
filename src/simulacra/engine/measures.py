"""A run's measures, read back from its events: the model budget and the town's metrics."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from simulacra.experiments.config import Scenario
from simulacra.runlog import Event, read_events
from simulacra.worlds.town.metrics import attendance, conversations, diffusion, rejected_actions

_FIELDS = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "latency_s",
    "cache_hits",
    "retries",
    "fallbacks",
)


def _tally() -> dict[str, float]:
    return dict.fromkeys(_FIELDS, 0)


def _add(tally: dict[str, float], data: dict[str, Any]) -> None:
    tally["calls"] += 1
    tally["prompt_tokens"] += int(data.get("prompt_tokens", 0))
    tally["completion_tokens"] += int(data.get("completion_tokens", 0))
    tally["latency_s"] = round(tally["latency_s"] + float(data.get("latency_s", 0.0)), 4)
    tally["cache_hits"] += int(bool(data.get("cached")))
    tally["retries"] += max(0, int(data.get("attempts", 1)) - 1)
    tally["fallbacks"] += int(bool(data.get("fallback")))


def budget(events: Iterable[Event], agents: int, hours: float) -> dict[str, Any]:
    """Calls, tokens, latency, cache hits, retries and fallbacks: in total, per purpose, per
    agent and per agent-day; and calls per agent-hour of simulated time."""
    total = _tally()
    by_purpose: defaultdict[str, dict[str, float]] = defaultdict(_tally)
    by_agent: defaultdict[str, dict[str, float]] = defaultdict(_tally)
    per_day: defaultdict[str, defaultdict[str, dict[str, float]]] = defaultdict(
        lambda: defaultdict(_tally)
    )
    for event in events:
        if event.kind != "llm.call":
            continue
        agent = event.agent or "-"
        day = (event.t or "")[:10] or "-"
        for tally in (
            total,
            by_purpose[event.data.get("purpose", "?")],
            by_agent[agent],
            per_day[agent][day],
        ):
            _add(tally, event.data)
    per_agent_day = {
        agent: {
            day: {"calls": t["calls"], "tokens": t["prompt_tokens"] + t["completion_tokens"]}
            for day, t in sorted(days.items())
        }
        for agent, days in sorted(per_day.items())
    }
    agent_hours = agents * hours
    return {
        "total": total,
        "by_purpose": dict(sorted(by_purpose.items())),
        "by_agent": dict(sorted(by_agent.items())),
        "per_agent_day": per_agent_day,
        "calls_per_agent_hour": round(total["calls"] / agent_hours, 3) if agent_hours else 0.0,
    }


def run_metrics(events_path: Path, scenario: Scenario, ticks: int) -> dict[str, Any]:
    """metrics.json: diffusion, attendance, conversations per pair, budget and fallbacks."""
    events = list(read_events(events_path))
    spent = budget(events, len(scenario.agents.roster), ticks * scenario.schedule.tick_minutes / 60)
    plan, party = scenario.interviews, scenario.attendance
    return {
        "diffusion": diffusion(events, plan.question, plan.aware_when) if plan else [],
        "attendance": (
            attendance(events, party.place, scenario.when(party.start), scenario.when(party.end))
            if party
            else {}
        ),
        "conversations": conversations(events),
        "budget": spent,
        "fallbacks": {
            "total": spent["total"]["fallbacks"],
            "by_purpose": {
                k: v["fallbacks"] for k, v in spent["by_purpose"].items() if v["fallbacks"]
            },
        },
        "rejected_actions": rejected_actions(events),
    }
