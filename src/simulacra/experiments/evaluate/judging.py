"""Blinded rankings: for each item, the conditions' answers in a seeded random order, ranked
by the judge model; the positions are mapped back to conditions."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from simulacra.experiments.evaluate.answers import Answer
from simulacra.experiments.evaluate.items import Item
from simulacra.experiments.evaluate.judge import rank_answers
from simulacra.llm import LanguageModel


@dataclass(frozen=True)
class Ranking:
    """One ranking of the conditions' answers to one item, best first. `rater` names the
    judge ("judge:0" ...) or the person; `fallback`: the judge failed (left out of ratings)."""

    item: str
    rater: str
    order: tuple[str, ...]
    fallback: bool = False


def blinded(item: str, conditions: Sequence[str], seed: int, salt: str) -> list[str]:
    """The conditions in the order the judge (or a person) sees them."""
    shown = list(conditions)
    random.Random(f"{seed}|{salt}|{item}").shuffle(shown)
    return shown


async def judge_items(
    judge: LanguageModel,
    items: Sequence[Item],
    answers: Mapping[tuple[str, str], Answer],
    conditions: Sequence[str],
    summaries: Mapping[str, str],
    *,
    judges: int,
    seed: int,
    step: Callable[[], None],
    memories: Mapping[str, Sequence[str]] | None = None,
) -> list[Ranking]:
    """`memories`: per item, what the agent remembers that bears on its question."""

    async def one(item: Item, judge_no: int) -> Ranking:
        shown = blinded(item.id, conditions, seed, f"judge{judge_no}")
        texts = [answers[(item.id, c)].text for c in shown]
        order, fallback = await rank_answers(
            judge,
            summaries[item.agent],
            item.question,
            texts,
            item=item.id,
            judge=judge_no,
            memories=(memories or {}).get(item.id, ()),
        )
        step()
        return Ranking(item.id, f"judge:{judge_no}", tuple(shown[i] for i in order), fallback)

    jobs = [one(item, j) for j in range(judges) for item in items]
    return list(await asyncio.gather(*jobs))
