"""The memory stream's prompts as data: each is a template, a pydantic output model and a
declared fallback, turned into a Request by one function.

Given the agent's `Voice` (the system message and persona its mind's prompts start with), a
prompt starts the same way, its own instructions following as the task: the model rates and
reflects as the character, and a server's prompt cache keeps the prefix the agent's other calls
share (without it, each rating would cost the agent's next call its cached prefix)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Annotated, NamedTuple

from pydantic import AfterValidator, BaseModel, Field, create_model, field_validator

from simulacra.llm import MaxChars, Message, Request, chat


class Voice(NamedTuple):
    """How the agent's own prompts begin: the system message, then the persona's summary."""

    system: str
    persona: str


def messages(task: str, user: str, voice: Voice | None) -> tuple[Message, ...]:
    """The prompt: the task as the system message, or after the agent's voice."""
    if voice is None:
        return chat(task, user)
    return chat(voice.system, f"{voice.persona}\n\nTask: {task}\n\n{user}")


IMPORTANCE_PURPOSE = "memory.importance"
QUESTIONS_PURPOSE = "reflect.questions"
INSIGHTS_PURPOSE = "reflect.insights"
QUESTIONS_MAX_TOKENS = 160
INSIGHTS_MAX_TOKENS = 320


class ImportanceRating(BaseModel):
    rating: int = Field(ge=1, le=10)


IMPORTANCE_SYSTEM = (
    "You rate how poignant a memory is for {agent}. On a scale of 1 to 10, 1 is purely mundane "
    "(brushing teeth, making the bed) and 10 is extremely poignant (a break-up, a college "
    'acceptance). Answer with JSON: {{"rating": <1-10>}}.'
)
IMPORTANCE_USER = "Memory: {text}\nRating:"


def importance_request(
    agent: str, text: str, fallback: int, seed: int = 0, voice: Voice | None = None
) -> Request:
    """Ask for a 1-10 rating of `text`; `fallback` (the keyword rule's rating) if that fails."""
    return Request(
        messages=messages(
            IMPORTANCE_SYSTEM.format(agent=agent), IMPORTANCE_USER.format(text=text), voice
        ),
        output=ImportanceRating,
        fallback=ImportanceRating(rating=fallback),
        max_tokens=16,
        seed=seed,
        purpose=IMPORTANCE_PURPOSE,
        agent=agent,
    )


def _not_counting(ratings: list[int]) -> list[int]:
    if len(ratings) >= 3 and ratings == list(range(ratings[0], ratings[0] + len(ratings))):
        raise ValueError(
            f"ratings {ratings} count up by one: a copied numbering, not a rating of each memory"
        )
    return ratings


class ImportanceRatings(BaseModel):
    """Several memories rated in one call; the model made for n memories takes exactly n, and
    refuses a list that only counts (1, 2, 3 ...), which a small model writes for any list."""

    ratings: list[Annotated[int, Field(ge=1, le=10)]]

    @field_validator("ratings")
    @classmethod
    def _rated(cls, ratings: list[int]) -> list[int]:
        return _not_counting(ratings)


@cache
def ratings_output(n: int) -> type[ImportanceRatings]:
    """The output model for n memories: `ratings` holds exactly n numbers from 1 to 10."""
    model: type[ImportanceRatings] = create_model(
        f"ImportanceRatings{n}",
        __base__=ImportanceRatings,
        ratings=(
            list[Annotated[int, Field(ge=1, le=10)]],
            Field(min_length=n, max_length=n),
        ),
    )
    return model


IMPORTANCES_SYSTEM = (
    "You rate how poignant each of {agent}'s memories is. On a scale of 1 to 10, 1 is purely "
    "mundane (brushing teeth, making the bed) and 10 is extremely poignant (a break-up, a "
    "college acceptance). Answer with JSON holding one rating per memory, in their order."
)
IMPORTANCES_USER = "Memories:\n{memories}\nRatings:"


def importances_request(
    agent: str,
    texts: Sequence[str],
    fallback: Sequence[int],
    seed: int = 0,
    voice: Voice | None = None,
) -> Request:
    """Ask for a 1-10 rating of each of `texts` in one call; `fallback` (the rule's) if not."""
    output = ratings_output(len(texts))
    return Request(
        messages=messages(
            IMPORTANCES_SYSTEM.format(agent=agent),
            IMPORTANCES_USER.format(memories=_numbered(texts)),
            voice,
        ),
        output=output,
        fallback=output(ratings=list(fallback)),
        max_tokens=8 + 4 * len(texts),
        seed=seed,
        purpose=IMPORTANCE_PURPOSE,
        agent=agent,
    )


# A question or insight must say something: a small model copies an example's "..." or
# writes "?" when nothing comes to it, and constrained decoding then needs a rule to follow.
MIN_STATEMENT = 12


def _has_words(text: str) -> str:
    if sum(c.isalpha() for c in text) < 3:
        raise ValueError(f"{text!r} holds no words; write a real sentence")
    return text


Sentence = Annotated[str, Field(min_length=MIN_STATEMENT), AfterValidator(_has_words)]


class ReflectionQuestions(BaseModel):
    # No length limit in the schema: a served model that asks four questions is trimmed, not
    # failed.
    # Placeholders ("...", "?") fail validation, so a retry or the grammar asks for words.
    questions: list[Annotated[Sentence, MaxChars(120)]]


QUESTIONS_SYSTEM = (
    "You help {agent} reflect. Read {agent}'s recent memories and ask the {count} most salient "
    "high-level questions that these statements alone can answer. Answer with JSON: a list "
    '"questions" of {count} full questions about {agent}, each a sentence of its own.'
)
QUESTIONS_USER = "Recent memories:\n{statements}\nQuestions:"


def questions_request(
    agent: str,
    statements: Sequence[str],
    fallback: Sequence[str],
    count: int = 3,
    seed: int = 0,
    voice: Voice | None = None,
) -> Request:
    """Ask which high-level questions the latest records raise; `fallback` questions if not."""
    return Request(
        messages=messages(
            QUESTIONS_SYSTEM.format(agent=agent, count=count),
            QUESTIONS_USER.format(statements=_numbered(statements)),
            voice,
        ),
        output=ReflectionQuestions,
        fallback=ReflectionQuestions(questions=list(fallback)[:count]),
        max_tokens=QUESTIONS_MAX_TOKENS,
        seed=seed,
        purpose=QUESTIONS_PURPOSE,
        agent=agent,
    )


class Insight(BaseModel):
    text: Annotated[Sentence, MaxChars(200)]
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
    agent: str,
    question: str,
    statements: Sequence[str],
    count: int = 5,
    seed: int = 0,
    voice: Voice | None = None,
) -> Request:
    """Ask for insights citing statement numbers (1-based); no insight at all if that fails."""
    return Request(
        messages=messages(
            INSIGHTS_SYSTEM.format(agent=agent, count=count),
            INSIGHTS_USER.format(question=question, statements=_numbered(statements)),
            voice,
        ),
        output=Insights,
        # An unfounded insight is worse than none: the fallback adds nothing to memory.
        fallback=Insights(insights=[]),
        max_tokens=INSIGHTS_MAX_TOKENS,
        seed=seed,
        purpose=INSIGHTS_PURPOSE,
        agent=agent,
    )


def _numbered(statements: Sequence[str]) -> str:
    return "\n".join(f"{n}. {text}" for n, text in enumerate(statements, start=1))
