"""The reaction prompt as data: template, output models and fallback.

The decision is the output model: whom to talk to is one of the people present (or nobody),
and what about is one of the memories on the agent's mind (or nothing in particular), each an
enum, so that constrained decoding makes a small model choose rather than write a sentence.
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from typing import Literal, get_args

from pydantic import BaseModel, create_model

Choice = Literal["continue", "react", "wait", "replan", "talk"]
NOBODY = "nobody"
NOTHING = "nothing in particular"
TOPIC_CHARS = 90  # one option of `about`: a memory's first line, cut
TOPICS = 5  # memories offered as what to talk or think about


class ReactionOutput(BaseModel):
    """Whom first: naming someone is the decision to talk to them; `choice` says what the
    agent does otherwise. (Asked choice first, SmolLM2-135M named someone and still chose
    to continue.)"""

    target: str = NOBODY
    about: str = NOTHING
    choice: Choice = "continue"


@lru_cache(maxsize=1024)  # bounded: the topics are memories, nearly every call's own
def reaction_output(
    people: tuple[str, ...], topics: tuple[str, ...], busy: bool
) -> type[ReactionOutput]:
    """A reaction output whose `target` is one of `people` or nobody and whose `about` is one
    of `topics` or nothing in particular; both required, so the model must choose. `busy`:
    something the agent's step uses is among what it noticed, the one thing to wait for."""
    whom = StrEnum("Whom", {f"p{i}": v for i, v in enumerate((*people, NOBODY))})  # type: ignore[misc]
    what = StrEnum("About", {f"t{i}": v for i, v in enumerate((*topics, NOTHING))})  # type: ignore[misc]
    # Talk only where someone is free to talk to: offered it with nobody near, SmolLM2-135M
    # chose "talk" to a fire at the oven and to a kiln being cleaned (so carried on); without
    # it, it chose wait or replan.
    # Wait likewise only where what the step uses is seen busy: offered it for a fire at an
    # oven it did not use, SmolLM2-135M waited.
    left = {"talk"} if not people else set()
    left |= {"wait"} if not busy else set()
    choices = tuple(c for c in get_args(Choice) if c not in left)
    model: type[ReactionOutput] = create_model(
        "ReactionOutput",
        __base__=ReactionOutput,
        target=(whom, ...),
        about=(what, ...),
        choice=(Literal[choices], ...),  # type: ignore[arg-type]
    )
    return model


FALLBACK = ReactionOutput()

REACT_SYSTEM = (
    "A character in a town simulation notices something new. Decide what they do. Reply in "
    "JSON with target: the person nearby the character starts a conversation with now, or "
    "nobody; about: which of the things on the character's mind the conversation or the "
    "reaction is about; choice: talk (when target is someone), continue (carry on with the "
    "plan), react (respond to it now: the next hour or two change), wait (something the plan "
    "needs is busy or in use: stay until it is free, then go on) or replan (change the rest "
    "of the day)."
)

REACT_USER = """It is {now} on {date}. {name} is {action} at {place}.
{name} notices:
{noticed}
Nearby, free to talk: {nearby}
On {name}'s mind:
{topics}
{name}'s plan for the rest of the day:
{plan}
What does {name} do?"""
