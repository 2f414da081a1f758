"""Reaction: continue, react, wait, replan or talk, with cheap filters before any model call.

No salient observation, sleep through anything but a world event, or sights only about people
talked to in the last hours: each decides "continue" without asking the model. What is left
is judged in one call, however many observations there are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from simulacra.core import at_a_word, mentions
from simulacra.memory import MemoryRecord
from simulacra.mind.context import MindContext, clock
from simulacra.mind.decision import model_decision
from simulacra.mind.town import react_prompts as p
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.routine import is_sleep
from simulacra.mind.town.schedule import PlanStep

TALK_COOLDOWN = timedelta(hours=3)
REACT_TOKENS = 48
RECENT = 40  # the latest records among which the weightiest are kept on the agent's mind
WEIGHTY = 2


@dataclass(frozen=True)
class Reaction:
    choice: Literal["continue", "react", "wait", "replan", "talk"]
    target: str | None
    reason: str
    fallback: bool


def _about(record: MemoryRecord) -> list[str]:
    about = record.meta.get("about", []) if record.meta else []
    return [a for a in about if isinstance(a, str)]


def _is_event(record: MemoryRecord) -> bool:
    return bool(record.meta.get("event", False)) if record.meta else False


def _free(nearby: Sequence[str], talked: Mapping[str, datetime], now: datetime) -> list[str]:
    return [a for a in nearby if a not in talked or now - talked[a] >= TALK_COOLDOWN]


def _busy(asked: Sequence[MemoryRecord], current: PlanStep | None) -> bool:
    """Whether something the agent noticed, not its own step, names the object its step uses
    (a sight of an object is of one not at rest)."""
    used = current.object if current else None
    return used is not None and any(
        not (r.meta or {}).get("self") and mentions(r.text, (used,)) for r in asked
    )


def worth_asking(
    salient: Sequence[MemoryRecord],
    current: PlanStep | None,
    talked: Mapping[str, datetime],
    now: datetime,
) -> list[MemoryRecord]:
    """The salient records that deserve a model call; empty means carry on for free."""
    asleep = current is not None and is_sleep(current.description)
    left = [r for r in salient if _is_event(r) or not asleep]
    return [r for r in left if _is_event(r) or not _about(r) or _free(_about(r), talked, now)]


def topic(record: MemoryRecord) -> str:
    """A memory as one option of what to talk about: its first line, cut at a word; a
    conversation is named by its topic and the people in it."""
    meta = record.meta or {}
    said = meta.get("topic")
    first = (
        f"talked with {meta['from']} about: {said}"
        if isinstance(said, str) and isinstance(meta.get("from"), str)
        else record.text.split("\n", 1)[0]
    )
    return at_a_word(first.strip(), p.TOPIC_CHARS)


def _topics(found: Sequence[MemoryRecord]) -> tuple[str, ...]:
    """The options of what to talk about, the weightiest memory first: a small model picks
    the first option it is offered far more often than any other (SmolLM2-135M chose a
    sight, retrieved first, over the party it meant to host)."""
    out: list[str] = []
    for record in sorted(found, key=lambda r: -r.importance):
        text = topic(record)
        # Sights of people, itself too, are what is noticed, not a reason to talk: offered
        # as topics, SmolLM2-135M took the sight it had just read over the party it means
        # to host.
        meta = record.meta or {}
        sight = record.kind == "observation" and (bool(_about(record)) or bool(meta.get("self")))
        if record.kind != "plan" and not sight and text and text not in out and text != p.NOTHING:
            out.append(text)
    return tuple(out[: p.TOPICS])


def _weighty(ctx: MindContext[Persona], found: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    """The agent's weightiest recent memories beside what the sights recalled: what it
    means to do or was told stays on its mind whatever it sees (a sight's words recall
    other sights, not the party it means to host)."""
    kinds = ctx.ablation.recalled_kinds
    if kinds == ():
        return []
    seen = {r.id for r in found}
    recent = [
        r
        for r in ctx.memory.recent(RECENT)
        if r.id not in seen and r.kind != "plan" and (kinds is None or r.kind in kinds)
    ]
    return sorted(recent, key=lambda r: -r.importance)[:WEIGHTY]


async def decide(
    ctx: MindContext[Persona],
    now: datetime,
    salient: Sequence[MemoryRecord],
    nearby: Sequence[str],
    current: PlanStep | None,
    talked: Mapping[str, datetime],
    names: Mapping[str, str],
    plan: str = "(no plan)",
) -> Reaction:
    """`plan`: the blocks ahead, as prompt lines (Planner.ahead)."""
    asked = worth_asking(salient, current, talked, now)
    if not asked:
        return Reaction("continue", None, "nothing new worth stopping for", False)
    free = [a for a in _free(nearby, talked, now) if a != ctx.id]
    # Whom by name where the agent knows it: a name is what a small model matches.
    whom = {names.get(a, a): a for a in free}
    noticed = "\n".join(f"- {r.text}" for r in asked)
    fields = {
        "name": ctx.persona.name,
        "now": clock(now),
        "date": now.strftime("%A %B %d, %Y"),
        "plan": plan,
        "action": current.description if current else "going about the day",
        "place": current.place if current else ctx.persona.home,
        "nearby": ", ".join(whom) or p.NOBODY,
        "noticed": noticed,
    }
    room = ctx.room(p.REACT_SYSTEM, p.REACT_USER.format(topics="", **fields), REACT_TOKENS)
    query = " ".join(r.text for r in asked)
    found = [r.record for r in ctx.recall(query, now, "react.decide", room)]
    considered = [*found, *_weighty(ctx, found)]
    topics = _topics(considered)
    ctx.mark_shown([r for r in considered if topic(r) in topics], now)
    user = p.REACT_USER.format(
        topics="\n".join(f"- {t}" for t in topics) or f"- {p.NOTHING}", **fields
    )
    output = p.reaction_output(tuple(whom), topics, _busy(asked, current))
    answer = await ctx.ask(
        "react.decide", now, p.REACT_SYSTEM, user, output, p.FALLBACK, max_tokens=REACT_TOKENS
    )
    value = answer.value
    about = str(value.about)
    reason = "" if about == p.NOTHING else about
    # Naming someone is the decision to talk; "talk" to nobody is to carry on.
    target = whom.get(str(value.target))
    choice = "talk" if target is not None else value.choice
    decision = Reaction(
        "continue" if choice == "talk" and target is None else choice,
        target,
        reason,
        answer.fallback,
    )
    ctx.emit(
        model_decision("react.decide", decision.choice, answer, fallback=decision.fallback), now
    )
    return decision
