"""Reflection: the latest records raise questions; the evidence retrieved for each question
yields insights that cite it; insights stored as reflection records form a tree of beliefs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel

from simulacra.llm import DEFAULT_CONTEXT_TOKENS, LanguageModel, Request
from simulacra.memory.prompts import (
    INSIGHTS_MAX_TOKENS,
    INSIGHTS_PURPOSE,
    QUESTIONS_MAX_TOKENS,
    Insights,
    ReflectionQuestions,
    Voice,
    insights_request,
    questions_request,
)
from simulacra.memory.record import REFLECTION, WITNESSED, MemoryRecord, Retrieved, Statement
from simulacra.memory.scoring import fit_budget, prompt_room
from simulacra.runlog.events import Reflected


class Reflective(Protocol):
    """What reflecting needs of a memory stream (the stream itself, in practice)."""

    agent: str
    model: LanguageModel | None
    seed: int
    reflection: ReflectionConfig
    voice: Voice | None

    def recent_statements(self, n: int, kinds: Iterable[str] | None = None) -> list[Statement]: ...

    def retrieve(
        self,
        query: str,
        now: datetime,
        k: int | None = 30,
        *,
        token_budget: int | None = None,
        purpose: str = "",
        per_record: int = 0,
    ) -> list[Retrieved]: ...

    async def add_many(
        self,
        kind: str,
        texts: Sequence[str],
        now: datetime,
        *,
        evidence_each: Sequence[Iterable[str]] | None = None,
    ) -> list[MemoryRecord]: ...


@dataclass(frozen=True)
class ReflectionConfig:
    """The source's parameters: reflect when 150 importance has accrued in records of the
    `counted` kinds (what the agent saw and was told: the source counts perceived events,
    not the agent's own plans or reflections), over the 100 latest records of those kinds,
    with 3 questions, each question's evidence the 30 top-ranked records (the source's number)
    that fit the context. `context_tokens` is the model's window (default: the one the
    model declares): the statements and the evidence shown are as many as fit it (the 100
    latest records of a town day run to about 6,000 tokens, three times the embedded
    model's 2,048: it sees the newest that fit). How many insights a question may yield is
    ours."""

    threshold: float = 150.0
    recent: int = 100
    questions: int = 3
    insights: int = 5
    evidence: int = 30
    counted: tuple[str, ...] = WITNESSED
    context_tokens: int | None = None  # None: the model's (Gateway.context_tokens)


@dataclass(frozen=True)
class RejectedInsight:
    """An insight not stored: it cited no statement, or a statement it was not shown."""

    question: str
    text: str
    cited: tuple[int, ...]
    reason: str


@dataclass(frozen=True)
class ReflectionOutcome:
    questions: list[str]
    records: list[MemoryRecord] = field(default_factory=list)
    rejected: list[RejectedInsight] = field(default_factory=list)

    def event(self) -> Reflected:
        """The `reflection` event (docs/events.md)."""
        return Reflected(
            questions=list(self.questions),
            insights=[
                {"id": r.id, "text": r.text, "evidence_ids": list(r.evidence_ids)}
                for r in self.records
            ],
            rejected=[
                {"question": r.question, "text": r.text, "cited": list(r.cited), "reason": r.reason}
                for r in self.rejected
            ],
        )


async def reflect(stream: Reflective, now: datetime) -> ReflectionOutcome:
    """One reflection over `stream`, as the source describes it; see ReflectionConfig."""
    config = stream.reflection
    window = config.context_tokens or getattr(stream.model, "context_tokens", None)
    window = window if isinstance(window, int) else DEFAULT_CONTEXT_TOKENS
    # What the agent saw and was told raises the questions (the source's "recent events");
    # the evidence for each is drawn from every kind, reflections too (the tree).
    latest = stream.recent_statements(config.recent, config.counted)
    # The newest of them that fit the window, still oldest first ("12. " numbers each).
    room = prompt_room(
        window,
        QUESTIONS_MAX_TOKENS,
        *_texts(questions_request(stream.agent, [], [], config.questions, voice=stream.voice)),
    )
    fits = fit_budget([f"{n}. {r.text}" for n, r in enumerate(reversed(latest))], room)
    latest = latest[len(latest) - max(1, fits) :]
    if not latest:
        return ReflectionOutcome(questions=[])
    # Without a usable answer, ask about the weightiest recent events themselves.
    weighty = sorted(latest, key=lambda r: -r.importance)[: config.questions]
    asked = await _ask(
        stream.model,
        questions_request(
            stream.agent,
            [r.text for r in latest],
            [f"What does {r.text!r} mean for {stream.agent}?" for r in weighty],
            config.questions,
            stream.seed,
            stream.voice,
        ),
    )
    assert isinstance(asked, ReflectionQuestions)
    questions = [q.strip() for q in asked.questions if q.strip()][: config.questions]
    evidence = [
        stream.retrieve(
            q,
            now,
            k=config.evidence,
            token_budget=prompt_room(
                window,
                INSIGHTS_MAX_TOKENS,
                *_texts(insights_request(stream.agent, q, [], config.insights, voice=stream.voice)),
            ),
            purpose=INSIGHTS_PURPOSE,
            per_record=2,  # "12. " and a line break
        )
        for q in questions
    ]
    answers = await asyncio.gather(
        *(
            _ask(
                stream.model,
                insights_request(
                    stream.agent,
                    question,
                    [r.record.text for r in found],
                    config.insights,
                    stream.seed,
                    stream.voice,
                ),
            )
            for question, found in zip(questions, evidence, strict=True)
        )
    )
    outcome = ReflectionOutcome(questions=questions)
    texts: list[str] = []
    cites: list[list[str]] = []
    for question, found, answer in zip(questions, evidence, answers, strict=True):
        assert isinstance(answer, Insights)
        for insight in answer.insights[: config.insights]:
            text = insight.text.strip()
            cited = tuple(insight.evidence)
            problem = _unsupported(cited, found)
            if problem:
                outcome.rejected.append(RejectedInsight(question, text, cited, problem))
                continue
            texts.append(text)
            cites.append([found[n - 1].record.id for n in dict.fromkeys(cited)])
    # One write: the model rates all of a reflection's insights in one call (or a few).
    outcome.records.extend(await stream.add_many(REFLECTION, texts, now, evidence_each=cites))
    return outcome


def _unsupported(cited: tuple[int, ...], shown: list[Retrieved]) -> str:
    """Why an insight's citations do not hold, or "" when they do."""
    if not cited:
        return "cites no evidence"
    unknown = [n for n in cited if not 1 <= n <= len(shown)]
    if unknown:
        return f"cites statements {unknown} but only 1-{len(shown)} were shown"
    return ""


def _texts(request: Request) -> list[str]:
    """A prompt's texts without its statements: what it holds besides the memories."""
    return [m.text for m in request.messages]


async def _ask(model: LanguageModel | None, request: Request) -> BaseModel:
    """The model's validated answer, or the request's declared fallback when there is no model."""
    if model is not None:
        completion = await model.complete(request)
        if completion.value is not None:
            return completion.value
    assert isinstance(request.fallback, BaseModel)
    return request.fallback
