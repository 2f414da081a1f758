"""An agent and a visitor (a character a person plays from the live console) talk through the
dialogue's own turn: the same prompt, what it thinks of them and remembers of them and of
what was said, one line at a time; each line is logged as a message and the agent remembers
the conversation. The visitor is described as the agent sees them: nothing says a person
plays them.

The agent answers what a visitor says to it, or speaks first to a visitor it chose to talk
to. A line it opens with waits one tick for the visitor's reply: a reply in the next tick
continues that conversation (the agent answers it, and the conversation is logged whole);
none, and the conversation ends `unanswered` with the agent's line alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from simulacra.core import Address
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


async def answer_visitor(
    me: Speaker, said: Address, now: datetime, opened: Conversation | None = None
) -> Conversation:
    """`me` answers `said` (after `opened`, its own first line to them, if it spoke first);
    returns the conversation it logged and remembered."""
    line = said.line[:TURN_CHARS]
    before = opened.turns if opened is not None else ()
    turns = (*before, Utterance(said.speaker, line))
    topic = opened.topic if opened is not None else line
    conversation_id = opened.id if opened is not None else _id(said.speaker, me.id, now)
    text = await _turn(me, said, now, topic, turns)
    conversation = Conversation(
        conversation_id,
        (said.speaker, me.id) if opened is None else opened.participants,
        topic,
        (*turns, Utterance(me.id, text)),
        "turn_limit",
    )
    me.ctx.emit(
        MessageSent(to=[said.speaker], text=text, conversation=conversation_id, turn=len(turns)),
        now,
    )
    log_conversation(me, conversation, now)
    await me.remember_conversation(conversation, _names(me, said), now)
    return conversation


async def speak_to_visitor(me: Speaker, said: Address, now: datetime) -> Conversation:
    """`me` speaks first to the visitor `said` names, about its topic; returns the
    conversation of that one line, remembered and waiting for the visitor's reply."""
    topic = said.topic or "whatever comes up"
    conversation_id = _id(me.id, said.speaker, now)
    text = await _turn(me, said, now, topic, ())
    conversation = Conversation(
        conversation_id, (me.id, said.speaker), topic, (Utterance(me.id, text),), "unanswered"
    )
    me.ctx.emit(
        MessageSent(to=[said.speaker], text=text, conversation=conversation_id, turn=0), now
    )
    await me.remember_conversation(conversation, _names(me, said), now)
    return conversation


def unanswered(me: Speaker, opened: Conversation, now: datetime) -> None:
    """The visitor said nothing back: the conversation ends with `me`'s line alone."""
    log_conversation(me, opened, now)


async def _turn(
    me: Speaker, said: Address, now: datetime, topic: str, turns: tuple[Utterance, ...]
) -> str:
    names = _names(me, said)
    relation = await relationship(me.ctx, me.relations, said.speaker, said.name, now)
    relation = f"{relation} ({said.name}: {said.description})"
    transcript = "\n".join(f"{names[u.speaker]}: {u.text}" for u in turns) or "(nothing yet)"
    bare = turn_user(me.persona.name, said.name, relation, topic, "", now, transcript)
    room = me.ctx.room(p.TURN_SYSTEM, bare, TURN_TOKENS)
    query = f"{said.name} {turns[-1].text if turns else topic}"
    memories = me.ctx.shown(me.ctx.recall(query, now, "converse.turn", room), now)
    user = turn_user(me.persona.name, said.name, relation, topic, memories, now, transcript)
    fallback = p.fallback_turn(len(turns) // 2, said.name)
    answer = await me.ctx.ask(
        "converse.turn",
        now,
        p.TURN_SYSTEM,
        user,
        p.turn_output(None),
        fallback,
        max_tokens=TURN_TOKENS,
    )
    return answer.value.text.strip() or fallback.text


def _id(first: str, second: str, now: datetime) -> str:
    return f"conv-{first}-{second}-{now:%Y%m%dT%H%M%S}"


def _names(me: Speaker, said: Address) -> dict[str, str]:
    return {me.id: me.persona.name, said.speaker: said.name}


def opened_json(opened: Mapping[str, Conversation]) -> dict[str, Any]:
    """The conversations an agent opened with visitors, waiting for a reply, for its state."""
    return {
        visitor: {
            "id": c.id,
            "participants": list(c.participants),
            "topic": c.topic,
            "turns": [[u.speaker, u.text] for u in c.turns],
        }
        for visitor, c in sorted(opened.items())
    }


def opened_from(raw: Mapping[str, Any]) -> dict[str, Conversation]:
    return {
        visitor: Conversation(
            c["id"],
            (c["participants"][0], c["participants"][1]),
            c["topic"],
            tuple(Utterance(speaker, text) for speaker, text in c["turns"]),
            "unanswered",
        )
        for visitor, c in raw.items()
    }
