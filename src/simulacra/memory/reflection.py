"""Reflection: the latest records raise questions; the evidence retrieved for each question
yields insights that cite it; insights stored as reflection records form a tree of beliefs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel

from simulacra.llm import LanguageModel, Request
from simulacra.memory.prompts import (
    Insights,
    ReflectionQuestions,
    insights_request,
    questions_request,
)
from simulacra.memory.record import REFLECTION, MemoryRecord, Retrieved, Statement
from simulacra.memory.scoring import fit_budget
from simulacra.runlog.events import Reflected


class Reflective(Protocol):
    """What reflecting needs of a memory stream (the stream itself, in practice)."""

    agent: str
    model: LanguageModel | None
    seed: int
    reflection: ReflectionConfig

    def recent_statements(self, n: int) -> list[Statement]: ...

    def retrieve(
        self, query: str, now: datetime, k: int = 30, *, token_budget: int | None = None
    ) -> list[Retrieved]: ...

    async def add(
        self,
        kind: str,
        text: str,
        now: datetime,
        importance: float | None = None,
        evidence: Iterable[str] = (),
    ) -> MemoryRecord: ...


@dataclass(frozen=True)
class ReflectionConfig:
    """The source's parameters: reflect when 150 importance has accrued, over the 100 latest
    records, with 3 questions; how much evidence each question retrieves, how many insights
    it may yield and how many tokens of statements a prompt may hold are ours (the 100 latest
    records of a town day run to 6,000 tokens, three times the embedded model's context)."""

    threshold: float = 150.0
    recent: int = 100
    questions: int = 3
    evidence: int = 30
    insights: int = 5
    token_budget: int = 600


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
    latest = stream.recent_statements(config.recent)
    # The newest of them that fit the budget, still oldest first.
    fits = fit_budget([r.text for r in reversed(latest)], config.token_budget)
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
        ),
    )
    assert isinstance(asked, ReflectionQuestions)
    questions = [q.strip() for q in asked.questions if q.strip()][: config.questions]
    evidence = [
        stream.retrieve(q, now, k=config.evidence, token_budget=config.token_budget)
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
                ),
            )
            for question, found in zip(questions, evidence, strict=True)
        )
    )
    outcome = ReflectionOutcome(questions=questions)
    for question, found, answer in zip(questions, evidence, answers, strict=True):
        assert isinstance(answer, Insights)
        for insight in answer.insights[: config.insights]:
            text = insight.text.strip()
            cited = tuple(insight.evidence)
            problem = _unsupported(cited, found)
            if problem:
                outcome.rejected.append(RejectedInsight(question, text, cited, problem))
                continue
            ids = [found[n - 1].record.id for n in dict.fromkeys(cited)]
            outcome.records.append(await stream.add(REFLECTION, text, now, evidence=ids))
    return outcome


def _unsupported(cited: tuple[int, ...], shown: list[Retrieved]) -> str:
    """Why an insight's citations do not hold, or "" when they do."""
    if not cited:
        return "cites no evidence"
    unknown = [n for n in cited if not 1 <= n <= len(shown)]
    if unknown:
        return f"cites statements {unknown} but only 1-{len(shown)} were shown"
    return ""


async def _ask(model: LanguageModel | None, request: Request) -> BaseModel:
    """The model's validated answer, or the request's declared fallback when there is no model."""
    if model is not None:
        completion = await model.complete(request)
        if completion.value is not None:
            return completion.value
    assert isinstance(request.fallback, BaseModel)
    return request.fallback
