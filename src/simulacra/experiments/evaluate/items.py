"""The interview items of a study: each agent's questions, placeholders filled from the run."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from simulacra.experiments.questions import Category, QuestionBank
from simulacra.runlog import Event


@dataclass(frozen=True)
class Item:
    """One question put to one agent: `id` is "agent|category|number"."""

    id: str
    agent: str
    category: Category
    question: str


@dataclass(frozen=True)
class Participants:
    """Who is in the run: ids in roster order, their names and the acquaintances their
    personas declare (ids or names)."""

    names: Mapping[str, str]
    related: Mapping[str, Sequence[str]]

    @classmethod
    def of(cls, agents_info: Mapping[str, Mapping[str, Any]]) -> Participants:
        names = {a: str(info.get("name") or a) for a, info in agents_info.items()}
        related = {
            a: [str(k) for k in (info.get("relationships") or {})]
            for a, info in agents_info.items()
        }
        return cls(names, related)


def salient_sight(events: Sequence[Event], agent: str, at: datetime) -> str | None:
    """The most important observation `agent` stored by `at` (the latest of equals)."""
    best: tuple[float, str] | None = None
    for event in events:
        if event.kind != "memory.add" or event.agent != agent or event.t is None:
            continue
        if event.data.get("kind") != "observation" or datetime.fromisoformat(event.t) > at:
            continue
        importance = float(event.data.get("importance", 0))
        if best is None or importance >= best[0]:
            best = (importance, str(event.data.get("text", "")))
    return best[1].rstrip(".") if best else None


def other_of(cast: Participants, agent: str, rng: random.Random) -> str:
    """Another agent's name: one the persona says it knows when there is one on the roster."""
    names = cast.names
    by_name = {n: a for a, n in names.items()}
    known = [k if k in names else by_name.get(k, "") for k in cast.related.get(agent, ())]
    known = sorted(k for k in known if k and k != agent)
    pool = known or [a for a in names if a != agent]
    return names[rng.choice(pool)] if pool else names[agent]


def fill(template: str, values: Mapping[str, str]) -> str:
    return template.format(**values)


def interview_items(
    bank: QuestionBank,
    cast: Participants,
    agents: Sequence[str],
    events: Sequence[Event],
    at: datetime,
    seed: int,
    per_category: int | None = None,
) -> list[Item]:
    """Every agent's questions in bank order, at most `per_category` from each category."""
    items = []
    for agent in agents:
        rng = random.Random(f"{seed}|{agent}")
        values = {
            "name": cast.names[agent],
            "other": other_of(cast, agent, rng),
            "event": salient_sight(events, agent, at) or "something happened in town",
            "date": f"{at:%A %B} {at.day}",
            "tomorrow": f"{at + timedelta(days=1):%A %B} {(at + timedelta(days=1)).day}",
        }
        for category, questions in bank.categories.items():
            for n, template in enumerate(questions[:per_category]):
                question = fill(template, values)
                items.append(Item(f"{agent}|{category.value}|{n + 1}", agent, category, question))
    return items
