"""Reading a stream as it stood: retrieval that leaves access times alone, and a database put
back to an earlier time (what an evaluation at a chosen time answers from)."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from simulacra.embed import HashingEmbedder
from simulacra.memory import MemoryStream
from simulacra.memory.store import Store

NINE = datetime(2024, 2, 13, 9, 0)


async def _day(db: Path) -> MemoryStream:
    stream = MemoryStream("ada", HashingEmbedder(), db, importance=3.0)
    seen = await stream.add("observation", "Ada saw a poster for the party", NINE)
    await stream.add("observation", "Ada ate breakfast", NINE + timedelta(hours=1))
    await stream.add(
        "reflection", "Ada cares about parties", NINE + timedelta(hours=2), 5.0, evidence=[seen.id]
    )
    await stream.add("observation", "Ada met Ben at noon", NINE + timedelta(hours=3))
    return stream


async def test_a_stream_that_does_not_record_access_scores_the_same_twice(tmp_path: Path) -> None:
    stream = await _day(tmp_path / "m.sqlite")
    stream.close()
    reader = MemoryStream("ada", HashingEmbedder(), tmp_path / "m.sqlite", record_access=False)
    later = NINE + timedelta(hours=30)
    first = reader.retrieve("the party", later, k=2)
    second = reader.retrieve("the party", later, k=2)
    assert [(r.record.id, r.total) for r in first] == [(r.record.id, r.total) for r in second]
    assert all(r.record.last_accessed_at < later for r in second)
    reader.close()
    touching = MemoryStream("ada", HashingEmbedder(), tmp_path / "m.sqlite")
    touching.retrieve("the party", later, k=2)
    assert touching.retrieve("the party", later, k=1)[0].record.last_accessed_at == later


async def test_rewinding_drops_later_records_and_restores_validity_and_access(
    tmp_path: Path,
) -> None:
    stream = await _day(tmp_path / "m.sqlite")
    stream.retrieve("the party", NINE + timedelta(hours=4), k=4)
    assert stream.invalidate("ada-00001", "the poster was a prank", NINE + timedelta(hours=5)) == [
        "ada-00003"
    ]
    stream.close()
    store = Store(tmp_path / "m.sqlite")
    at = NINE + timedelta(hours=2, minutes=30)
    accessed = {"ada-00001": NINE + timedelta(hours=2)}  # a retrieval at 11:00 touched it
    assert store.rewind(at, accessed, revalidate={"ada-00001", "ada-00003"}) == 1
    store.close()
    back = MemoryStream("ada", HashingEmbedder(), tmp_path / "m.sqlite", record_access=False)
    assert len(back) == 3
    records = {r.id: r for r in back.recent(10)}
    assert set(records) == {"ada-00001", "ada-00002", "ada-00003"}  # all valid again
    assert records["ada-00001"].last_accessed_at == NINE + timedelta(hours=2)
    assert records["ada-00002"].last_accessed_at == NINE + timedelta(hours=1)  # its creation
