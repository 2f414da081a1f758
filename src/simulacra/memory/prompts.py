"""The memory stream's prompts as data: each is a template, a pydantic output model and a
declared fallback, turned into a Request by one function."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, Field

from simulacra.llm import MaxChars, Request, chat

IMPORTANCE_PURPOSE = "memory.importance"
QUESTIONS_PURPOSE = "reflect.questions"
INSIGHTS_PURPOSE = "reflect.insights"


class ImportanceRating(BaseModel):
    rating: int = Field(ge=1, le=10)


IMPORTANCE_SYSTEM = (
    "You rate how poignant a memory is for {agent}. On a scale of 1 to 10, 1 is purely mundane "
    "(brushing teeth, making the bed) and 10 is extremely poignant (a break-up, a college "
    'acceptance). Answer with JSON: {{"rating": <1-10>}}.'
)
IMPORTANCE_USER = "Memory: {text}\nRating:"


def importance_request(agent: str, text: str, fallback: int, seed: int = 0) -> Request:
    """Ask for a 1-10 rating of `text`; `fallback` (the keyword rule's rating) if that fails."""
    return Request(
        messages=chat(IMPORTANCE_SYSTEM.format(agent=agent), IMPORTANCE_USER.format(text=text)),
        output=ImportanceRating,
        fallback=ImportanceRating(rating=fallback),
        max_tokens=16,
        seed=seed,
        purpose=IMPORTANCE_PURPOSE,
        agent=agent,
    )


class ReflectionQuestions(BaseModel):
    # No length limit in the schema: a served model that asks four questions is trimmed, not
    # failed.
    questions: list[Annotated[str, MaxChars(120)]]


QUESTIONS_SYSTEM = (
    "You help {agent} reflect. Read {agent}'s recent memories and ask the {count} most salient "
    "high-level questions that these statements alone can answer. "
    'Answer with JSON: {{"questions": ["...", "..."]}}.'
)
QUESTIONS_USER = "Recent memories:\n{statements}\nQuestions:"


def questions_request(
    agent: str, statements: Sequence[str], fallback: Sequence[str], count: int = 3, seed: int = 0
) -> Request:
    """Ask which high-level questions the latest records raise; `fallback` questions if not."""
    return Request(
        messages=chat(
            QUESTIONS_SYSTEM.format(agent=agent, count=count),
            QUESTIONS_USER.format(statements=_numbered(statements)),
        ),
        output=ReflectionQuestions,
        fallback=ReflectionQuestions(questions=list(fallback)[:count]),
        max_tokens=160,
        seed=seed,
        purpose=QUESTIONS_PURPOSE,
        agent=agent,
    )


class Insight(BaseModel):
    text: Annotated[str, MaxChars(200)] = Field(min_length=1)
    evidence: list[int] = Field(description="numbers of the statements that support it")


class Insights(BaseModel):
    insights: list[Insight]


INSIGHTS_SYSTEM = (
    "You help {agent} reflect. From the numbered statements, infer up to {count} high-level "
    "insights about the question. Every insight cites the numbers of the statements it rests "
    'on; claim nothing the statements do not support. Answer with JSON: {{"insights": '
    '[{{"text": "...", "evidence": [1, 3]}}]}}.'
)
INSIGHTS_USER = "Question: {question}\nStatements:\n{statements}\nInsights:"


def insights_request(
    agent: str, question: str, statements: Sequence[str], count: int = 5, seed: int = 0
) -> Request:
    """Ask for insights citing statement numbers (1-based); no insight at all if that fails."""
    return Request(
        messages=chat(
            INSIGHTS_SYSTEM.format(agent=agent, count=count),
            INSIGHTS_USER.format(question=question, statements=_numbered(statements)),
        ),
        output=Insights,
        # An unfounded insight is worse than none: the fallback adds nothing to memory.
        fallback=Insights(insights=[]),
        max_tokens=320,
        seed=seed,
        purpose=INSIGHTS_PURPOSE,
        agent=agent,
    )


def _numbered(statements: Sequence[str]) -> str:
    return "\n".join(f"{n}. {text}" for n, text in enumerate(statements, start=1))
