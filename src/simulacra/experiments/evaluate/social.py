"""The emergent measures: who knows whom (network density over time), how far each planted fact
spread, and the coordination around a fact (invited by whom, when, said they would come, came).

Acquaintance and diffusion are asked in interviews, as the source did; coordination is read
from the log's conversations and the world's attendance. Density counts as the source does:
a pair of agents is an edge when both say they know each other.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from simulacra.core import InterviewAnswer, Interviewee, mentions_all
from simulacra.experiments.questions import Fact
from simulacra.runlog import Event

YES_NO = ("yes", "no")
# What an invitee says when it means to come (whole words, any case).
ACCEPTING = (("come", "join", "attend", "there", "love to", "wouldn't miss"),)


def directed_density(agents: Sequence[str], knows: Sequence[tuple[str, str]]) -> float:
    """The share of ordered pairs (a, b), a != b, in which a said it knows b."""
    members = set(agents)
    edges = {(a, b) for a, b in knows if a != b and a in members and b in members}
    n = len(members)
    return len(edges) / (n * (n - 1)) if n > 1 else 0.0


def mutual(knows: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """The undirected edges: pairs (a, b), a < b, in which each said it knows the other."""
    said = set(knows)
    return sorted({(min(a, b), max(a, b)) for a, b in said if a != b and (b, a) in said})


def density(agents: Sequence[str], knows: Sequence[tuple[str, str]]) -> float:
    """The source's density: the share of the n(n-1)/2 pairs of agents who both say they
    know each other."""
    members = set(agents)
    edges = [(a, b) for a, b in mutual(knows) if a in members and b in members]
    n = len(members)
    return 2 * len(edges) / (n * (n - 1)) if n > 1 else 0.0


async def acquaintances(
    minds: Mapping[str, Interviewee],
    names: Mapping[str, str],
    template: str,
    at: datetime,
    step: Callable[[], None],
) -> list[tuple[str, str]]:
    """Every agent asked about every other: the pairs (a, b) in which a said it knows b."""

    async def one(a: str, b: str) -> tuple[str, str] | None:
        reply = await minds[a].interview(template.format(other=names[b]), at, YES_NO)
        step()
        return (a, b) if reply.choice == "yes" else None

    pairs = [(a, b) for a in minds for b in minds if a != b]
    found = await asyncio.gather(*(one(a, b) for a, b in pairs))
    return [pair for pair in found if pair is not None]


async def answers_to(
    minds: Mapping[str, Interviewee], question: str, at: datetime, step: Callable[[], None]
) -> dict[str, InterviewAnswer]:
    """Every agent's answer to `question` at `at`, keyed by agent."""

    async def one(agent: str) -> tuple[str, InterviewAnswer]:
        reply = await minds[agent].interview(question, at)
        step()
        return agent, reply

    return dict(await asyncio.gather(*(one(a) for a in minds)))


def coordination(
    events: Sequence[Event], fact: Fact, attended: Sequence[str] | None, owner: str | None = None
) -> list[dict[str, Any]]:
    """Per agent told the fact in a conversation: who told it first and when, whether it said
    it would come (in a conversation about the fact), and whether it came (for a fact whose
    event is the world's attendance, `Fact.attendance`; None otherwise). The fact's `owner`
    (the host) is no invitee of her own, even when someone tells her the news back."""
    rows: dict[str, dict[str, Any]] = {}
    for event in events:
        if event.kind != "conversation":
            continue
        turns = [t for t in event.data.get("turns", []) if isinstance(t, Mapping)]
        teller = next(
            (
                str(t["speaker"])
                for t in turns
                if mentions_all(str(t.get("text", "")), fact.aware_when)
            ),
            None,
        )
        if teller is None:
            continue
        for agent in event.data.get("participants", []):
            if agent in (teller, owner):
                continue
            row = rows.setdefault(
                agent, {"agent": agent, "told_by": teller, "told_at": event.t, "said_yes": False}
            )
            said = [str(t.get("text", "")) for t in turns if t.get("speaker") == agent]
            row["said_yes"] = row["said_yes"] or any(mentions_all(s, ACCEPTING) for s in said)
    for row in rows.values():
        row["came"] = None if attended is None or not fact.attendance else row["agent"] in attended
    return sorted(rows.values(), key=lambda r: (str(r["told_at"]), r["agent"]))


def coordination_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, int | None]:
    came = [r for r in rows if r["came"]]
    return {
        "invited": len(rows),
        "said_yes": sum(1 for r in rows if r["said_yes"]),
        "came": len(came) if rows and rows[0]["came"] is not None else None,
        "said_yes_and_came": sum(1 for r in came if r["said_yes"]),
    }
