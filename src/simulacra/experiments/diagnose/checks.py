"""The source's debugging table as checks on a finished run's log: seven failure modes, the
layer each points to and what to inspect first, and each finding with the events that show
it. Every check reads only the log, except whether an interview answer denies a fact, which
the caller decides (a judge model, through the gateway) and passes in as `aware`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from simulacra.core import mentions_all
from simulacra.experiments.diagnose.log import FactWords, Line, RunLog, at, lines
from simulacra.mind.town.routine import is_sleep
from simulacra.runlog import Event


@dataclass(frozen=True)
class Mode:
    """A row of the source's table: the symptom, the layer to suspect, what to inspect."""

    key: str
    symptom: str
    layer: str
    inspect: str


MODES = (
    Mode(
        "retrieval_miss",
        "told a fact, the agent answers as if it never heard it",
        "retrieval",
        "the interview's query, the scores of what was retrieved, and the token budget",
    ),
    Mode(
        "fragments",
        "the agent recalls pieces of a fact but not the fact (knows there is a plan, not the "
        "party)",
        "retrieval of fragments without the original",
        "whether the record that stated the fact was left out while its fragments came back",
    ),
    Mode(
        "embellishment",
        "a reflection states a name or number none of its sources holds",
        "synthesis",
        "the evidence ids, what they say, and the insight prompt's constraints",
    ),
    Mode(
        "repetition",
        "the schedule does one activity over and over (lunch at noon and again at one)",
        "planning or the clock",
        "block starts and durations, and where blocks were broken down",
    ),
    Mode(
        "no_reaction",
        "an event happens where the agent is, and its plan never changes",
        "reaction and replanning",
        "whether the agent saw it, the reaction decision, and what a replan covers",
    ),
    Mode(
        "stale_belief",
        "a corrected belief keeps steering what the agent says or plans",
        "invalidation",
        "whether the belief's sources were invalidated and what still cites them",
    ),
    Mode(
        "cost_growth",
        "model calls or prompt tokens keep growing as the run goes on",
        "budgets",
        "the retrieval budget, reflection frequency, caching and repeated summaries",
    ),
)


@dataclass(frozen=True)
class Finding:
    mode: str
    agent: str | None
    t: str | None
    summary: str
    events: tuple[Line, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Checked:
    """One mode's outcome: `status` found, clear or not checked, and what was looked at."""

    mode: Mode
    status: str
    looked: str
    findings: tuple[Finding, ...] = ()


def interview_facts(log: RunLog) -> list[tuple[Event, FactWords]]:
    """Each interview of the log with the fact its question asks about."""
    by_question = {f.question: f for f in log.facts.values()}
    found = []
    for event in log.of({"interview"}):
        fact = by_question.get(str(event.data.get("question")))
        if fact is not None:
            found.append((event, fact))
    return found


def check_denials(log: RunLog, aware: Mapping[int, bool]) -> list[Checked]:
    """Retrieval misses and fragments: an interview whose answer (judged by `aware`, keyed by
    the interview's seq) denies a fact the agent held a valid record of."""
    asked = interview_facts(log)
    misses: list[Finding] = []
    pieces: list[Finding] = []
    for interview, fact in asked:
        agent, t = interview.agent or "", at(interview)
        held = log.holding(agent, fact, t)
        if not held or aware.get(interview.seq, True):
            continue
        retrieval = _retrieval_before(log, interview)
        shown = [str(r["id"]) for r in retrieval.data.get("results", [])] if retrieval else []
        stated = [str(e.data["id"]) for e in held]
        partial = [
            i
            for i in shown
            if i not in stated and any(mentions_all(log.text(i), [g]) for g in fact.groups)
        ]
        detail = {
            "fact": fact.name,
            "records": stated,
            "retrieved": len(shown),
            "top": (retrieval.data.get("results", [])[:5] if retrieval else []),
            "token_budget": retrieval.data.get("token_budget") if retrieval else None,
        }
        evidence = [*held[-2:], *([retrieval] if retrieval else []), interview]
        told = log.text(stated[-1])
        if set(stated) & set(shown):
            summary = (
                f"{log.name(agent)} held the {fact.label} and retrieval brought it up, yet the "
                "answer denies it: the model did not use what it was shown"
            )
            misses.append(_finding("retrieval_miss", log, interview, summary, evidence, detail))
        elif partial:
            detail["fragments"] = partial
            summary = (
                f"{log.name(agent)} was asked about the {fact.label}: retrieval brought up "
                f"{len(partial)} record(s) with part of it, not the one that states it "
                f"({stated[-1]})"
            )
            pieces.append(_finding("fragments", log, interview, summary, evidence, detail))
        else:
            summary = (
                f"{log.name(agent)} held the {fact.label} ({stated[-1]}: {told[:80]!r}) but "
                f"none of the {len(shown)} records retrieved for the interview states it"
            )
            misses.append(_finding("retrieval_miss", log, interview, summary, evidence, detail))
    about = sorted({fact.label for _, fact in asked})
    looked = f"{len(asked)} interviews about the {' and the '.join(about) or 'no fact'}"
    if not asked:
        why = "no interview of the run asks about a fact (interviews, evaluation.questions)"
        return [_not_checked("retrieval_miss", why), _not_checked("fragments", why)]
    return [_outcome("retrieval_miss", looked, misses), _outcome("fragments", looked, pieces)]


_PROPER = re.compile(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z]+|\d+(?::\d+)?)\b")


def check_embellishment(log: RunLog) -> Checked:
    """Insights that name a person, place or number none of their evidence names."""
    found = []
    insights = 0
    for event in log.of({"reflection"}):
        own = set(re.findall(r"[a-z]+", log.name(event.agent).lower()))
        for insight in event.data.get("insights", []):
            insights += 1
            sources = [log.text(str(i)) for i in insight.get("evidence_ids", [])]
            said = " ".join(sources).lower()
            text = str(insight.get("text", ""))
            extra = sorted(
                {w for w in _PROPER.findall(text) if w.lower() not in said and w.lower() not in own}
            )
            if not extra:
                continue
            cited = [log.records[i] for i in insight.get("evidence_ids", []) if i in log.records]
            summary = (
                f"{log.name(event.agent)}'s insight names {', '.join(extra)}: its sources do not"
            )
            detail = {"insight": insight.get("id"), "unsupported": extra}
            found.append(_finding("embellishment", log, event, summary, [event, *cited], detail))
    return _outcome("embellishment", f"{insights} insights of reflections", found)


_MEALS = ("breakfast", "lunch", "dinner")
_WORD = re.compile(r"[a-z']+")


def check_repetition(log: RunLog) -> Checked:
    """A plan that lists one activity in three blocks or more, or a meal twice; a meal eaten
    twice in a day, an hour apart or more."""
    found = []
    plans = log.of({"plan"})
    for event in plans:
        if event.data.get("level") not in ("day", "replan"):
            continue
        counts: defaultdict[str, int] = defaultdict(int)
        for item in event.data.get("items", []):
            activity = " ".join(_WORD.findall(str(item.get("description", "")).lower()))
            if activity and not is_sleep(activity):
                counts[activity] += 1
        for activity, n in counts.items():
            eating = any(m in activity.split() for m in _MEALS)
            if n >= 3 or (eating and n >= 2):
                level = event.data["level"]
                summary = f"{log.name(event.agent)}'s {level} plan lists {activity!r} {n} times"
                found.append(_finding("repetition", log, event, summary, [event], {"times": n}))
    by_day: defaultdict[tuple[str, str, str], list[Event]] = defaultdict(list)
    for event in log.of({"action"}):
        words = set(_WORD.findall(str(event.data.get("description", "")).lower()))
        for meal in _MEALS:
            if meal in words and event.agent:
                by_day[(event.agent, (event.t or "")[:10], meal)].append(event)
    for (agent, day, meal), meals in by_day.items():
        if at(meals[-1]) - at(meals[0]) >= timedelta(hours=1):
            summary = f"{log.name(agent)} had {meal} {len(meals)} times on {day}"
            found.append(_finding("repetition", log, meals[-1], summary, meals, {"meal": meal}))
    looked = f"{len(plans)} plans and the actions of every agent"
    return _outcome("repetition", looked, found)


REACT_WITHIN = timedelta(hours=1)


def check_no_reaction(log: RunLog) -> Checked:
    """An agent that saw a world event and neither reacted nor replanned within the hour."""
    happened = [e for e in log.of({"intervention"}) if e.data.get("type") == "event"]
    if not happened:
        return _not_checked("no_reaction", "no event intervention happens in this run")
    found = []
    seen_by = 0
    for event in happened:
        text = str(event.data.get("text", ""))
        seen = [o for o in log.of({"observation"}) if text and text in str(o.data.get("text"))]
        seen_by += len(seen)
        for sight in seen:
            agent, t = sight.agent, at(sight)
            after = [
                e for e in log.of({"decision", "plan"}, agent) if t <= at(e) <= t + REACT_WITHIN
            ]
            acted = [
                e
                for e in after
                if e.data.get("choice") in ("react", "replan", "talk")
                or e.data.get("level") == "replan"
            ]
            if acted:
                continue
            summary = f"{log.name(agent)} saw {text!r} and carried on for the next hour"
            evidence = [event, sight, *after[:3]]
            found.append(_finding("no_reaction", log, sight, summary, evidence, {}))
    looked = f"{len(happened)} world events, seen {seen_by} times"
    return _outcome("no_reaction", looked, found)


def check_stale_beliefs(log: RunLog) -> Checked:
    """After a correction: a retrieval that returns a record it invalidated, or words of the
    agent's (a turn, a plan, an insight, an answer) that state the corrected fact without any
    word of the correction's own."""
    corrections = [e for e in log.of({"intervention"}) if e.data.get("type") == "correction"]
    if not corrections:
        return _not_checked("stale_belief", "no correction intervention in this run")
    found = []
    for correction in corrections:
        t = at(correction)
        groups = [list(g) for g in correction.data.get("contradicts") or []]
        gone = {r for r, fell in log.fell.items() if fell == t}
        old = " ".join(log.text(r) for r in gone).lower()
        new = {w for w in _WORD.findall(str(correction.data["text"]).lower()) if len(w) > 3}
        own = new - set(_WORD.findall(old)) - {w.lower() for g in groups for w in g}
        for event in log.events:
            if at(event) <= t or event.agent is None:
                continue
            if event.kind == "retrieval":
                back = [str(r["id"]) for r in event.data.get("results", []) if r["id"] in gone]
                if back:
                    summary = f"{log.name(event.agent)}'s retrieval returned invalidated {back}"
                    found.append(_finding("stale_belief", log, event, summary, [event], {}))
                continue
            said = _said(event)
            if said and mentions_all(said, groups) and not own & set(_WORD.findall(said.lower())):
                summary = (
                    f"after the correction {log.name(event.agent)} still states it: {said[:90]!r}"
                )
                evidence = [correction, event]
                found.append(_finding("stale_belief", log, event, summary, evidence, {}))
    return _outcome("stale_belief", f"{len(corrections)} corrections and what followed", found)


def _said(event: Event) -> str:
    if event.kind in ("message", "interview"):
        return str(event.data.get("text") or event.data.get("answer") or "")
    if event.kind == "plan":
        return "; ".join(
            f"{i.get('description')} at {i.get('place')}" for i in event.data.get("items", [])
        )
    if event.kind == "reflection":
        return "; ".join(str(i.get("text")) for i in event.data.get("insights", []))
    return ""


# Growth that counts: the last day's calls against the first's, and the last quarter's prompt
# tokens a call against the first's (prompts grow as memories fill the window, then stop).
CALL_GROWTH, TOKEN_GROWTH = 1.5, 2.0


def check_cost(log: RunLog, agents: int) -> Checked:
    """Calls per agent-hour by day, and prompt tokens per call by quarter of the run."""
    calls = log.of({"llm.call"})
    if not calls:
        return _not_checked("cost_growth", "the run made no model call")
    per_day: defaultdict[str, int] = defaultdict(int)
    for call in calls:
        per_day[(call.t or "")[:10]] += 1
    quarters = _quarters(calls)
    tokens = [
        sum(int(c.data.get("prompt_tokens", 0)) for c in q) / len(q) if q else 0.0 for q in quarters
    ]
    days = sorted(per_day)
    figures = {
        "calls_per_day": {d: per_day[d] for d in days},
        "prompt_tokens_per_call_by_quarter": [round(x, 1) for x in tokens],
    }
    found = []
    first, last = per_day[days[0]], per_day[days[-1]]
    if len(days) > 1 and last > CALL_GROWTH * first:
        summary = f"{last} calls on {days[-1]} against {first} on {days[0]}"
        found.append(Finding("cost_growth", None, days[-1], summary, (), figures))
    if tokens[0] and tokens[-1] > TOKEN_GROWTH * tokens[0]:
        summary = f"prompts grew from {tokens[0]:.0f} to {tokens[-1]:.0f} tokens a call"
        found.append(Finding("cost_growth", None, quarters[-1][0].t, summary, (), figures))
    looked = (
        f"{len(calls)} calls over {len(days)} days ({agents} agents); prompt tokens a call by "
        f"quarter: {', '.join(f'{x:.0f}' for x in tokens)}"
    )
    return _outcome("cost_growth", looked, found)


def _quarters(events: Sequence[Event]) -> list[list[Event]]:
    n = len(events)
    return [list(events[i * n // 4 : (i + 1) * n // 4]) for i in range(4)]


def _retrieval_before(log: RunLog, interview: Event) -> Event | None:
    """The retrieval the interview's answer was made from: the agent's latest before it."""
    found = None
    for event in log.of({"retrieval"}, interview.agent):
        if event.seq > interview.seq:
            break
        if event.t == interview.t and event.data.get("purpose") in ("interview.answer", ""):
            found = event
    return found


def _finding(
    mode: str,
    log: RunLog,
    event: Event,
    summary: str,
    evidence: Sequence[Event],
    detail: Mapping[str, Any],
) -> Finding:
    ordered = sorted({e.seq: e for e in evidence}.values(), key=lambda e: e.seq)
    return Finding(mode, event.agent, event.t, summary, lines(log, ordered), detail)


def _mode(key: str) -> Mode:
    return next(m for m in MODES if m.key == key)


def _outcome(key: str, looked: str, findings: Sequence[Finding]) -> Checked:
    return Checked(_mode(key), "found" if findings else "clear", looked, tuple(findings))


def _not_checked(key: str, why: str) -> Checked:
    return Checked(_mode(key), "not checked", why)


def check_all(log: RunLog, aware: Mapping[int, bool], agents: int) -> list[Checked]:
    """The seven checks, in the source's order."""
    return [
        *check_denials(log, aware),
        check_embellishment(log),
        check_repetition(log),
        check_no_reaction(log),
        check_stale_beliefs(log),
        check_cost(log, agents),
    ]
