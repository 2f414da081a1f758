"""The evaluation's judge: ranks the answers several conditions gave to one interview
question by believability, checks an answer against the memories it used, and says whether
an answer knows a planted fact.

The answers arrive blinded (letters A, B, ... in an order the caller shuffled). The ranking's
output model is an enum of every permutation of those letters, so the schema itself keeps a
small model from repeating or dropping one. The fact check names the first claim no source
supports, or none.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from itertools import permutations
from string import ascii_uppercase
from typing import Annotated, Literal

from pydantic import BaseModel, create_model

from simulacra.core import derived_seed
from simulacra.llm import LanguageModel, MaxChars, Request, chat

MAX_ANSWERS = 6  # 6! = 720 permutations: about the most a grammar-constrained enum takes
SEPARATOR = ">"

MEMORIES, MEMORY_CHARS = 8, 200  # what a ranking shows of the character's memories

RANK_SYSTEM = (
    "You judge interviews with characters of a town simulation. Rank all the answers from the "
    "most to the least believable for this character: consistent with who they are and what "
    "they would know (what they remember about it is shown), specific, and natural, without "
    "invented facts. Reply in JSON with the "
    "ranking: every answer's letter once, best first, joined by '>'."
)
RANK_USER = """The character:
{summary}
What the character remembers about this:
{memories}

Interviewer: {question}

Answers:
{answers}"""

CHECK_SYSTEM = (
    "You check an interview answer against its sources: the character's description and the "
    "memories the answer used. If the answer states a fact (a name, a place, a time, an event, "
    "something someone said or did) that none of the sources supports, the verdict is "
    "embellished and claim quotes that part of the answer; otherwise the verdict is faithful "
    "and claim is empty. Opinions and feelings need no source. Reply in JSON."
)
CHECK_USER = """Sources:
{summary}
{memories}

Answer: {answer}"""


class RankingOutput(BaseModel):
    ranking: str  # one of the permutations: the subclass made for n answers says which


class FactCheckOutput(BaseModel):
    verdict: Literal["faithful", "embellished"]
    claim: Annotated[str, MaxChars(200)] = ""


CHECK_FALLBACK = FactCheckOutput(verdict="faithful", claim="(not checked: the model failed)")


def letters(n: int) -> tuple[str, ...]:
    if not 2 <= n <= MAX_ANSWERS:
        raise ValueError(f"a ranking takes 2 to {MAX_ANSWERS} answers, not {n}")
    return tuple(ascii_uppercase[:n])


@cache
def ranking_output(n: int) -> type[RankingOutput]:
    """The output model for n answers: `ranking` is an enum of the n! orders."""
    orders = [SEPARATOR.join(p) for p in permutations(letters(n))]
    enum = StrEnum(f"Ranking{n}", {f"r{i}": o for i, o in enumerate(orders)})  # type: ignore[misc]
    model: type[RankingOutput] = create_model(
        f"RankingOutput{n}", __base__=RankingOutput, ranking=(enum, ...)
    )
    return model


async def rank_answers(
    model: LanguageModel,
    summary: str,
    question: str,
    answers: Sequence[str],
    *,
    item: str,
    judge: int = 0,
    memories: Sequence[str] = (),
) -> tuple[tuple[int, ...], bool]:
    """Positions of `answers` (as shown) ordered best first, and whether the fallback stood in
    (the order shown, which the caller shuffled). `memories`: what the character remembers
    that bears on the question. `item` and `judge` fix the call's seed."""
    shown = letters(len(answers))
    listing = "\n".join(f"{label}: {text}" for label, text in zip(shown, answers, strict=True))
    remembered = "\n".join(f"- {m[:MEMORY_CHARS]}" for m in memories[:MEMORIES]) or "(nothing)"
    output = ranking_output(len(answers))
    fallback = output.model_validate({"ranking": SEPARATOR.join(shown)})
    request = Request(
        chat(
            RANK_SYSTEM,
            RANK_USER.format(
                summary=summary, memories=remembered, question=question, answers=listing
            ),
        ),
        output=output,
        fallback=fallback,
        max_tokens=32,
        seed=derived_seed(item, str(judge)),
        purpose="judge.rank",
    )
    completion = await model.complete(request)
    value = completion.value if isinstance(completion.value, output) else fallback
    order = str(value.ranking).split(SEPARATOR)
    return tuple(shown.index(label) for label in order), completion.fallback


async def check_answer(
    model: LanguageModel, summary: str, memories: Sequence[str], answer: str, *, item: str
) -> FactCheckOutput | None:
    """The fact check of one answer; None when the model failed and nothing was checked."""
    lines = "\n".join(f"- {text}" for text in memories) or "(no memories)"
    request = Request(
        chat(CHECK_SYSTEM, CHECK_USER.format(summary=summary, memories=lines, answer=answer)),
        output=FactCheckOutput,
        fallback=CHECK_FALLBACK,
        max_tokens=96,
        seed=derived_seed(item, "check"),
        purpose="judge.check",
    )
    completion = await model.complete(request)
    if completion.fallback or not isinstance(completion.value, FactCheckOutput):
        return None
    return completion.value


AWARE_PURPOSE = "judge.aware"
AWARE_SYSTEM = (
    "You judge whether a character of a town simulation knows a fact, from the character's "
    "answer to an interviewer. The verdict is yes when the answer shows the character knows "
    "the fact (in any words; the character may speak of its own plans in the first person), "
    "no when the answer does not mention it, denies it or doubts it. Reply in JSON."
)
AWARE_USER = """The fact ({owner}'s, in {owner}'s words): {fact}

Interviewer to {name}: {question}
{name}: {answer}

Does {name} know the fact?"""


class AwareOutput(BaseModel):
    verdict: Literal["yes", "no"]


async def judge_aware(
    model: LanguageModel,
    fact: str,
    owner: str,
    name: str,
    question: str,
    answer: str,
    *,
    by_words: bool,
    item: str,
) -> tuple[bool, bool]:
    """Whether the answer of the agent called `name` knows `fact` (first thought by `owner`),
    and whether the fallback, the keyword test's verdict `by_words`, stood in."""
    fallback = AwareOutput(verdict="yes" if by_words else "no")
    user = AWARE_USER.format(owner=owner, fact=fact, name=name, question=question, answer=answer)
    request = Request(
        chat(AWARE_SYSTEM, user),
        output=AwareOutput,
        fallback=fallback,
        max_tokens=12,
        seed=derived_seed(item, "aware"),
        purpose=AWARE_PURPOSE,
    )
    completion = await model.complete(request)
    value = completion.value if isinstance(completion.value, AwareOutput) else fallback
    return value.verdict == "yes", completion.fallback
