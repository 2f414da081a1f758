"""The measures every run has, read back from its events: the model budget, the fallbacks, and
the diffusion of what interviews ask about."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from simulacra.core import mentions_all
from simulacra.runlog import Event

_FIELDS = (
    "calls",
    "prompt_tokens",
    "completion_tokens",
    "cached_prompt_tokens",
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
    tally["cached_prompt_tokens"] += int(data.get("cached_prompt_tokens", 0))
    tally["latency_s"] = round(tally["latency_s"] + float(data.get("latency_s", 0.0)), 4)
    tally["cache_hits"] += int(bool(data.get("cached")))
    tally["retries"] += max(0, int(data.get("attempts", 1)) - 1)
    tally["fallbacks"] += int(bool(data.get("fallback")))


def budget(events: Iterable[Event], agents: int, ticks: int, tick: timedelta) -> dict[str, Any]:
    """Calls, tokens, latency, cache hits, retries and fallbacks: in total, per purpose, per
    agent and per agent-day; and calls per agent-tick and per agent-hour of simulated time."""
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
    agent_ticks = agents * ticks
    agent_hours = agent_ticks * tick.total_seconds() / 3600
    return {
        "total": total,
        "by_purpose": dict(sorted(by_purpose.items())),
        "by_agent": dict(sorted(by_agent.items())),
        "per_agent_day": per_agent_day,
        "calls_per_agent_tick": round(total["calls"] / agent_ticks, 4) if agent_ticks else 0.0,
        "calls_per_agent_hour": round(total["calls"] / agent_hours, 3) if agent_hours else 0.0,
    }


def fallbacks(spent: dict[str, Any]) -> dict[str, Any]:
    """Calls that ended in their declared fallback, in total and per purpose, with the rate."""
    total = spent["total"]
    return {
        "total": total["fallbacks"],
        "rate": round(total["fallbacks"] / total["calls"], 4) if total["calls"] else 0.0,
        "by_purpose": {
            k: {
                "fallbacks": v["fallbacks"],
                "calls": v["calls"],
                "rate": round(v["fallbacks"] / v["calls"], 4),
            }
            for k, v in spent["by_purpose"].items()
            if v["fallbacks"]
        },
    }


def diffusion(
    events: Sequence[Event], question: str, aware_when: Sequence[Sequence[str]]
) -> list[dict[str, Any]]:
    """Per interview time: how many agents answered aware, who, and every answer."""
    by_time: defaultdict[str, dict[str, str]] = defaultdict(dict)
    for event in events:
        if event.kind == "interview" and event.data.get("question") == question:
            by_time[event.t or ""][event.agent or "-"] = str(event.data.get("answer", ""))
    found = []
    for t, answers in sorted(by_time.items()):
        aware = [a for a, text in answers.items() if mentions_all(text, aware_when)]
        found.append({"t": t, "aware": len(aware), "agents": aware, "answers": answers})
    return found
