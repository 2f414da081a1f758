"""Reaction: continue, react, replan or talk, with cheap filters before any model call.

No salient observation, sleep through anything but a world event, or sights only about people
talked to in the last hours: each decides "continue" without asking the model. What is left
is judged in one call, however many observations there are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from simulacra.memory import MemoryRecord
from simulacra.mind.context import MindContext, clock
from simulacra.mind.decision import model_decision
from simulacra.mind.town import react_prompts as p
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.routine import is_sleep
from simulacra.mind.town.schedule import PlanStep

TALK_COOLDOWN = timedelta(hours=3)
REACT_TOKENS = 48


@dataclass(frozen=True)
class Reaction:
    choice: Literal["continue", "react", "replan", "talk"]
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


def _target(raw: str, free: Sequence[str], names: Mapping[str, str]) -> str | None:
    wanted = raw.strip().lower()
    for agent in free:
        if wanted and wanted in (agent.lower(), names.get(agent, "").lower()):
            return agent
    return free[0] if len(free) == 1 else None


async def decide(
    ctx: MindContext[Persona],
    now: datetime,
    salient: Sequence[MemoryRecord],
    nearby: Sequence[str],
    current: PlanStep | None,
    talked: Mapping[str, datetime],
    names: Mapping[str, str],
) -> Reaction:
    asked = worth_asking(salient, current, talked, now)
    if not asked:
        return Reaction("continue", None, "nothing new worth stopping for", False)
    free = [a for a in _free(nearby, talked, now) if a != ctx.id]
    noticed = "\n".join(f"- {r.text}" for r in asked)
    user = ctx.situation(
        "react.decide",
        " ".join(r.text for r in asked),
        now,
        p.REACT_SYSTEM,
        p.REACT_USER,
        REACT_TOKENS,
        {
            "name": ctx.persona.name,
            "now": clock(now),
            "action": current.description if current else "going about the day",
            "place": current.place if current else ctx.persona.home,
            "nearby": ", ".join(f"{a} ({names[a]})" if a in names else a for a in free) or "nobody",
            "noticed": noticed,
        },
    )
    answer = await ctx.ask(
        "react.decide",
        now,
        p.REACT_SYSTEM,
        user,
        p.ReactionOutput,
        p.FALLBACK,
        max_tokens=REACT_TOKENS,
    )
    value = answer.value
    decision = Reaction(value.choice, None, value.reason.strip(), answer.fallback)
    if value.choice == "talk":
        target = _target(value.target, free, names)
        decision = (
            Reaction("talk", target, decision.reason, answer.fallback)
            if target is not None
            else Reaction("continue", None, f"nobody free to talk to ({value.target!r})", True)
        )
    ctx.emit(
        model_decision("react.decide", decision.choice, answer, fallback=decision.fallback), now
    )
    return decision
