"""A scripted stand-in for a model that keeps the town sociable: for tests and the benchmark.

With it, agents who meet talk; a speaker who remembers a party passes the news on; an
interviewed agent who remembers a party says so, answers other questions with the memory that
shares most words with the question (or its own background when it recalls nothing), and says
it knows a person its memories or relationships name. Reflecting, it draws one insight from
the two statements that share most words with the question, and cites them. As an
evaluation's judge it ranks answers by how many distinct words they carry and flags names and
numbers no source holds.
Everything else gets the declared fallback. It reads the prompts' text, so it follows the
mind's prompt templates loosely, by keywords.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

from simulacra.llm import Request, ScriptedModel
from simulacra.mind.interview import MEMORY_IDS
from simulacra.mind.town.converse_prompts import SMALL_TALK
from simulacra.mind.town.react_prompts import NOBODY, NOTHING

_PARTY = re.compile(r"[^.\n:\]]*\bparty\b[^.\n]*", re.IGNORECASE)
_CITED = re.compile(r"^- \[([^\]]+)\] (.*)$", re.MULTILINE)
_KNOW = re.compile(r"Do you know (.+?)\?")
_WORD = re.compile(r"[a-z0-9']{4,}")
_STATEMENT = re.compile(r"^(\d+)\. (.*)$", re.MULTILINE)
_PROPER = re.compile(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z]+|\d+(?::\d+)?)\b")
TURNS = 4
ANSWER_CHARS = 200


def sociable(model: ScriptedModel) -> ScriptedModel:
    """Register the town's responders on a scripted model; returns it."""
    model.on("react.decide", _react)
    model.on("converse.turn", _turn)
    model.on("interview.answer", _interview)
    model.on("reflect.insights", _insights)
    model.on("judge.rank", _rank)
    model.on("judge.check", _check)
    return model


def interviewees(model: ScriptedModel) -> ScriptedModel:
    """Register the interview responder alone, for any world whose minds keep a memory
    stream: they answer from the memories the interview shows them; returns the model."""
    model.on("interview.answer", _interview)
    return model


def _prompt(request: Request) -> str:
    return request.messages[-1].text


def _party(text: str) -> str | None:
    """The first sentence about a party, headings (lines ending in ":") aside."""
    for line in text.splitlines():
        found = None if line.rstrip().endswith(":") else _PARTY.search(line)
        if found:
            return found.group(0).strip(" -")
    return None


def _react(request: Request) -> dict[str, Any]:
    """Talk to the first person free, about the party if it is on the agent's mind."""
    people, topics = offered(request, "target"), offered(request, "about")
    last = topics[-1] if topics else NOTHING
    if len(people) < 2:  # only "nobody"
        return {"choice": "continue", "target": NOBODY, "about": last}
    news = next((t for t in topics if "party" in t.lower()), last)
    return {"choice": "talk", "target": people[0], "about": news}


def offered(request: Request, field: str) -> list[str]:
    """The values an enum field of the request's output model allows, in order."""
    fields = request.output.model_fields if request.output is not None else {}
    kind = getattr(fields.get(field), "annotation", None)
    return [str(m.value) for m in kind] if isinstance(kind, type) and issubclass(kind, Enum) else []


def _turn(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    transcript = prompt.split("Conversation so far:\n", 1)[-1].split("\nWhat does", 1)[0]
    said = [line for line in transcript.splitlines() if line and line != "(nothing yet)"]
    news = _party(prompt)
    topics = offered(request, "raises")
    raises = topics[-1] if topics else SMALL_TALK
    if news is None:
        text = "Nice to see you. How is your day going?"
    elif any("party" in line.lower() for line in said):
        text = "That sounds lovely; I will try to come."
    else:
        text = f"Have you heard? {news}."
        raises = next((t for t in topics if "party" in t.lower()), raises)
    return {"raises": raises, "text": text, "end": len(said) + 1 >= TURNS}


def _insights(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    question = prompt.split("Question: ", 1)[-1].split("\n", 1)[0]
    statements = _STATEMENT.findall(prompt.split("Statements:\n", 1)[-1])
    asked = set(_WORD.findall(question.lower()))
    ranked = sorted(statements, key=lambda s: -len(asked & set(_WORD.findall(s[1].lower()))))
    chosen = ranked[:2]
    if not chosen:
        return {"insights": []}
    text = "Lately: " + "; ".join(said for _, said in chosen)
    return {"insights": [{"text": text[:190], "evidence": sorted(int(n) for n, _ in chosen)}]}


def _interview(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    memories, _, question = prompt.partition("Interviewer:")
    question = question.split("\n", 1)[0]
    closed = request.output is not None and "choice" in request.output.model_fields
    sources = offered(request, "from_whom")
    if closed and sources:
        return _heard(memories, sources, offered(request, "choice"))
    known = _KNOW.search(question) if closed else None
    if known is not None:
        return _knows(known.group(1).strip(), memories)
    cited = [(i, text) for i, text in _CITED.findall(memories)]
    news = _party(memories)
    if "party" in question.lower() or "event" in question.lower():
        if news is None:
            return {"answer": "I have not heard of any party or event today.", "memory_ids": []}
        # The memory the news came from first, then other party memories: three at most, as
        # the output model allows.
        party = sorted(
            (i for i, text in cited if "party" in text.lower()),
            key=lambda i: news not in dict(cited)[i],
        )
        return {"answer": f"Yes: {news}.", "memory_ids": party[:MEMORY_IDS]}
    asked = set(_WORD.findall(question.lower()))
    best = max(
        reversed(cited), key=lambda c: len(asked & set(_WORD.findall(c[1].lower()))), default=None
    )
    if best is None:
        background = re.search(r"Background: ([^.\n]+)", memories)
        said = background.group(1) if background else "I keep to myself"
        return {"answer": f"{said}.", "memory_ids": []}
    line = best[1].splitlines()[0][:ANSWER_CHARS]
    return {"answer": f"I remember this: {line}", "memory_ids": [best[0]]}


def _knows(name: str, memories: str) -> dict[str, Any]:
    slug = name.lower().replace(" ", "_")
    lowered = memories.lower()
    if name.lower() in lowered or f"knows {slug}:" in lowered:
        return {"choice": "yes", "answer": f"Yes, I know {name}.", "memory_ids": []}
    return {"choice": "no", "answer": f"No, I do not know {name}.", "memory_ids": []}


def _heard(memories: str, sources: list[str], choices: list[str]) -> dict[str, Any]:
    """A closed question about a party: yes when a memory tells of one, from the first of
    `sources` who says so in it (else the last source: nobody)."""
    news = _party(memories)
    told = [line for line in memories.splitlines() if _PARTY.search(line)]
    teller = next((s for s in sources[:-1] if any(f"{s}: " in line for line in told)), sources[-1])
    if news is None:
        return {"choice": choices[-1], "from_whom": sources[-1], "answer": "No.", "memory_ids": []}
    cited = [i for i, text in _CITED.findall(memories) if "party" in text.lower()]
    return {
        "choice": choices[0],
        "from_whom": teller,
        "answer": f"Yes: {news}."[:150],
        "memory_ids": cited[:MEMORY_IDS],
    }


def _rank(request: Request) -> dict[str, Any]:
    answers = re.findall(r"^([A-Z]): (.*)$", _prompt(request), re.MULTILINE)
    ordered = sorted(answers, key=lambda a: (-len(set(_WORD.findall(a[1].lower()))), a[0]))
    return {"ranking": ">".join(label for label, _ in ordered)}


def _check(request: Request) -> dict[str, Any]:
    prompt = _prompt(request)
    sources, _, answer = prompt.partition("\nAnswer: ")
    unsupported = [w for w in _PROPER.findall(answer) if w.lower() not in sources.lower()]
    if unsupported:
        return {"verdict": "embellished", "claim": unsupported[0]}
    return {"verdict": "faithful", "claim": ""}
