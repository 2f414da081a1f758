"""The reaction prompt as data: template, output model and fallback."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel

from simulacra.llm import MaxChars

Choice = Literal["continue", "react", "replan", "talk"]


class ReactionOutput(BaseModel):
    choice: Choice
    target: Annotated[str, MaxChars(40)] = ""
    reason: Annotated[str, MaxChars(80)] = ""


FALLBACK = ReactionOutput(choice="continue", reason="no decision could be read; carrying on")

REACT_SYSTEM = (
    "A character in a town simulation notices something new. Decide what they do. Reply in "
    "JSON with choice: continue (carry on with the plan), react (pause briefly to respond), "
    "replan (change the rest of the day), or talk (start a conversation; target is the id of "
    "someone nearby), and a short reason."
)

REACT_USER = """What {name} remembers:
{memories}

It is {now}. {name} is {action} at {place}.
Nearby, free to talk: {nearby}
{name} notices:
{noticed}
What does {name} do?"""
