"""Retrieval selects: the retrieval event says how many records were candidates and how far
apart their recency lay; a caller marks accessed only what it shows; kinds can be left out."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from simulacra.embed import HashingEmbedder
from simulacra.llm import Request, ScriptedModel
from simulacra.memory import MemoryStream
from simulacra.runlog import EventWriter, read_events

NOW = datetime(2023, 2, 14, 12, 0)


async def hours_apart(stream: MemoryStream, count: int) -> None:
    """`count` observations, one an hour, the last at NOW."""
    for n in range(count):
        at = NOW - timedelta(hours=count - 1 - n)
        await stream.add("observation", f"Ada saw thing number {n}", at, 5)


async def test_the_event_counts_the_candidates_and_the_spread_of_raw_recency(
    tmp_path: Path,
) -> None:
    with EventWriter(tmp_path / "events.jsonl") as events:
        stream = MemoryStream("ada", HashingEmbedder(), importance="rule", sink=events)
        await hours_apart(stream, 11)  # written 10 hours apart, first to last
        stream.retrieve("thing", NOW, k=4, purpose="test")
        stream.retrieve("thing", NOW, k=20, purpose="test")
    first, second = read_events(tmp_path / "events.jsonl", {"retrieval"})
    assert first.data["candidates"] == 11 and len(first.data["results"]) == 4
    # 0.995 ** 0 less 0.995 ** 10: the newest against the oldest, as last accessed.
    assert abs(first.data["recency_spread"] - (1 - 0.995**10)) < 1e-6
    # The first retrieval touched its 4; the 7 others keep their older access times.
    assert second.data["candidates"] == 11 and len(second.data["results"]) == 11
    assert abs(second.data["recency_spread"] - (1 - 0.995**10)) < 1e-6


async def test_a_retrieval_read_as_is_then_marked_touches_only_what_was_shown() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule")
    await hours_apart(stream, 6)
    later = NOW + timedelta(hours=3)
    found = stream.retrieve("thing", later, k=6, record_access=False)
    shown = [r.record.id for r in found[:2]]
    stream.mark_accessed(shown, later)
    touched = {r.id for r in stream.recent(6) if r.last_accessed_at == later}
    assert touched == set(shown)
    # Never back in time: an earlier moment leaves the newer access as it is.
    stream.mark_accessed(shown, NOW)
    assert {r.id for r in stream.recent(6) if r.last_accessed_at == later} == set(shown)


async def test_a_stream_read_as_it_is_marks_nothing() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule", record_access=False)
    await hours_apart(stream, 3)
    before = [r.last_accessed_at for r in stream.recent(3)]
    stream.mark_accessed([r.id for r in stream.recent(3)], NOW + timedelta(hours=5))
    assert [r.last_accessed_at for r in stream.recent(3)] == before


async def test_excluded_kinds_are_not_candidates(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "events.jsonl") as events:
        stream = MemoryStream("ada", HashingEmbedder(), importance="rule", sink=events)
        await stream.add("plan", "Ada's plan: the party at the cafe at five", NOW, 5)
        await stream.add("observation", "Ada saw the party poster at the cafe", NOW, 5)
        found = stream.retrieve("party at the cafe", NOW, k=5, exclude=("plan",))
    assert [r.record.kind for r in found] == ["observation"]
    (event,) = read_events(tmp_path / "events.jsonl", {"retrieval"})
    assert event.data["candidates"] == 1


async def test_only_what_was_seen_and_heard_counts_towards_reflection() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule")
    await stream.add("plan", "Ada's plan for the day", NOW, 9)
    await stream.add("reflection", "Ada likes music", NOW, 9)
    await stream.add("thought", "Ada wants to host a party", NOW, 9)
    assert stream.since_reflection == 0
    await stream.add("observation", "Ada saw Bob at the cafe", NOW, 4)
    await stream.add("dialogue", "Conversation with Bob: Bob: hello", NOW, 3)
    assert stream.since_reflection == 7


async def test_what_was_seen_and_heard_raises_the_questions_and_any_kind_answers_them() -> None:
    asked: list[Request] = []

    def questions(request: Request) -> dict[str, list[str]]:
        asked.append(request)
        return {"questions": ["What does Ada plan for the party?"]}

    def insights(request: Request) -> dict[str, list[object]]:
        asked.append(request)
        return {"insights": []}

    model = ScriptedModel()
    model.on("reflect.questions", questions)
    model.on("reflect.insights", insights)
    stream = MemoryStream("ada", HashingEmbedder(), model=model, importance="rule")
    await stream.add("plan", "Ada's plan: bake for the party at five", NOW, 9)
    await stream.add("observation", "Ada saw Bob hang a party banner", NOW, 4)
    await stream.add("dialogue", "Conversation with Bob: Bob: the party is at five", NOW, 6)
    await stream.reflect(NOW)
    raised, answered = (request.messages[-1].content for request in asked)
    assert "banner" in raised and "the party is at five" in raised
    assert "bake" not in raised
    assert "bake" in answered  # the evidence: every kind
