"""Every prompt of the memory stream renders, and its fallback is a valid answer."""

from __future__ import annotations

from simulacra.memory.prompts import (
    ImportanceRating,
    Insights,
    ReflectionQuestions,
    importance_request,
    insights_request,
    questions_request,
)


def test_importance_prompt_renders_the_memory_and_falls_back_to_the_rule() -> None:
    request = importance_request("isabella", "Maria invited me to a party", fallback=6)
    system, user = request.messages
    assert "isabella" in system.content and "1 to 10" in system.content
    assert user.content == "Memory: Maria invited me to a party\nRating:"
    assert request.purpose == "memory.importance" and request.output is ImportanceRating
    assert ImportanceRating.model_validate(request.fallback) == ImportanceRating(rating=6)


def test_questions_prompt_numbers_the_statements() -> None:
    request = questions_request("ada", ["ate", "slept"], ["what next?"] * 5, count=3)
    assert "1. ate\n2. slept" in request.messages[-1].content
    assert "3 most salient" in request.messages[0].content
    assert request.purpose == "reflect.questions" and request.output is ReflectionQuestions
    assert request.fallback == ReflectionQuestions(questions=["what next?"] * 3)


def test_insights_prompt_asks_for_cited_statement_numbers() -> None:
    request = insights_request("ada", "What does Ada love?", ["plays violin", "joins orchestra"])
    user = request.messages[-1].content
    assert user.startswith("Question: What does Ada love?\nStatements:\n1. plays violin\n")
    assert '"evidence": [1, 3]' in request.messages[0].content
    assert request.purpose == "reflect.insights" and request.output is Insights
    assert request.fallback == Insights(insights=[])
