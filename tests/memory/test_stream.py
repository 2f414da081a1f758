"""The stream as storage: ids, importance provenance, persistence and reopening."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from simulacra.embed import HashingEmbedder, Vectors
from simulacra.llm import Completion, LanguageModel, Request, ScriptedModel
from simulacra.memory import ImportancePolicy, MemoryStream, rule_importance

NOW = datetime(2023, 2, 13, 9, 0)


async def test_ids_are_short_readable_and_numbered_per_agent() -> None:
    stream = MemoryStream("isabella", HashingEmbedder(), importance="rule")
    first = await stream.add("observation", "the cafe opens", NOW)
    rest = await stream.add_many("observation", ["a customer arrives", "coffee brews"], NOW)
    assert [first.id, *(r.id for r in rest)] == [
        "isabella-00001",
        "isabella-00002",
        "isabella-00003",
    ]
    assert len(stream) == 3 and stream.get("isabella-00002").text == "a customer arrives"


class LateForFirsts:
    """A model whose answers about "first ..." come back last, as a busy server's may."""

    def __init__(self, inner: LanguageModel) -> None:
        self.inner = inner
        self.name = inner.name

    async def complete(self, request: Request) -> Completion:
        await asyncio.sleep(0.05 if "Memory: first" in request.messages[-1].content else 0)
        return await self.inner.complete(request)


async def test_concurrent_adds_are_numbered_in_call_order_not_answer_order() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), model=LateForFirsts(ScriptedModel()))
    first, second = await asyncio.gather(
        stream.add("observation", "first thing", NOW),
        stream.add("observation", "second thing", NOW),
    )
    assert (first.id, second.id) == ("ada-00001", "ada-00002")
    assert [r.text for r in stream.recent(2)] == ["first thing", "second thing"]


async def test_recent_statements_are_the_latest_valid_records_text_and_importance() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance="rule")
    written = await stream.add_many("observation", ["a", "b", "c", "d"], NOW, [1, 2, 3, 4])
    stream.invalidate(written[2].id, "it did not happen")
    assert stream.recent_statements(2) == [("b", 2.0), ("d", 4.0)]
    assert stream.recent_statements(10) == [(r.text, r.importance) for r in stream.recent(10)]
    assert stream.recent_statements(0) == []


async def test_importance_records_who_rated_it() -> None:
    model = ScriptedModel()
    model.on("memory.importance", lambda _: {"rating": 7})
    rated = MemoryStream("ada", HashingEmbedder(), model=model)
    assert (await rated.add("observation", "x", NOW)).importance_source == "scripted"
    assert (await rated.add("observation", "x", NOW)).importance == 7
    given = await rated.add("observation", "x", NOW, importance=3)
    assert (given.importance, given.importance_source) == (3, "given")
    ruled = MemoryStream("ada", HashingEmbedder(), model=model, importance="rule")
    record = await ruled.add("observation", "Maria was invited to a party", NOW)
    assert record.importance_source == "rule"
    assert record.importance == rule_importance("Maria was invited to a party") > 2
    fixed = MemoryStream("ada", HashingEmbedder(), importance=ImportancePolicy.parse(4))
    assert (await fixed.add("observation", "x", NOW)).importance_source == "fixed"


async def test_a_failing_model_falls_back_to_the_keyword_rule() -> None:
    model = ScriptedModel()
    model.on("memory.importance", lambda _: "not a rating at all")
    stream = MemoryStream("ada", HashingEmbedder(), model=model)
    record = await stream.add("observation", "the kettle is idle", NOW)
    assert (record.importance, record.importance_source) == (1, "rule")


def test_importance_settings_are_checked_with_a_hint() -> None:
    with pytest.raises(ValueError, match='"model", "rule" or a number'):
        ImportancePolicy.parse("gut feeling")
    with pytest.raises(ValueError, match="0 to 10"):
        ImportancePolicy.parse(11)
    with pytest.raises(ValueError, match="needs a language model"):
        MemoryStream("ada", HashingEmbedder(), importance="model")


async def test_evidence_must_name_records_of_this_stream() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance=5)
    await stream.add("observation", "x", NOW)
    with pytest.raises(KeyError, match="ada-00001 to ada-00001"):
        await stream.add("reflection", "y", NOW, evidence=["ada-00009"])
    with pytest.raises(KeyError, match="no memory 'bob-00001'"):
        stream.get("bob-00001")


async def test_the_matrix_grows_past_its_first_allocation() -> None:
    stream = MemoryStream("ada", HashingEmbedder(), importance=2)
    texts = [f"routine observation number {n}" for n in range(2_500)]
    await stream.add_many("observation", texts, NOW)
    await stream.add("observation", "the party is at five", NOW, importance=9)
    (best,) = stream.retrieve("party at five", NOW, k=1)
    assert best.record.id == "ada-02501" and len(stream) == 2_501


async def test_a_shared_database_reopens_each_agents_stream_as_it_was(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite"
    ada = MemoryStream("ada", HashingEmbedder(), db=db, importance=6)
    bob = MemoryStream("bob", HashingEmbedder(), db=db, importance=2)
    a1 = await ada.add("observation", "Ada paints the fence", NOW, meta={"place": "home"})
    a2 = await ada.add("reflection", "Ada likes painting", NOW, evidence=[a1.id])
    await bob.add("observation", "Bob reads", NOW)
    later = NOW + timedelta(hours=5)
    ada.retrieve("paints fence", later, k=1)
    ada.close()
    bob.close()

    again = MemoryStream("ada", HashingEmbedder(), db=db, importance=6)
    assert len(again) == 2 and again.since_reflection == 6
    assert again.get(a1.id).last_accessed_at == later
    assert again.get(a1.id).meta == {"place": "home"}
    assert again.get(a2.id).evidence_ids == (a1.id,)
    assert again.invalidate(a1.id, "it was Bob") == [a2.id]
    third = await again.add("observation", "Ada cleans brushes", later)
    assert third.id == "ada-00003"
    again.close()
    reopened = MemoryStream("ada", HashingEmbedder(), db=db)
    assert [r.id for r in reopened.recent(5)] == ["ada-00003"]
    assert [r.text for r in MemoryStream("bob", HashingEmbedder(), db=db).recent(5)] == [
        "Bob reads"
    ]


async def test_embeddings_are_stored_as_codes_and_older_float32_files_still_load(
    tmp_path: Path,
) -> None:
    db = tmp_path / "memory.sqlite"
    embedder = HashingEmbedder(dim=64)
    texts = ["the bakery opens at seven", "Bob waters the roses", "the bus is late again"]
    stream = MemoryStream("ada", embedder, db=db, importance=3)
    await stream.add_many("observation", texts, NOW)
    expected = [r.record.id for r in stream.retrieve("roses", NOW, k=3)]
    stream.close()
    with sqlite3.connect(db) as con:
        sizes = {n for (n,) in con.execute("SELECT length(embedding) FROM memories")}
        assert sizes == {64 + 4}  # codes and a float32 scale
        # As a file written before codes were stored holds them: float32 vectors.
        con.executemany(
            "UPDATE memories SET embedding = ? WHERE text = ?",
            [(v.tobytes(), t) for t, v in zip(texts, embedder.embed(texts), strict=True)],
        )
    counted = CountingEmbedder(embedder)
    reopened = MemoryStream("ada", counted, db=db)
    assert [r.record.id for r in reopened.retrieve("roses", NOW, k=3)] == expected
    assert counted.texts == ["roses"]  # the stored vectors were read, not embedded again


class CountingEmbedder:
    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner, self.dim, self.name = inner, inner.dim, inner.name
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.texts += texts
        return self.inner.embed(texts)


async def test_reopening_with_another_embedder_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "memory.sqlite"
    MemoryStream("ada", HashingEmbedder(dim=256), db=db).close()
    with pytest.raises(ValueError, match="same embedder"):
        MemoryStream("ada", HashingEmbedder(dim=64), db=db)


async def test_a_model_rates_the_records_of_one_write_in_one_call_when_batches_are_on() -> None:
    asked: list[Request] = []
    model = ScriptedModel()
    model.on("memory.importance", lambda r: asked.append(r) or {"ratings": [3, 8, 1]})
    stream = MemoryStream("ada", HashingEmbedder(), model=model, rating_batch=8)
    texts = ["Ada eats toast", "Ada is offered the job", "Ada brushes her teeth"]
    records = await stream.add_many("observation", texts, NOW)
    assert len(asked) == 1 and [r.importance for r in records] == [3, 8, 1]
    assert {r.importance_source for r in records} == {"scripted"}


async def test_a_callers_rule_value_stands_in_under_the_rule_and_when_a_rating_fails() -> None:
    ruled = MemoryStream("ada", HashingEmbedder(), importance="rule")
    plan = await ruled.add("plan", "Ada's plan for today", NOW, rule=5.0)
    assert (plan.importance, plan.importance_source) == (5.0, "rule")
    failing = ScriptedModel()
    failing.on("memory.importance", lambda _: "no idea")
    rated = MemoryStream("ada", HashingEmbedder(), model=failing, rating_batch=2)
    plans = await rated.add_many("plan", ["day", "hour"], NOW, rule=[5.0, 3.0])
    assert [(r.importance, r.importance_source) for r in plans] == [(5.0, "rule"), (3.0, "rule")]
    assert failing.ledger.by_purpose["memory.importance"].fallbacks == 1  # one call for both


async def test_a_write_larger_than_a_batch_is_rated_in_several_calls() -> None:
    model = ScriptedModel()  # answers every batch with its fallback, the keyword rule
    alone = MemoryStream("ada", HashingEmbedder(), model=model)  # one record a call: the source
    await alone.add_many("observation", [f"sight {n}" for n in range(5)], NOW)
    assert model.ledger.by_purpose["memory.importance"].calls == 5
    batched = MemoryStream("bo", HashingEmbedder(), model=model, rating_batch=4)
    await batched.add_many("observation", [f"sight {n}" for n in range(5)], NOW)
    assert model.ledger.by_purpose["memory.importance"].calls == 5 + 2


async def test_a_list_of_ratings_that_only_counts_is_refused_and_the_rule_stands_in() -> None:
    model = ScriptedModel()
    model.on("memory.importance", lambda r: {"ratings": [1, 2, 3, 4]})  # what SmolLM2 writes
    stream = MemoryStream("ada", HashingEmbedder(), model=model, rating_batch=4)
    texts = ["Ada eats toast", "Ada wins the prize", "Ada sleeps", "Ada reads"]
    records = await stream.add_many("observation", texts, NOW)
    assert {r.importance_source for r in records} == {"rule"}
    assert model.ledger.by_purpose["memory.importance"].fallbacks == 1
