"""A scripted stand-in for a model that keeps the town sociable: for tests and the benchmark.

With it, agents who meet talk; a speaker who remembers a party passes the news on; an
interviewed agent who remembers a party says so. Everything else gets the declared fallback.
It reads the prompts' text, so it follows the mind's prompt templates loosely, by keywords.
"""

from __future__ import annotations

import re
from typing import Any

from simulacra.llm import Request, ScriptedModel

_NEARBY = re.compile(r"Nearby, free to talk: (.+)")
_PARTY = re.compile(r"[^.\n:\]]*\bparty\b[^.\n]*", re.IGNORECASE)
_CITED = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)
TURNS = 4


def sociable(model: ScriptedModel) -> ScriptedModel:
    """Register the town's responders on a scripted model; returns it."""
    model.on("react.decide", _react)
    model.on("converse.turn", _turn)
    model.on("interview.answer", _interview)
    return model


def _prompt(request: Request) -> str:
    return request.messages[-1].text


def _party(text: str) -> str | None:
    found = _PARTY.search(text)
    return found.group(0).strip(" -") if found else None


def _react(request: Request) -> dict[str, Any]:
    nearby = _NEARBY.search(_prompt(request))
    if nearby is None or nearby.group(1).strip() == "nobody":
        return {"choice": "continue", "reason": "nobody to talk to"}
    target = nearby.group(1).split(",")[0].split(" (")[0].strip()
    news = _party(_prompt(request))
    return {"choice": "talk", "target": target, "reason": "the party" if news else "catching up"}


def _turn(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    transcript = prompt.split("Conversation so far:\n", 1)[-1].split("\nWhat does", 1)[0]
    said = [line for line in transcript.splitlines() if line and line != "(nothing yet)"]
    news = _party(prompt)
    if news is None:
        text = "Nice to see you. How is your day going?"
    elif any("party" in line.lower() for line in said):
        text = "That sounds lovely; I will try to come."
    else:
        text = f"Have you heard? {news}."
    return {"text": text, "end": len(said) + 1 >= TURNS}


def _interview(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    memories = prompt.split("Interviewer:", 1)[0]
    cited = [i for i, text in _CITED.findall(memories) if "party" in text.lower()]
    news = _party(memories)
    if news is None:
        return {"answer": "I have not heard of any party or event today.", "memory_ids": []}
    return {"answer": f"Yes: {news}.", "memory_ids": cited}
