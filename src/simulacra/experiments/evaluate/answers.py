"""Answers of the interview study: every item under one condition, and their fact checks."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from simulacra.core import Interviewee
from simulacra.experiments.evaluate.items import Item
from simulacra.experiments.evaluate.judge import check_answer
from simulacra.experiments.evaluate.memory_at import memory_texts
from simulacra.llm import LanguageModel

Step = Callable[[], None]


@dataclass(frozen=True)
class Answer:
    """One condition's answer to one item, the memories it used, and its fact check:
    `verdict` is faithful, embellished, or None when the judge failed to check it."""

    item: str
    condition: str
    text: str
    memory_ids: tuple[str, ...]
    fallback: bool
    verdict: str | None = None
    claim: str = ""


def summary_of(mind: object) -> str:
    """The persona summary a mind speaks from (its id when it has none)."""
    persona = getattr(mind, "persona", None)
    summary = getattr(persona, "summary", None)
    return str(summary()) if callable(summary) else str(getattr(mind, "id", "an agent"))


async def answer_items(
    minds: Mapping[str, Interviewee],
    items: Sequence[Item],
    at: datetime,
    condition: str,
    step: Step,
) -> list[Answer]:
    async def one(item: Item) -> Answer:
        reply = await minds[item.agent].interview(item.question, at)
        step()
        return Answer(item.id, condition, reply.answer, reply.memory_ids, reply.fallback)

    return list(await asyncio.gather(*(one(item) for item in items)))


async def check_answers(
    judge: LanguageModel,
    answers: Sequence[Answer],
    summaries: Mapping[str, str],
    memory: Path,
    step: Step,
) -> list[Answer]:
    """Each answer checked against the persona and the memories it used."""
    texts = memory_texts(memory, {i for a in answers for i in a.memory_ids})

    async def one(answer: Answer) -> Answer:
        agent = answer.item.split("|", 1)[0]
        sources = [texts[i] for i in answer.memory_ids if i in texts]
        found = await check_answer(
            judge, summaries[agent], sources, answer.text, item=f"{answer.item}|{answer.condition}"
        )
        step()
        if found is None:
            return answer
        return Answer(**{**answer.__dict__, "verdict": found.verdict, "claim": found.claim})

    return list(await asyncio.gather(*(one(a) for a in answers)))


def embellishment(answers: Sequence[Answer]) -> dict[str, dict[str, float]]:
    """Per condition: answers checked, embellished, and the rate."""
    found: dict[str, dict[str, float]] = {}
    for answer in answers:
        tally = found.setdefault(answer.condition, {"checked": 0, "embellished": 0, "rate": 0.0})
        if answer.verdict is None:
            continue
        tally["checked"] += 1
        tally["embellished"] += answer.verdict == "embellished"
    for tally in found.values():
        tally["rate"] = (
            round(tally["embellished"] / tally["checked"], 4) if tally["checked"] else 0.0
        )
    return found
