"""The dialogue prompt as data: template, output model and fallbacks."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel

from simulacra.llm import MaxChars


class TurnOutput(BaseModel):
    text: Annotated[str, MaxChars(200)]
    end: bool = False


def fallback_turn(turn: int, other_name: str) -> TurnOutput:
    """Greet on the first turn, then close politely: a failing model still ends a chat."""
    first = other_name.split(" ")[0]
    if turn == 0:
        return TurnOutput(text=f"Hi {first}, how are you?", end=False)
    return TurnOutput(text=f"Good to see you, {first}. Talk soon!", end=True)


TURN_SYSTEM = (
    "You write the next line of a conversation between two characters in a town simulation. "
    "Stay in character, use what the speaker remembers, and keep it to one or two sentences. "
    'Reply in JSON: "text" is what the speaker says; "end" is true when the conversation is '
    "naturally over."
)

TURN_USER = """{name} and {other}: {relation}
What {name} remembers about {other} and {topic}:
{memories}

It is {now}. {name} is talking with {other} about {topic}.
Conversation so far:
{transcript}
What does {name} say next?"""
