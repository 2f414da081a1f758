"""Every prompt of the memory stream renders, and its fallback is a valid answer."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from simulacra.memory.prompts import (
    ImportanceRating,
    Insight,
    Insights,
    ReflectionQuestions,
    importance_request,
    importances_request,
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
    request = questions_request("ada", ["ate", "slept"], ["What comes next for Ada?"] * 5, count=3)
    assert "1. ate\n2. slept" in request.messages[-1].content
    assert "3 most salient" in request.messages[0].content
    assert "..." not in request.messages[0].content  # no placeholder to copy
    assert request.purpose == "reflect.questions" and request.output is ReflectionQuestions
    assert request.fallback == ReflectionQuestions(questions=["What comes next for Ada?"] * 3)


@pytest.mark.parametrize("placeholder", ["...", "?", "???????????????", "1, 2, 3 ... 4, 5 ?"])
def test_placeholder_questions_and_insights_are_rejected_by_the_output_model(
    placeholder: str,
) -> None:
    with pytest.raises(ValidationError):
        ReflectionQuestions(questions=["What has Ada been practising lately?", placeholder])
    with pytest.raises(ValidationError):
        Insight(text=placeholder, evidence=[1])
    assert Insight(text="Ada loves the violin", evidence=[1]).text == "Ada loves the violin"


def test_several_memories_are_rated_in_one_call_that_takes_exactly_one_rating_each() -> None:
    request = importances_request("ada", ["ate toast", "won the prize", "slept"], [2, 6, 1])
    assert request.purpose == "memory.importance"
    assert "1. ate toast\n2. won the prize\n3. slept" in request.messages[-1].content
    assert request.output is not None and request.fallback is not None
    assert request.output.model_validate({"ratings": [2, 9, 1]}).ratings == [2, 9, 1]
    for wrong in ([2, 9], [2, 9, 1, 1], [0, 9, 1]):
        with pytest.raises(ValidationError):
            request.output.model_validate({"ratings": wrong})
    assert request.output.model_validate(request.fallback).ratings == [2, 6, 1]


def test_insights_prompt_asks_for_cited_statement_numbers() -> None:
    request = insights_request("ada", "What does Ada love?", ["plays violin", "joins orchestra"])
    user = request.messages[-1].content
    assert user.startswith("Question: What does Ada love?\nStatements:\n1. plays violin\n")
    assert '"evidence": [1, 3]' in request.messages[0].content
    assert request.purpose == "reflect.insights" and request.output is Insights
    assert request.fallback == Insights(insights=[])
