"""The measures every run has, read back from its events: the model budget, the fallbacks, the
memory (who rated each record's importance, how often agents reflected), and the diffusion of
what interviews ask about."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple, Protocol

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
    """Counted while the log is read: each record's importance source by kind, the
    reflections, and how much the retrievals selected (`RetrievalTally`)."""

    def __init__(self, start: datetime | None = None) -> None:
        self.sources: defaultdict[str, defaultdict[str, int]] = defaultdict(
            lambda: defaultdict(int)
        )
        self.reflections = 0
        self.retrievals = RetrievalTally(start)

    def add(self, event: Event) -> None:
        if event.kind == "memory.add":
            source = str(event.data.get("importance_source", ""))
            by = source if source in UNRATED else "model"
            self.sources[str(event.data.get("kind", "?"))][by] += 1
        elif event.kind == "reflection":
            self.reflections += 1
        elif event.kind == "retrieval":
            self.retrievals.add(event)

    def result(self, agent_days: int) -> dict[str, Any]:
        """Records by who set their importance (`model` for a model's rating), in all and
        per kind, the model's share, the reflections per agent-day, and the retrievals."""
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
            "retrieval": self.retrievals.result(),
        }


# Raw recency spreads below this do not tell candidates apart (the audit: 0.005).
NARROW_SPREAD = 0.005


class RetrievalTally:
    """Whether each retrieval selected: one that returned every candidate left nothing out
    (the guide: "retrieval should not include every memory"), and one whose candidates'
    raw recency lay within `NARROW_SPREAD` could not rank them by recency. Interviews are
    left out: they read the stream for the measure, not for the agent. A log from before
    retrieval events said how many candidates there were counts none."""

    def __init__(self, start: datetime | None) -> None:
        self.start = start
        self.rows: list[_Selected] = []

    def add(self, event: Event) -> None:
        data = event.data
        purpose = str(data.get("purpose", ""))
        candidates, spread = data.get("candidates"), data.get("recency_spread")
        if purpose.startswith("interview") or not candidates or spread is None:
            return
        results = len(data.get("results", []))
        late = (
            self.start is None
            or event.t is None
            or datetime.fromisoformat(event.t) >= self.start + timedelta(hours=1)
        )
        self.rows.append(
            _Selected(purpose, results >= candidates, late, float(spread), results, candidates)
        )

    def result(self) -> dict[str, Any]:
        """The retrievals, how many returned every candidate (in all and after the run's
        first hour, when streams are still short), the raw recency spread, and per purpose
        the mean results and candidates."""
        rows = self.rows
        whole = sum(r.whole for r in rows)
        late = [r for r in rows if r.late]
        spreads = sorted(r.spread for r in rows)
        by_purpose: defaultdict[str, list[_Selected]] = defaultdict(list)
        for row in rows:
            by_purpose[row.purpose].append(row)
        return {
            "retrievals": len(rows),
            "whole_stream": whole,
            "whole_stream_share": _share(whole, len(rows)),
            "whole_stream_share_after_first_hour": _share(sum(r.whole for r in late), len(late)),
            "recency_spread_median": round(spreads[len(spreads) // 2], 4) if spreads else 0.0,
            "recency_spread_flat": sum(1 for v in spreads if v < 1e-9),
            "recency_spread_narrow": sum(1 for v in spreads if v < NARROW_SPREAD),
            "by_purpose": {
                purpose: {
                    "retrievals": len(group),
                    "whole_stream": sum(r.whole for r in group),
                    "mean_results": round(sum(r.results for r in group) / len(group), 1),
                    "mean_candidates": round(sum(r.candidates for r in group) / len(group), 1),
                }
                for purpose, group in sorted(by_purpose.items())
            },
        }


class _Selected(NamedTuple):
    """One retrieval, as RetrievalTally counts it."""

    purpose: str
    whole: bool  # it returned every candidate
    late: bool  # after the run's first hour
    spread: float
    results: int
    candidates: int


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
