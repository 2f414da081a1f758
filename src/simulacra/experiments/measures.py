"""The measures every run has, read back from its events: the model budget, the fallbacks, the
memory (who rated each record's importance, how often agents reflected), and the diffusion of
what interviews ask about."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

from simulacra.core import InterviewAnswer
from simulacra.memory import WITNESSED
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


class Judge(Protocol):
    """Whether an agent's interview answer at a time counts as aware, and whether the memory
    stream bears out whom a closed answer names as its source (experiments.facts.AwareTest)."""

    def __call__(self, agent: str, answer: InterviewAnswer, now: datetime) -> bool: ...

    def confirms(self, answer: InterviewAnswer) -> bool: ...


def diffusion(
    events: Sequence[Event],
    question: str,
    aware: Judge,
    told: Callable[[str, str], bool] | None = None,
    owner: str | None = None,
    off: Callable[[str], bool] | None = None,
) -> list[dict[str, Any]]:
    """Per interview time: how many agents answered aware (by the `aware` test, given the
    texts of the answer's memories that the agent saw or heard, from the `memory.add`
    events), who, every answer, and whom each aware agent first heard it from: the speaker of
    the first turn of a conversation with it, before the first interview it answered aware,
    that states the fact (`told(text, speaker)`); the fact's `owner` (named in the row where
    it counts, for it is aware by the fact's planting whatever it answers), and one aware
    before anyone told it, have no teller. Given `off` (an answer -> it says the fact is
    called off), each row also counts those as `off`. Closed answers are also listed as
    `claims`: each agent's choice, whom it says it heard it from, and whether its memories
    confirm that (`aware.confirms`)."""
    by_time: defaultdict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    witnessed: dict[str, str] = {}  # record id -> text, of what an agent saw or heard
    heard: list[tuple[datetime, str, list[str]]] = []  # (when, speaker, listeners)
    for event in events:
        if event.kind == "interview" and event.data.get("question") == question:
            by_time[event.t or ""][event.agent or "-"] = event.data
        elif event.kind == "memory.add" and event.data.get("kind") in WITNESSED:
            witnessed[str(event.data.get("id"))] = str(event.data.get("text", ""))
        elif event.kind == "conversation" and told is not None and event.t:
            people = [str(p) for p in event.data.get("participants", [])]
            for turn in event.data.get("turns", []):
                speaker = str(turn.get("speaker", ""))
                if told(str(turn.get("text", "")), speaker):
                    when = datetime.fromisoformat(event.t)
                    heard.append((when, speaker, [p for p in people if p != speaker]))

    def answer_of(data: dict[str, Any]) -> InterviewAnswer:
        ids = tuple(str(i) for i in data.get("memory_ids", []))
        evidence = tuple(witnessed[i] for i in ids if i in witnessed)
        said, choice, source = str(data.get("answer", "")), data.get("choice"), data.get("source")
        return InterviewAnswer(question, said, ids, False, choice, evidence, source)

    found = []
    first: dict[str, str | None] = {}  # each agent's teller as of the first time it knew
    for t, data in sorted(by_time.items()):
        when = datetime.fromisoformat(t)
        answers = {a: answer_of(d) for a, d in data.items()}
        knew = [a for a, answer in answers.items() if aware(a, answer, when)]
        for agent in knew:
            if agent == owner:
                first[agent] = None
            elif agent not in first:  # who knew before anyone told them stays so
                first[agent] = next((s for at, s, to in heard if at <= when and agent in to), None)
        sources = {a: s for a in knew if (s := first[a]) is not None}
        said = {a: answer.answer for a, answer in answers.items()}
        row = {"t": t, "aware": len(knew), "agents": knew, "answers": said}
        row |= {"owner": owner} if owner in knew else {}  # aware by planting, not by answer
        claims = {
            a: {"choice": x.choice, "from_whom": x.source, "confirmed": aware.confirms(x)}
            for a, x in answers.items()
            if x.source is not None
        }
        row |= {"claims": claims} if claims else {}
        if off is not None:
            row["off"] = sum(1 for text in said.values() if off(text))
        found.append(row | ({"heard_from": sources} if told is not None else {}))
    return found


# Where an importance came from other than a model's rating (any other source names a model).
UNRATED = ("rule", "fixed", "given")


class MemoryTally:
    """Counted while the log is read: each record's importance source by kind, and the
    reflections."""

    def __init__(self) -> None:
        self.sources: defaultdict[str, defaultdict[str, int]] = defaultdict(
            lambda: defaultdict(int)
        )
        self.reflections = 0

    def add(self, event: Event) -> None:
        if event.kind == "memory.add":
            source = str(event.data.get("importance_source", ""))
            by = source if source in UNRATED else "model"
            self.sources[str(event.data.get("kind", "?"))][by] += 1
        elif event.kind == "reflection":
            self.reflections += 1

    def result(self, agent_days: int) -> dict[str, Any]:
        """Records by who set their importance (`model` for a model's rating), in all and
        per kind, the model's share, and the reflections per agent-day."""
        total: defaultdict[str, int] = defaultdict(int)
        for counts in self.sources.values():
            for by, n in counts.items():
                total[by] += n
        records = sum(total.values())
        return {
            "records": records,
            "importance": dict(sorted(total.items())),
            "importance_by_kind": {
                k: dict(sorted(v.items())) for k, v in sorted(self.sources.items())
            },
            "model_rated_share": round(total["model"] / records, 4) if records else 0.0,
            "reflections": self.reflections,
            "reflections_per_agent_day": (
                round(self.reflections / agent_days, 3) if agent_days else 0.0
            ),
        }
