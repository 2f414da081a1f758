"""Diffusion names whom each aware agent first heard the news from: the speaker of the first
conversation turn before the interview, addressed to it, that states the fact; the fact's owner
has no teller. An answer counts only with the memories it rests on: what the agent heard."""

from __future__ import annotations

from datetime import datetime

from simulacra.core import InterviewAnswer
from simulacra.experiments.facts import knows_by_words
from simulacra.experiments.measures import diffusion
from simulacra.runlog import Event

QUESTION = "Do you know of any party?"
WORDS = (("party",), ("cafe",))


def _talk(seq: int, t: str, a: str, b: str, *said: tuple[str, str]) -> Event:
    turns = [{"speaker": s, "text": text} for s, text in said]
    return Event(seq, t, 0.0, "conversation", None, {"participants": [a, b], "turns": turns})


def _asked(seq: int, t: str, agent: str, answer: str, *ids: str) -> Event:
    data = {"question": QUESTION, "answer": answer, "memory_ids": list(ids)}
    return Event(seq, t, 0.0, "interview", agent, data)


def _kept(seq: int, t: str, agent: str, record: str, kind: str, text: str) -> Event:
    return Event(seq, t, 0.0, "memory.add", agent, {"id": record, "kind": kind, "text": text})


class _Aware:
    def __call__(self, agent: str, answer: InterviewAnswer, now: datetime) -> bool:
        if agent == "marta":  # the owner: aware from the start
            return True
        heard = any(knows_by_words(text, WORDS, agent) for text in answer.evidence)
        return heard and knows_by_words(answer.answer, WORDS, agent)

    def confirms(self, answer: InterviewAnswer) -> bool:
        return False  # these answers are open: they name no source


_aware = _Aware()


def _told(text: str, speaker: str) -> bool:
    return knows_by_words(text, WORDS, speaker)


HEARD_THEO = "Conversation with Marta: A party at the cafe at 5!"
HEARD_LENA = "Conversation with Theo: Party at the cafe tonight."


def test_the_first_teller_before_the_interview_is_named_and_a_later_one_is_not() -> None:
    # Marta knew before anyone told her: Priya telling her later makes no teller of Priya.
    events = [
        _talk(1, "2024-02-14T10:00", "sam", "lena", ("sam", "Nice weather."), ("lena", "Yes.")),
        _talk(2, "2024-02-14T11:00", "marta", "theo", ("marta", "A party at the cafe at 5!")),
        _kept(2, "2024-02-14T11:00", "theo", "t1", "dialogue", HEARD_THEO),
        _talk(3, "2024-02-14T12:00", "priya", "theo", ("priya", "The party at the cafe!")),
        _asked(4, "2024-02-14T12:30", "theo", "Yes, the party at the cafe.", "t1"),
        _asked(5, "2024-02-14T12:30", "lena", "No."),
        _asked(5, "2024-02-14T12:30", "marta", "My party at the cafe."),
        _talk(5, "2024-02-14T13:30", "priya", "marta", ("priya", "Your party at the cafe!")),
        _talk(6, "2024-02-14T13:00", "theo", "lena", ("theo", "Party at the cafe tonight.")),
        _kept(6, "2024-02-14T13:00", "lena", "l1", "dialogue", HEARD_LENA),
        _asked(7, "2024-02-14T14:00", "lena", "The party at the cafe, Theo said.", "l1"),
        _asked(8, "2024-02-14T14:00", "theo", "The party at the cafe.", "t1"),
        _asked(9, "2024-02-14T14:00", "marta", "My party at the cafe."),
    ]
    rows = diffusion(events, QUESTION, _aware, _told, owner="marta")
    assert [(r["t"], r["agents"], r["heard_from"]) for r in rows] == [
        ("2024-02-14T12:30", ["theo", "marta"], {"theo": "marta"}),
        ("2024-02-14T14:00", ["lena", "theo", "marta"], {"lena": "theo", "theo": "marta"}),
    ]


def test_the_owner_has_no_teller_even_when_told_before_her_first_interview() -> None:
    # Theo repeats the news back to Marta before she is first asked: she still heard it from
    # nobody, for it was hers.
    events = [
        _talk(1, "2024-02-14T09:00", "theo", "marta", ("theo", "Your party at the cafe!")),
        _asked(2, "2024-02-14T10:00", "marta", "yes"),
    ]
    rows = diffusion(events, QUESTION, _aware, _told, owner="marta")
    assert [(r["agents"], r["owner"], r["heard_from"]) for r in rows] == [(["marta"], "marta", {})]
    # Without an owner named, the same log gives her a teller: the case above is the owner's.
    assert diffusion(events, QUESTION, _aware, _told)[0]["heard_from"] == {"marta": "theo"}


def test_an_answer_with_the_words_but_no_memory_of_hearing_them_is_not_aware() -> None:
    # Sam names the party, but the memory his answer rests on is his own plan (he made it
    # up), and Priya's rests on nothing; Lena's rests on what she heard.
    events = [
        _kept(1, "2024-02-14T09:00", "sam", "s1", "plan", "Go to a party at the cafe."),
        _kept(2, "2024-02-14T09:30", "lena", "l1", "dialogue", HEARD_LENA),
        _asked(3, "2024-02-14T10:00", "sam", "The party at the cafe.", "s1"),
        _asked(4, "2024-02-14T10:00", "priya", "The party at the cafe."),
        _asked(5, "2024-02-14T10:00", "lena", "The party at the cafe.", "l1"),
    ]
    assert diffusion(events, QUESTION, _aware, _told)[0]["agents"] == ["lena"]
