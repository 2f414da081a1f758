"""Diffusion names whom each aware agent first heard the news from: the speaker of the first
conversation turn before the interview, addressed to it, that states the fact."""

from __future__ import annotations

from datetime import datetime

from simulacra.experiments.facts import knows_by_words
from simulacra.experiments.measures import diffusion
from simulacra.runlog import Event

QUESTION = "Do you know of any party?"
WORDS = (("party",), ("cafe",))


def _talk(seq: int, t: str, a: str, b: str, *said: tuple[str, str]) -> Event:
    turns = [{"speaker": s, "text": text} for s, text in said]
    return Event(seq, t, 0.0, "conversation", None, {"participants": [a, b], "turns": turns})


def _asked(seq: int, t: str, agent: str, answer: str) -> Event:
    return Event(seq, t, 0.0, "interview", agent, {"question": QUESTION, "answer": answer})


def _aware(agent: str, answer: str, now: datetime) -> bool:
    return knows_by_words(answer, WORDS, agent)


def _told(text: str, speaker: str) -> bool:
    return knows_by_words(text, WORDS, speaker)


def test_the_first_teller_before_the_interview_is_named_and_a_later_one_is_not() -> None:
    # Marta knew before anyone told her: Priya telling her later makes no teller of Priya.
    events = [
        _talk(1, "2024-02-14T10:00", "sam", "lena", ("sam", "Nice weather."), ("lena", "Yes.")),
        _talk(2, "2024-02-14T11:00", "marta", "theo", ("marta", "A party at the cafe at 5!")),
        _talk(3, "2024-02-14T12:00", "priya", "theo", ("priya", "The party at the cafe!")),
        _asked(4, "2024-02-14T12:30", "theo", "Yes, the party at the cafe."),
        _asked(5, "2024-02-14T12:30", "lena", "No."),
        _asked(5, "2024-02-14T12:30", "marta", "My party at the cafe."),
        _talk(5, "2024-02-14T13:30", "priya", "marta", ("priya", "Your party at the cafe!")),
        _talk(6, "2024-02-14T13:00", "theo", "lena", ("theo", "Party at the cafe tonight.")),
        _asked(7, "2024-02-14T14:00", "lena", "The party at the cafe, Theo said."),
        _asked(8, "2024-02-14T14:00", "theo", "The party at the cafe."),
        _asked(9, "2024-02-14T14:00", "marta", "My party at the cafe."),
    ]
    rows = diffusion(events, QUESTION, _aware, _told)
    assert [(r["t"], r["agents"], r["heard_from"]) for r in rows] == [
        ("2024-02-14T12:30", ["theo", "marta"], {"theo": "marta"}),
        ("2024-02-14T14:00", ["lena", "theo", "marta"], {"lena": "theo", "theo": "marta"}),
    ]
