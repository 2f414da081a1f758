"""The dialogue prompt as data: template, output models and fallbacks.

Whether a turn brings up the conversation's topic is a choice the output model carries (the
topic, or small talk), so that constrained decoding makes a small model decide it; what is
said stays free text.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import Annotated

from pydantic import BaseModel, create_model

from simulacra.llm import MaxChars

SMALL_TALK = "small talk"


class TurnOutput(BaseModel):
    """`raises` first: the decision, then the words that carry it."""

    raises: str = SMALL_TALK
    text: Annotated[str, MaxChars(200)]
    end: bool = False


@cache
def turn_output(topic: str | None) -> type[TurnOutput]:
    """A turn whose `raises` is `topic` or small talk (small talk alone without a topic)."""
    options = (topic, SMALL_TALK) if topic and topic != SMALL_TALK else (SMALL_TALK,)
    what = StrEnum("Raises", {f"t{i}": v for i, v in enumerate(options)})  # type: ignore[misc]
    model: type[TurnOutput] = create_model("TurnOutput", __base__=TurnOutput, raises=(what, ...))
    return model


def fallback_turn(turn: int, other_name: str) -> TurnOutput:
    """Greet on the first turn, then close politely: a failing model still ends a chat."""
    first = other_name.split(" ")[0]
    if turn == 0:
        return TurnOutput(text=f"Hi {first}, how are you?", end=False)
    return TurnOutput(text=f"Good to see you, {first}. Talk soon!", end=True)


TURN_SYSTEM = (
    "You write the next line of a conversation between two characters in a town simulation. "
    "Stay in character, use what the speaker remembers, and keep it to one or two sentences. "
    'Reply in JSON: "raises" is the topic when the speaker brings it up in this line, else '
    'small talk; "text" is what the speaker says, in their own words; "end" is true when the '
    "conversation is naturally over."
)

TURN_USER = """{name} and {other}: {relation}
What {name} remembers:
{memories}

It is {now}. {name} is talking with {other}.
On {name}'s mind: {topic}
Conversation so far:
{transcript}
What does {name} say next?"""
