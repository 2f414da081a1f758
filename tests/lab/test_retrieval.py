"""Metadata-first retrieval: BM25 and embeddings over metadata, at most ten candidates."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulacra.embed import HashingEmbedder
from simulacra.lab.retrieval import MAX_CANDIDATES, Entry, MetadataIndex, words

ENTRIES = [
    Entry("skill", "create-grid-network", "create grid network. Build a grid with netgenerate"),
    Entry("skill", "run-simulation", "run simulation. Run sumo and write tripinfo outputs"),
    Entry("page", "traffic-light-programs", "Traffic light programs. tlLogic phases and cycles"),
    Entry("page", "teleports", "Teleports and insertion. When SUMO teleports a vehicle"),
]


def _index(entries: list[Entry] = ENTRIES) -> MetadataIndex:
    return MetadataIndex(entries, HashingEmbedder(dim=64))


def test_the_entry_whose_words_the_task_uses_ranks_first() -> None:
    found = _index().search("build a grid network with netgenerate")
    assert found[0].entry.name == "create-grid-network"
    assert found[0].lexical == 1.0 and 0 <= found[0].total <= 1


def test_kinds_filter_skills_from_pages() -> None:
    found = _index().search("traffic light cycles and teleports", kinds=["page"])
    assert {c.entry.kind for c in found} == {"page"}
    assert _index().search("traffic light", kinds=[]) == []


def test_no_more_than_ten_candidates_even_when_more_are_asked() -> None:
    many = [Entry("skill", f"s{i}", f"grid network variant {i}") for i in range(40)]
    assert len(_index(many).search("grid network", k=50)) == MAX_CANDIDATES


def test_an_empty_index_or_no_match_offers_nothing() -> None:
    assert _index([]).search("anything") == []
    assert all(c.total > 0 for c in _index().search("zzz qqq"))


def test_words_are_lowercase_alphanumerics() -> None:
    assert words("Run SUMO's tripinfo-output, 2x!") == [
        "run",
        "sumo",
        "s",
        "tripinfo",
        "output",
        "2x",
    ]


@given(query=st.text(max_size=40), k=st.integers(min_value=-3, max_value=30))
def test_any_query_gives_at_most_k_ranked_candidates(query: str, k: int) -> None:
    found = _index().search(query, k=k)
    assert len(found) <= max(0, min(k, MAX_CANDIDATES))
    totals = [c.total for c in found]
    assert totals == sorted(totals, reverse=True)
