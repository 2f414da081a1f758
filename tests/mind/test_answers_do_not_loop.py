"""Free text from the embedded model does not loop: with the town scenario's repetition
control (llama.cpp's DRY sampler), no sentence of an interview answer comes more than twice,
and no phrase of four words either (the model also loops without full stops: "Theo's plans:
Theo's plans: ...", or "12:12:12:...").

The memories are those two agents had saved by 16:00 of a real `make demo` day
(data/demo_memories.json), muddled plans and all. Without the control the 135M model answered
Theo's 16:00 question with one phrase five times ("Theo Brandt's plans for Wednesday February
14, 2024: Theo Brandt's plans for ...").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from simulacra.embed import default_embedder
from simulacra.experiments import load_scenario
from simulacra.llm import load_model
from simulacra.memory import MemoryStream
from simulacra.mind.town import Agent, Persona

SCENARIOS = Path(__file__).parents[2] / "scenarios"
MEMORIES = Path(__file__).with_name("data") / "demo_memories.json"
QUESTION = "Do you know of any party or event happening today? Where and when?"
ASKED = (("theo_brandt", 10), ("theo_brandt", 16), ("sam_whitaker", 16))


def sentences(text: str) -> list[str]:
    return [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def phrases(text: str, words: int = 4) -> list[tuple[str, ...]]:
    found = re.findall(r"[\w']+", text.lower())
    return [tuple(found[i : i + words]) for i in range(len(found) - words + 1)]


def most_repeated(items: list[str] | list[tuple[str, ...]]) -> int:
    return max(Counter(items).values(), default=0)


def test_sentences_split_at_full_stops() -> None:
    assert sentences("I paint. I paint! Do I? yes") == ["i paint.", "i paint!", "do i?", "yes"]


def test_a_loop_without_full_stops_shows_as_a_repeated_phrase() -> None:
    looping = "Theo Brandt's plans: Theo Brandt's plans: Theo Brandt's plans: Theo"
    assert most_repeated(sentences(looping)) == 1
    assert most_repeated(phrases(looping)) == 3
    assert most_repeated(phrases("12:12:12:12:12:12:12")) == 4


@pytest.mark.slow
async def test_no_sentence_or_phrase_of_an_interview_answer_repeats_more_than_twice() -> None:
    town = load_scenario(SCENARIOS / "town.yaml")
    assert town.model.repetition is not None and town.model.repetition.dry_multiplier > 0
    model = load_model("embedded", timeout_s=300, repetition=town.model.repetition)
    embedder = default_embedder(town.memory.embedder.kind)
    raw = yaml.safe_load((SCENARIOS / "town" / "personas.yaml").read_text())["personas"]
    personas = {p.id: p for p in (Persona.model_validate(r) for r in raw)}
    saved = json.loads(MEMORIES.read_text())["agents"]
    for agent_id, hour in ASKED:
        now = datetime(2024, 2, 14, hour, 0)
        memory = MemoryStream(agent_id, embedder, importance=3)
        for record in saved[agent_id]:
            made = datetime.fromisoformat(record["at"])
            if made <= now:
                await memory.add(
                    record["kind"], record["text"], made, record["importance"], meta=record["meta"]
                )
        answer = await Agent(personas[agent_id], memory, model).interview(QUESTION, now)
        assert not answer.fallback
        assert most_repeated(sentences(answer.answer)) <= 2, f"{agent_id}: {answer.answer!r}"
        assert most_repeated(phrases(answer.answer)) <= 2, f"{agent_id}: {answer.answer!r}"
