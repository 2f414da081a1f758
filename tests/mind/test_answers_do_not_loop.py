"""Free text from the embedded model does not loop: with the town scenario's repetition
control (llama.cpp's DRY sampler), no sentence of an interview answer comes more than twice.

The memories are plan records of the kind a town day writes, repeated lines and all; without
the control, the 135M model answers two of these questions by repeating one sentence three
times or more ("I'm going to have a cake for tomorrow. I'm going to have a ...").
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
import yaml

from simulacra.embed import HashingEmbedder
from simulacra.experiments import load_scenario
from simulacra.llm import load_model
from simulacra.memory import MemoryStream
from simulacra.mind import Agent, Persona

SCENARIOS = Path(__file__).parents[2] / "scenarios"
NOW = datetime(2024, 2, 14, 16, 0)
PLANS = (
    "{name}'s plan for Wednesday February 14, 2024:\n- 07:00-08:00 waking up and getting ready "
    "at {home}\n- 08:00-12:00 working at Hobbs Cafe\n- 12:00-13:00 having lunch at Hobbs Cafe\n"
    "- 13:00-18:00 working at Hobbs Cafe\n- 18:00-22:00 having dinner and relaxing at home at "
    "{home}\n- 22:00-00:00 sleeping at {home}",
    "{name}'s hours for working:\n- 08:00-09:00 working at Hobbs Cafe\n- 09:00-10:00 working at "
    "Hobbs Cafe\n- 10:00-11:00 working at Hobbs Cafe",
    "{name}'s next steps for working:\n- 08:00-08:15 working at Hobbs Cafe\n- 08:15-08:30 working "
    "at Hobbs Cafe\n- 08:30-08:45 working at Hobbs Cafe\n- 08:45-09:00 working at Hobbs Cafe",
    "Marta Okafor is at Hobbs Cafe (counter): serving coffee",
)
QUESTIONS = (
    ("marta_okafor", "Tell me about your day."),
    ("sam_whitaker", "Do you know of any party or event happening today? Where and when?"),
    ("theo_brandt", "Tell me about your day."),
)


def sentences(text: str) -> list[str]:
    return [s.strip().lower() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def test_sentences_split_at_full_stops() -> None:
    assert sentences("I paint. I paint! Do I? yes") == ["i paint.", "i paint!", "do i?", "yes"]


@pytest.mark.slow
async def test_no_sentence_of_an_interview_answer_repeats_more_than_twice() -> None:
    town = load_scenario(SCENARIOS / "town.yaml")
    assert town.model.repetition is not None and town.model.repetition.dry_multiplier > 0
    model = load_model("embedded", timeout_s=300, repetition=town.model.repetition)
    raw = yaml.safe_load((SCENARIOS / "town" / "personas.yaml").read_text())["personas"]
    personas = {p.id: p for p in (Persona.model_validate(r) for r in raw)}
    for agent_id, question in QUESTIONS:
        persona = personas[agent_id]
        memory = MemoryStream(agent_id, HashingEmbedder(), importance=3)
        for hours, text in enumerate(PLANS):
            made = NOW - timedelta(hours=len(PLANS) - hours)
            await memory.add("plan", text.format(name=persona.name, home=persona.home), made)
        answer = await Agent(persona, memory, model).interview(question, NOW)
        assert not answer.fallback
        most = max(Counter(sentences(answer.answer)).values())
        assert most <= 2, f"{agent_id} loops: {answer.answer!r}"
