"""What one agent thinks of another, before they talk: the source retrieves the relationship
("what does A think of B?") and summarises it for the dialogue prompt.

The summary is made from the memories retrieval brings up about the other agent (records whose
text names them, or that were about them or with them), and kept per pair until retrieval
brings up a memory about them newer than those it was made from: two agents who meet again
with nothing new between them cost no call. With no memory of the other at all, the persona's
own line about them stands, without a call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel

from simulacra.llm import MaxChars
from simulacra.memory import Retrieved
from simulacra.mind.context import MindContext
from simulacra.mind.town.persona import Persona

PURPOSE = "converse.relation"
SUMMARY_TOKENS = 64
NO_RELATION = "no particular relationship noted"


class RelationOutput(BaseModel):
    summary: Annotated[str, MaxChars(200)]


RELATION_SYSTEM = (
    "Summarise, in one sentence, what the character thinks of another person and how they "
    "relate, from the character's description and memories only. Reply in JSON."
)
RELATION_USER = """What {name} remembers about {other}:
{memories}

What does {name} think of {other}, and how do they relate?"""


@dataclass
class Relations:
    """One agent's relationship summaries, per other agent: (the newest memory about them it
    was made from, the summary)."""

    known: dict[str, tuple[str, str]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, list[str]]:
        return {other: [newest, summary] for other, (newest, summary) in self.known.items()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Sequence[str]]) -> Relations:
        return cls({str(k): (str(v[0]), str(v[1])) for k, v in data.items()})


def about(found: Sequence[Retrieved], other: str, name: str) -> list[Retrieved]:
    """The retrieved memories that concern `other` (by id) known as `name`."""
    first = name.split(" ")[0].lower()
    hits = []
    for r in found:
        meta = r.record.meta or {}
        linked = other in (meta.get("about") or ()) or other in (meta.get("with") or ())
        if linked or first in r.record.text.lower():
            hits.append(r)
    return hits


async def relationship(
    ctx: MindContext[Persona], relations: Relations, other: str, name: str, now: datetime
) -> str:
    """What `ctx`'s agent thinks of `other` (called `name`), for the dialogue prompt."""
    persona = ctx.persona
    known = persona.relation_to(other, name) or NO_RELATION
    fields = {"name": persona.name, "other": name}
    room = ctx.room(RELATION_SYSTEM, RELATION_USER.format(memories="", **fields), SUMMARY_TOKENS)
    query = f"What does {persona.name} think of {name}? {persona.name}'s relationship with {name}"
    found = about(ctx.recall(query, now, PURPOSE, room), other, name)
    if not found:
        return known
    # Ids are numbered in the order written: the highest number is the newest memory.
    newest = max((r.record.id for r in found), key=lambda i: int(i.rpartition("-")[2]))
    cached = relations.known.get(other)
    if cached is not None and cached[0] == newest:
        return cached[1]
    fallback = RelationOutput(summary=known)
    answer = await ctx.ask(
        PURPOSE,
        now,
        RELATION_SYSTEM,
        RELATION_USER.format(memories=ctx.shown(found, now), **fields),
        RelationOutput,
        fallback,
        max_tokens=SUMMARY_TOKENS,
        salt=other,
    )
    summary = answer.value.summary.strip() or known
    if not answer.fallback:
        relations.known[other] = (newest, summary)
    return summary
