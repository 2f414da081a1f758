"""Every fact a scenario plants (a `thought` intervention) and who holds it in what they saw
or heard, at each interview time: so a report names each planted fact, the one its
interviews ask about and the others (the two-day town's candidacy, which only `simulacra
evaluate` asks about), and says how far each went by the run's own records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from simulacra.experiments.facts import Words, knows_by_words
from simulacra.experiments.scenario import Scenario
from simulacra.memory import WITNESSED
from simulacra.runlog import Event


def planted_facts(
    scenario: Scenario, events: Sequence[Event], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """One row per planted thought: its owner, time and text; the fact it plants (by name in
    the evaluation's bank, None when none describes it); whether the interviews ask about it
    (their words describe it); and at each interview time the agents whose witnessed records
    up to then hold its words, the interviews' where they ask, its owner aside."""
    plan = scenario.interviews
    asks: Words = plan.aware_when if plan is not None else []
    bank = scenario.evaluation.questions
    facts: dict[str, Words] = {n: f.aware_when for n, f in (bank.facts if bank else {}).items()}
    times = sorted(scenario.when(t) for t in plan.times) if plan is not None else []
    records = [
        (datetime.fromisoformat(e.t), e.agent, str(e.data.get("text", "")))
        for e in events
        if e.kind == "memory.add" and e.data.get("kind") in WITNESSED and e.t and e.agent
    ]
    rows = []
    for item in scenario.interventions:
        if item.type != "thought" or not item.agent:
            continue
        owner = names.get(item.agent, item.agent)
        fact = next((n for n, w in facts.items() if knows_by_words(item.text, w, owner)), None)
        # The interviews' own words, where they describe it, as the diffusion counts it.
        asked = bool(asks) and knows_by_words(item.text, asks, owner)
        words = asks if asked else facts[fact] if fact is not None else []
        first: dict[str, datetime] = {}  # each other agent's first record that holds it
        for when, agent, text in records if words else ():  # in the log's order: by time
            seen = agent == item.agent or agent in first
            if not seen and knows_by_words(text, words, names.get(agent, agent)):
                first[agent] = when
        held = [
            {"t": t.isoformat(), "agents": sorted(a for a, when in first.items() if when <= t)}
            for t in (times if words else [])
        ]
        at = scenario.when(item.at).isoformat()
        rows.append(
            {"owner": item.agent, "at": at, "text": item.text, "fact": fact, "asked": asked}
            | {"held": held}
        )
    return rows
