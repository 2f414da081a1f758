"""Dialogue: two agents alternate turns grounded in what each remembers of the other.

Each speaker, at the start, summarises what it thinks of the other from the memories it
retrieves about them (`relation.relationship`, kept per pair until new memories arrive) and
retrieves its memories of the other and the topic, as the source does before dialogue; both
stay the same from turn to turn, so the prompt prefix does too (servers cache it). The
memories fill what the window leaves beside the longest transcript the turn limit allows. The
conversation ends when a speaker's answer sets `end`, repeats a line already said, or at
the turn limit. Both agents store
the transcript.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from simulacra.memory import PLAN, MemoryRecord
from simulacra.mind.context import MindContext, clock
from simulacra.mind.town import converse_prompts as p
from simulacra.mind.town.persona import Persona
from simulacra.mind.town.relation import Relations, relationship
from simulacra.runlog.events import ConversationHeld, MessageSent

TURN_TOKENS = 80
TURN_CHARS = 200  # TurnOutput's limit, and a name: what one line of the transcript may take


@dataclass(frozen=True)
class Utterance:
    speaker: str
    text: str
    raised: bool = False  # the speaker chose to bring up the conversation's topic


@dataclass(frozen=True)
class Conversation:
    id: str
    participants: tuple[str, str]
    topic: str
    turns: tuple[Utterance, ...]
    # "unanswered": an agent spoke first to a visitor, who said nothing back (visitor.py)
    ended_by: Literal["decision", "turn_limit", "repeated", "unanswered"]
    # A speaker's own reason for talking where it differs from `topic` (the opener's).
    reasons: tuple[tuple[str, str], ...] = ()

    def topic_of(self, speaker: str) -> str:
        """What `speaker` came to talk about: its own reason, else the conversation's topic."""
        return dict(self.reasons).get(speaker, self.topic)

    def transcript(self, names: dict[str, str]) -> str:
        return "\n".join(f"{names.get(u.speaker, u.speaker)}: {u.text}" for u in self.turns)

    def raised_by(self) -> tuple[str, ...]:
        """Who brought the topic up, in order of first raising it."""
        return tuple(dict.fromkeys(u.speaker for u in self.turns if u.raised))


class Speaker(Protocol):
    """What a conversation needs of each of its two agents."""

    id: str
    persona: Persona
    ctx: MindContext[Persona]
    relations: Relations

    async def remember_conversation(
        self, conversation: Conversation, names: Mapping[str, str], now: datetime
    ) -> MemoryRecord | None: ...

    def reason_to_talk(self, other: str, now: datetime) -> str | None: ...


async def converse(
    a: Speaker, b: Speaker, now: datetime, topic: str | None = None, max_turns: int = 8
) -> Conversation:
    """`a` speaks first. Emits a message event per turn and one conversation event."""
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, got {max_turns}")
    subject = topic or "whatever comes up"
    # Each speaker keeps its own reason: the second may have chosen to talk too, about
    # something else (the host's invitation was lost when the other opened).
    own = {a.id: topic, b.id: b.reason_to_talk(a.id, now) or topic}
    names = {a.id: a.persona.name, b.id: b.persona.name}
    conversation_id = f"conv-{a.id}-{b.id}-{now:%Y%m%dT%H%M%S}"
    relations: dict[str, str] = {}
    memories: dict[str, str] = {}
    for me, you in ((a, b), (b, a)):
        relations[me.id] = await relationship(me.ctx, me.relations, you.id, you.persona.name, now)
        # The transcript grows to max_turns lines; the memories take what is left.
        mine = own[me.id] or subject
        longest = "x" * ((TURN_CHARS + 24) * max_turns)
        bare = _user(me, you, relations[me.id], mine, "", now, longest)
        room = me.ctx.room(p.TURN_SYSTEM, bare, TURN_TOKENS)
        query = f"{you.persona.name} {mine}"
        # Plans aside: SmolLM2-135M recited "Lena Kowalski's plan for Wednesday ..." as its line.
        found = me.ctx.recall(query, now, "converse.turn", room, exclude=(PLAN,))
        memories[me.id] = me.ctx.shown(found, now)
    turns: list[Utterance] = []
    ended_by: Literal["decision", "turn_limit", "repeated"] = "turn_limit"
    for turn in range(max_turns):
        speaker, listener = (a, b) if turn % 2 == 0 else (b, a)
        transcript = "\n".join(f"{names[u.speaker]}: {u.text}" for u in turns)
        user = _user(
            speaker,
            listener,
            relations[speaker.id],
            own[speaker.id] or subject,
            memories[speaker.id],
            now,
            transcript or "(nothing yet)",
        )
        fallback = p.fallback_turn(turn, listener.persona.name)
        answer = await speaker.ctx.ask(
            "converse.turn",
            now,
            p.TURN_SYSTEM,
            user,
            p.turn_output(own[speaker.id]),
            fallback,
            max_tokens=TURN_TOKENS,
            salt=str(turn),
        )
        text = answer.value.text.strip() or fallback.text
        if _line(text, names) in {_line(u.text, names) for u in turns}:
            # Said already: the conversation goes round in circles (SmolLM2-135M's two
            # speakers repeated one line for all eight turns), so it is over.
            ended_by = "repeated"
            break
        reason = own[speaker.id]
        raised = reason is not None and str(answer.value.raises) == reason
        turns.append(Utterance(speaker.id, text, raised))
        speaker.ctx.emit(
            MessageSent(to=[listener.id], text=text, conversation=conversation_id, turn=turn), now
        )
        if answer.value.end:
            ended_by = "decision"
            break
    reasons = tuple((s, r) for s, r in own.items() if r is not None and r != topic)
    conversation = Conversation(
        conversation_id, (a.id, b.id), subject, tuple(turns), ended_by, reasons
    )
    log_conversation(a, conversation, now)
    for me in (a, b):
        await me.remember_conversation(conversation, names, now)
    return conversation


def log_conversation(by: Speaker, conversation: Conversation, now: datetime) -> None:
    """The `conversation` event, through the sink of the agent who opened it."""
    if by.ctx.sink is None:
        return
    by.ctx.sink.emit(
        ConversationHeld(
            id=conversation.id,
            participants=list(conversation.participants),
            topic=conversation.topic,
            turns=[
                {"speaker": u.speaker, "text": u.text, "raised": u.raised}
                for u in conversation.turns
            ],
            ended_by=conversation.ended_by,
        ),
        t=now,
        agent=None,
    )


def _line(text: str, names: Mapping[str, str]) -> str:
    """A line as said, without a speaker's name put before it, case and spacing aside."""
    said = " ".join(text.lower().split())
    for name in names.values():
        said = said.removeprefix(f"{name.lower()}: ")
    return said


def _user(
    speaker: Speaker,
    listener: Speaker,
    relation: str,
    topic: str,
    memories: str,
    now: datetime,
    transcript: str,
) -> str:
    return turn_user(
        speaker.persona.name, listener.persona.name, relation, topic, memories, now, transcript
    )


def turn_user(
    name: str, other: str, relation: str, topic: str, memories: str, now: datetime, transcript: str
) -> str:
    """A turn's prompt: `name` speaks next to `other` (an agent answering a visitor too)."""
    return p.TURN_USER.format(
        name=name,
        other=other,
        relation=relation,
        topic=topic,
        memories=memories,
        now=clock(now),
        transcript=transcript,
    )
