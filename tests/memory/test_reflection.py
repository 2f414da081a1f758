"""Reflection: when it fires, what it may cite, and how invalidation climbs the tree."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from simulacra.embed import HashingEmbedder
from simulacra.llm import Request, ScriptedModel
from simulacra.memory import MemoryStream, ReflectionConfig
from simulacra.memory.scoring import TOKENIZER_SLACK
from simulacra.runlog import EventWriter, read_events

NOW = datetime(2023, 2, 13, 9, 0)
STATEMENT = re.compile(r"^(\d+)\. ", re.MULTILINE)


def shown(request: Request) -> int:
    """How many numbered statements the prompt showed."""
    return len(STATEMENT.findall(request.messages[-1].content))


def reflective_model() -> ScriptedModel:
    """Asks one question; answers with one supported insight and one citing a bogus number."""
    model = ScriptedModel()
    model.on("reflect.questions", lambda _: {"questions": ["What does Ada care about?"]})
    model.on(
        "reflect.insights",
        lambda request: {
            "insights": [
                {"text": "Ada cares deeply about music", "evidence": [1, 2]},
                {"text": "Ada owns a dragon", "evidence": [shown(request) + 50]},
            ]
        },
    )
    return model


async def fill(stream: MemoryStream, importances: Sequence[float]) -> None:
    for n, importance in enumerate(importances):
        text = f"Ada practised the violin for {n + 1} hours"
        await stream.add("observation", text, NOW + timedelta(minutes=n), importance)


async def test_reflection_fires_when_importance_reaches_150(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "events.jsonl") as events:
        stream = MemoryStream("ada", HashingEmbedder(), model=reflective_model(), sink=events)
        await fill(stream, [10] * 14 + [9])
        assert stream.since_reflection == 149
        assert await stream.reflect_if_due(NOW + timedelta(hours=1)) == []
        await stream.add("observation", "Ada tuned the violin", NOW + timedelta(hours=1), 1)
        made = await stream.reflect_if_due(NOW + timedelta(hours=1))
        assert [r.text for r in made] == ["Ada cares deeply about music"]
        assert stream.since_reflection == 0
        assert await stream.reflect_if_due(NOW + timedelta(hours=2)) == []
    reflections = list(read_events(tmp_path / "events.jsonl", {"reflection"}))
    assert len(reflections) == 1


async def test_reflections_do_not_count_towards_the_next_reflection() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), model=reflective_model())
    await fill(stream, [10, 10, 10])
    evidence = [r.id for r in stream.recent(3)]
    await stream.add("reflection", "Ada is devoted to the violin", NOW, 10, evidence)
    assert stream.since_reflection == 30


async def test_insights_cite_only_existing_ids_and_bogus_citations_are_rejected(
    tmp_path: Path,
) -> None:
    with EventWriter(tmp_path / "events.jsonl") as events:
        stream = MemoryStream("ada", HashingEmbedder(), model=reflective_model(), sink=events)
        await fill(stream, [10] * 15)
        (insight,) = await stream.reflect(NOW + timedelta(hours=1))
    assert stream.rejected_insights == 1
    assert len(insight.evidence_ids) == 2
    for record_id in insight.evidence_ids:
        assert stream.get(record_id).kind == "observation"
    (retrieval, *_) = read_events(tmp_path / "events.jsonl", {"retrieval"})
    first_two = [r["id"] for r in retrieval.data["results"][:2]]
    assert list(insight.evidence_ids) == first_two
    (reflection,) = read_events(tmp_path / "events.jsonl", {"reflection"})
    assert reflection.data["questions"] == ["What does Ada care about?"]
    assert reflection.data["insights"] == [
        {"id": insight.id, "text": insight.text, "evidence_ids": list(insight.evidence_ids)}
    ]
    (rejected,) = reflection.data["rejected"]
    assert rejected["text"] == "Ada owns a dragon" and "only 1-" in rejected["reason"]


async def test_reflections_may_cite_reflections_forming_a_tree() -> None:
    model = ScriptedModel()
    model.on("reflect.questions", lambda _: {"questions": ["Ada music violin"]})
    model.on(
        "reflect.insights",
        lambda request: {
            "insights": [{"text": "Ada's life turns on music", "evidence": [1, shown(request)]}]
        },
    )
    stream = MemoryStream("ada", HashingEmbedder(), model=model)
    await fill(stream, [8] * 3)
    (low,) = await stream.reflect(NOW + timedelta(hours=1))
    (high,) = await stream.reflect(NOW + timedelta(hours=2))
    assert low.id in high.evidence_ids


async def test_invalidation_propagates_up_a_two_level_tree(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "events.jsonl") as events:
        stream = MemoryStream("ada", HashingEmbedder(), importance=5, sink=events)
        a = await stream.add("observation", "Ada plays the violin daily", NOW)
        b = await stream.add("observation", "Ada joined the town orchestra", NOW)
        c = await stream.add("observation", "Ada bought new violin strings", NOW)
        mid = await stream.add("reflection", "Ada loves music", NOW, evidence=[a.id, b.id])
        top = await stream.add("reflection", "Music shapes Ada", NOW, evidence=[mid.id, c.id])
        aside = await stream.add("reflection", "Ada keeps her gear", NOW, evidence=[c.id])
        assert stream.invalidate(a.id, "Ada never played", NOW) == [mid.id, top.id]
    assert [stream.get(r.id).valid for r in (a, b, c, mid, top, aside)] == [
        False, True, True, False, False, True,
    ]  # fmt: skip
    left = {r.record.id for r in stream.retrieve("Ada violin music", NOW)}
    assert left == {b.id, c.id, aside.id}
    assert {r.id for r in stream.recent(10)} == left
    with pytest.raises(ValueError, match="invalidated"):
        await stream.add("reflection", "Ada is a violinist", NOW, evidence=[a.id])
    (event,) = read_events(tmp_path / "events.jsonl", {"memory.invalidate"})
    assert event.data == {"id": a.id, "reason": "Ada never played", "invalidated": [mid.id, top.id]}


async def test_reflection_without_a_model_stores_nothing_unfounded() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule")
    await fill(stream, [10] * 15)
    assert await stream.reflect_if_due(NOW + timedelta(hours=1)) == []
    assert stream.since_reflection == 0 and len(stream) == 15


async def reflect_with_window(context_tokens: int, records: int) -> tuple[Request, Request]:
    """Reflect once over `records` records with a model of `context_tokens`; both prompts."""
    asked: list[Request] = []
    model = reflective_model()
    model.on("reflect.questions", lambda r: asked.append(r) or {"questions": ["What now for Ada?"]})
    model.on("reflect.insights", lambda r: asked.append(r) or {"insights": []})
    config = ReflectionConfig(context_tokens=context_tokens)
    stream = MemoryStream("ada", HashingEmbedder(), model=model, reflection=config)
    await fill(stream, [5] * records)
    await stream.reflect(NOW + timedelta(hours=1))
    questions, insights = asked
    return questions, insights


async def test_reflection_reads_the_100_latest_records_when_the_window_holds_them() -> None:
    questions, insights = await reflect_with_window(16_384, 140)
    statements = questions.messages[-1].content
    assert shown(questions) == 100
    assert "for 140 hours" in statements and "for 41 hours" in statements
    assert "for 40 hours" not in statements
    # The evidence: the 30 top-ranked of the 140, as the source takes, though all would fit.
    assert shown(insights) == 30


async def test_a_small_window_shows_the_newest_statements_that_fit_it() -> None:
    questions, insights = await reflect_with_window(1024, 140)
    statements = questions.messages[-1].content
    assert 10 < shown(questions) < 100
    assert "for 140 hours" in statements and "for 41 hours" not in statements
    for request in (questions, insights):
        # What the prompt costs in the model's tokens, estimated as generously as the sizing.
        prompt = sum(len(m.content) for m in request.messages) / 4 * TOKENIZER_SLACK
        assert prompt + request.max_tokens <= 1024
