"""Perception: turn what an agent sees into observation records, without storing the unchanged.

A sight is new when it was not in the previous observation and, after a move, was not seen in
the last half hour (walking past the same things is not news). New sights are salient when
another agent appears, a world event happens, or something changes in front of the agent (same
place as before, not the object the agent itself uses). The rest (the scenery of a place just
entered, what people already there are now doing) is stored too. The model rates all of one
look's records in one call; under `memory.importance: rule` scenery takes SCENERY_IMPORTANCE and
news the keyword rule's value.

The agent also perceives itself: what it is doing, as the world shows it (`doing`), is stored
when it changes, as the source's agent perceives its own event on its own tile. That record is
never news, and its importance is the keyword rule's, without a call: the source asks the
model about each, and a call per change of step (SmolLM2-135M writes 3 to 6 an hour) would
add about 200 calls to an embedded demo day of 111 to 191.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from simulacra.core import Observation, mentions
from simulacra.memory import MemoryRecord, rule_importance
from simulacra.mind.context import MindContext
from simulacra.mind.town.persona import Persona
from simulacra.runlog.events import Observed
from simulacra.runlog.stamp import stamp

SEEN_FOR = timedelta(minutes=30)
SCENERY_IMPORTANCE = 2.0


@dataclass
class Perception:
    """What the agent saw last, to tell news from what it already knows."""

    place: str | None = None
    previous: frozenset[str] = frozenset()
    nearby: frozenset[str] = frozenset()
    last_seen: dict[str, datetime] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "previous": sorted(self.previous),
            "nearby": sorted(self.nearby),
            "last_seen": {text: stamp(at) for text, at in self.last_seen.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Perception:
        return cls(
            place=data.get("place"),
            previous=frozenset(data.get("previous", ())),
            nearby=frozenset(data.get("nearby", ())),
            last_seen={t: datetime.fromisoformat(a) for t, a in data.get("last_seen", {}).items()},
        )


@functools.lru_cache(maxsize=65536)
def _names(agent_id: str, given: str | None) -> tuple[str, ...]:
    """How a text may name an agent: its id, the id as words, or the name the world gave."""
    words = re.sub(r"[_\-.]+", " ", agent_id).strip()
    names = [agent_id, words, words.split(" ")[0], given or ""]
    return tuple(n for n in names if n)


@functools.lru_cache(maxsize=1 << 16)  # everyone at a place sees the same sentences
def _named(text: str, people: frozenset[tuple[str, tuple[str, ...]]]) -> frozenset[str]:
    """Which of the people (id, the names it goes by) the sentence names."""
    return frozenset(agent for agent, names in people if mentions(text, names))


def _event_texts(facts: dict[str, Any]) -> tuple[str, ...]:
    events = facts.get("events", ())
    return tuple(e for e in events if isinstance(e, str)) if isinstance(events, list) else ()


async def perceive(
    ctx: MindContext[Persona],
    seen: Perception,
    now: datetime,
    observation: Observation,
    own_object: str | None = None,
) -> list[MemoryRecord]:
    """Store the new sights; return the salient ones, for the reaction decision."""
    events = _event_texts(observation.facts)
    doing = observation.facts.get("doing")
    itself = (doing,) if isinstance(doing, str) else ()
    texts = tuple(dict.fromkeys(observation.texts + events + itself))
    stayed = seen.place == observation.place
    fresh = [
        t
        for t in texts
        if t not in seen.previous
        and (stayed or t not in seen.last_seen or now - seen.last_seen[t] > SEEN_FOR)
    ]
    appeared = {a for a in observation.nearby_agents if a not in seen.nearby and a != ctx.id}
    seen.place = observation.place
    seen.previous = frozenset(texts)
    seen.nearby = frozenset(observation.nearby_agents)
    # Only the last half hour matters: forgetting older sightings keeps the state small.
    seen.last_seen = {t: at for t, at in seen.last_seen.items() if now - at <= SEEN_FOR}
    seen.last_seen.update(dict.fromkeys(texts, now))
    if not ctx.ablation.remembers or not fresh:
        return []
    given = observation.facts.get("names", {})
    given = given if isinstance(given, dict) else {}
    me = _names(ctx.id, ctx.persona.name)
    others = {
        a: _names(a, n if isinstance(n := given.get(a), str) else None)
        for a in observation.nearby_agents
        if a != ctx.id
    }
    # Everyone here, me included: everyone at the place then asks the same question of each
    # sentence, and the cache answers all but the first of them.
    here = frozenset({(ctx.id, me), *others.items()})
    mine_too = (own_object,) if own_object else ()
    rules: list[float | None] = []
    rated: list[float | None] = []  # the own action's, without a call
    metas: list[dict[str, Any]] = []
    news_of: list[bool] = []
    for text in fresh:
        if text in itself:
            rated.append(float(rule_importance(text)))
            rules.append(None)
            metas.append({"place": observation.place, "about": [], "event": False, "self": True})
            news_of.append(False)
            continue
        named = _named(text, here)
        about = [a for a in others if a in named]
        mine = not about and (ctx.id in named or mentions(text, mine_too))
        is_event = text in events
        news = is_event or not appeared.isdisjoint(about) or (stayed and not about and not mine)
        rated.append(None)
        rules.append(None if news else SCENERY_IMPORTANCE)
        metas.append({"place": observation.place, "about": about, "event": is_event})
        news_of.append(news)
    # One write for the whole look: a busy place shows many people at once.
    records = await ctx.memory.add_many(
        "observation", fresh, now, importance=rated, meta=metas, rule=rules
    )
    salient = [r for r, news in zip(records, news_of, strict=True) if news]
    for record in salient:  # scenery is in the log as its memory.add alone
        ctx.emit(Observed(text=record.text), now)
    return salient
