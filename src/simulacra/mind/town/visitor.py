"""An agent answers a visitor (a character a person plays from the live console) with the
dialogue's own turn: the same prompt, what it thinks of them and remembers of them and of
what they said, one line back; the exchange is logged as a conversation and remembered as
one. The visitor is described as the agent sees them: nothing says a person plays them."""

from __future__ import annotations

from datetime import datetime

from simulacra.core import Address
from simulacra.mind.context import memory_lines
from simulacra.mind.town import converse_prompts as p
from simulacra.mind.town.converse import (
    TURN_CHARS,
    TURN_TOKENS,
    Conversation,
    Speaker,
    Utterance,
    log_conversation,
    turn_user,
)
from simulacra.mind.town.relation import relationship
from simulacra.runlog.events import MessageSent


async def answer_visitor(me: Speaker, said: Address, now: datetime) -> Conversation:
    """`me` answers `said`; returns the two-line conversation it logged and remembered."""
    line = said.line[:TURN_CHARS]
    names = {me.id: me.persona.name, said.speaker: said.name}
    relation = await relationship(me.ctx, me.relations, said.speaker, said.name, now)
    relation = f"{relation} ({said.name}: {said.description})"
    transcript = f"{said.name}: {line}"
    bare = turn_user(me.persona.name, said.name, relation, line, "", now, transcript)
    room = me.ctx.room(p.TURN_SYSTEM, bare, TURN_TOKENS)
    memories = memory_lines(me.ctx.recall(f"{said.name} {line}", now, "converse.turn", room))
    user = turn_user(me.persona.name, said.name, relation, line, memories, now, transcript)
    fallback = p.fallback_turn(0, said.name)
    answer = await me.ctx.ask(
        "converse.turn",
        now,
        p.TURN_SYSTEM,
        user,
        p.turn_output(None),
        fallback,
        max_tokens=TURN_TOKENS,
    )
    text = answer.value.text.strip() or fallback.text
    conversation = Conversation(
        f"conv-{said.speaker}-{me.id}-{now:%Y%m%dT%H%M%S}",
        (said.speaker, me.id),
        line,
        (Utterance(said.speaker, line), Utterance(me.id, text)),
        "turn_limit",
    )
    me.ctx.emit(
        MessageSent(to=[said.speaker], text=text, conversation=conversation.id, turn=1), now
    )
    log_conversation(me, conversation, now)
    await me.remember_conversation(conversation, names, now)
    return conversation
