"""Retrieval through the stream: the hand-scored example, invariants, filters and the log."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulacra.embed import HashingEmbedder
from simulacra.memory import MemoryStream, score
from simulacra.runlog import EventWriter, read_events

NOW = datetime(2023, 2, 14, 12, 0)
WORDS = ["party", "exam", "cafe", "coffee", "paint", "music", "library", "water", "plan", "tea"]

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join)
memories = st.lists(
    st.tuples(texts, st.integers(1, 10), st.floats(0, 2000)), min_size=1, max_size=25
)


def stream_of(rows: list[tuple[str, int, float]]) -> MemoryStream:
    """A stream holding `rows` of (text, importance, hours before NOW)."""
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule")

    async def fill() -> None:
        for text, importance, age in sorted(rows, key=lambda row: -row[2]):
            await stream.add("observation", text, NOW - timedelta(hours=age), importance)

    asyncio.run(fill())
    return stream


async def test_hand_scored_example_ranks_as_the_source_does() -> None:
    # Raw values chosen to echo the source's table: when it was written, how important,
    # and words shared with the question.
    stream = MemoryStream("klaus", HashingEmbedder(), importance="rule")
    rows = [
        ("Attended a birthday party last year", 6, timedelta(days=365)),
        ("Has an exam tomorrow", 9, timedelta(hours=159)),
        ("Promised today to help decorate for the party at 17:00", 8, timedelta(hours=10)),
        ("Drank a glass of water a minute ago", 1, timedelta(minutes=1)),
    ]
    for text, importance, age in rows:
        await stream.add("observation", text, NOW - age, importance)
    found = stream.retrieve("what do I need to do today at 17:00 for the party decorating", NOW)
    assert [r.record.text.split()[0] for r in found] == ["Promised", "Has", "Attended", "Drank"]
    first, *_ = found
    assert (first.recency, first.importance, first.relevance) == pytest.approx(
        (0.95, 0.875, 1.0), abs=0.01
    )
    for r in found:
        assert r.total == pytest.approx(score(r.recency, r.importance, r.relevance))


@settings(max_examples=40, deadline=None)
@given(memories, texts)
def test_scores_lie_in_zero_to_three_with_unit_weights(
    rows: list[tuple[str, int, float]], query: str
) -> None:
    for r in stream_of(rows).retrieve(query, NOW, k=len(rows)):
        for part in (r.recency, r.importance, r.relevance):
            assert 0 <= part <= 1
        assert 0 <= r.total <= 3 + 1e-9


@settings(max_examples=40, deadline=None)
@given(memories, texts)
def test_a_record_identical_to_the_query_has_relevance_one(
    rows: list[tuple[str, int, float]], query: str
) -> None:
    found = stream_of([*rows, (query, 5, 3.0)]).retrieve(query, NOW, k=len(rows) + 1)
    (echo,) = [r for r in found if r.record.text == query][-1:]
    assert echo.relevance == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(memories, texts, st.floats(0.1, 10), st.floats(0, 5), st.floats(0, 5), st.floats(0, 5))
def test_totals_scale_linearly_with_the_weights(
    rows: list[tuple[str, int, float]], query: str, factor: float, a: float, b: float, c: float
) -> None:
    plain = stream_of(rows).retrieve(query, NOW, k=len(rows), weights=(a, b, c))
    scaled = stream_of(rows).retrieve(
        query, NOW, k=len(rows), weights=(a * factor, b * factor, c * factor)
    )
    by_id = {r.record.id: r.total for r in plain}
    for r in scaled:
        assert r.total == pytest.approx(factor * by_id[r.record.id], abs=1e-9)


@given(texts, st.integers(1, 10), st.floats(0, 500))
@settings(max_examples=25, deadline=None)
def test_a_single_candidate_scores_the_sum_of_the_weights(
    text: str, importance: int, age: float
) -> None:
    (only,) = stream_of([(text, importance, age)]).retrieve("music", NOW, weights=(1, 2, 0.5))
    assert (only.recency, only.importance, only.relevance, only.total) == (1, 1, 1, 3.5)


async def test_identical_records_tie_and_the_older_comes_first() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance=4)
    records = await stream.add_many("observation", ["tea at the cafe"] * 3, NOW)
    found = stream.retrieve("tea", NOW)
    assert [r.record.id for r in found] == [r.id for r in records]
    assert {r.total for r in found} == {3.0}


async def test_retrieval_marks_records_accessed_now_and_prefers_them_later() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance=5)
    await stream.add("observation", "paint the fence", NOW)
    await stream.add("observation", "paint the wall", NOW)
    later = NOW + timedelta(hours=30)
    (hit,) = stream.retrieve("fence", later, k=1)
    assert hit.record.text == "paint the fence"
    assert hit.record.last_accessed_at == later
    assert stream.get(hit.record.id).last_accessed_at == later
    found = stream.retrieve("paint", later + timedelta(hours=1))
    assert [r.record.text for r in found] == ["paint the fence", "paint the wall"]
    assert found[0].recency == 1 and found[1].recency == 0


async def test_kinds_filter_and_token_budget_limit_the_results() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance=5)
    await stream.add("observation", "coffee at the cafe " * 10, NOW)
    await stream.add("plan", "coffee with Klaus at noon", NOW)
    await stream.add("plan", "coffee and cake", NOW)
    plans = stream.retrieve("coffee", NOW, kinds=["plan"])
    assert {r.record.kind for r in plans} == {"plan"}
    assert stream.retrieve("coffee", NOW, kinds=["dialogue"]) == []
    budgeted = stream.retrieve("coffee cafe", NOW, token_budget=10)
    assert [r.record.text for r in budgeted] == []  # the best one alone is ~48 tokens
    assert len(stream.retrieve("coffee", NOW, kinds=["plan"], token_budget=20)) == 2


async def test_retrieval_and_additions_are_logged_with_their_scores(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    with EventWriter(log) as events:
        stream = MemoryStream("ada", HashingEmbedder(), importance=3, sink=events)
        added = await stream.add("observation", "music at the library", NOW)
        found = stream.retrieve("music", NOW, k=5)
    add, retrieval = read_events(log)
    assert add.kind == "memory.add" and add.agent == "ada" and add.t == NOW.isoformat()
    assert add.data == {
        "id": added.id,
        "kind": "observation",
        "text": "music at the library",
        "importance": 3.0,
        "importance_source": "fixed",
        "evidence_ids": [],
        "created_at": NOW.isoformat(),
    }
    assert retrieval.kind == "retrieval"
    assert retrieval.data["query"] == "music" and retrieval.data["k"] == 5
    (result,) = retrieval.data["results"]
    assert result == {
        "id": added.id,
        "recency": found[0].recency,
        "importance": found[0].importance,
        "relevance": found[0].relevance,
        "total": found[0].total,
    }


@settings(max_examples=25, deadline=None)
@given(st.lists(texts, min_size=1, max_size=5), st.lists(texts, max_size=30), texts)
def test_a_kind_filter_scores_as_a_stream_of_that_kind_alone(
    plans: list[str], observations: list[str], query: str
) -> None:
    # Few plans among many observations, or many among few: both ways of reading the rows.
    mixed = MemoryStream("ada", HashingEmbedder(), importance="rule")
    alone = MemoryStream("ada", HashingEmbedder(), importance="rule")

    async def fill() -> None:
        await mixed.add_many("observation", observations, NOW - timedelta(hours=5))
        for hours, text in enumerate(plans):
            moment = NOW - timedelta(hours=hours)
            await mixed.add("plan", text, moment, importance=1 + hours)
            await alone.add("plan", text, moment, importance=1 + hours)

    asyncio.run(fill())
    filtered = mixed.retrieve(query, NOW, k=10, kinds=["plan"])
    expected = alone.retrieve(query, NOW, k=10)
    scores = [(r.record.text, r.recency, r.importance, r.relevance, r.total) for r in filtered]
    assert scores == [
        (r.record.text, r.recency, r.importance, r.relevance, r.total) for r in expected
    ]
