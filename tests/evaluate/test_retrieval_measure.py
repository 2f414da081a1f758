"""The run's retrieval measure: the share of retrievals that returned every candidate (after
the first hour, interviews aside) and the spread of raw recency among the candidates."""

from __future__ import annotations

from datetime import datetime

from simulacra.experiments.measures import MemoryTally
from simulacra.runlog import Event

START = datetime(2024, 2, 13, 7, 0)


def _retrieved(t: str, purpose: str, results: int, candidates: int, spread: float) -> Event:
    data = {
        "query": "q",
        "k": 15,
        "purpose": purpose,
        "results": [{"id": f"a-{n}"} for n in range(results)],
        "candidates": candidates,
        "recency_spread": spread,
    }
    return Event(0, t, 0.0, "retrieval", "ada", data)


def test_whole_stream_retrievals_and_recency_spread_are_counted() -> None:
    tally = MemoryTally(START)
    for event in (
        _retrieved("2024-02-13T07:10:00", "plan.daily", 4, 4, 0.0),  # first hour: all of 4
        _retrieved("2024-02-13T09:00:00", "converse.turn", 15, 40, 0.01),
        _retrieved("2024-02-13T09:00:00", "converse.relation", 12, 12, 0.002),
        _retrieved("2024-02-13T10:00:00", "react.decide", 15, 60, 0.03),
        _retrieved("2024-02-13T10:00:00", "react.decide", 15, 61, 0.0),
        _retrieved("2024-02-13T11:00:00", "interview.answer", 9, 9, 0.0),  # not counted
    ):
        tally.add(event)
    found = tally.result(1)["retrieval"]
    assert found["retrievals"] == 5 and found["whole_stream"] == 2
    assert found["whole_stream_share"] == 0.4
    assert found["whole_stream_share_after_first_hour"] == 0.25  # 1 of the 4 after 08:00
    assert found["recency_spread_flat"] == 2 and found["recency_spread_narrow"] == 3
    assert found["recency_spread_median"] == 0.002
    assert found["by_purpose"]["react.decide"] == {
        "retrievals": 2,
        "whole_stream": 0,
        "mean_results": 15.0,
        "mean_candidates": 60.5,
    }
    assert "interview.answer" not in found["by_purpose"]


def test_a_log_without_candidate_counts_measures_nothing() -> None:
    tally = MemoryTally(START)
    old = _retrieved("2024-02-13T09:00:00", "converse.turn", 15, 40, 0.01)
    del old.data["candidates"]
    tally.add(old)
    assert tally.result(1)["retrieval"]["retrievals"] == 0
