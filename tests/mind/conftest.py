"""Small, explicit fixtures for the mind: two personas of the source's town, the scripted model,
the hashing embedder, and a real event log in a temporary folder."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path

import pytest

from simulacra.embed import HashingEmbedder
from simulacra.llm import ScriptedModel, load_model
from simulacra.memory import MemoryStream
from simulacra.mind import Ablation
from simulacra.mind.town import Agent, Persona
from simulacra.runlog import EventWriter

PLACES = ("Isabella's apartment", "Klaus's apartment", "Hobbs Cafe", "Oak Hill College", "Park")
MONDAY = datetime(2023, 2, 13, 0, 0)

ISABELLA = Persona(
    id="isabella",
    name="Isabella Rodriguez",
    age=34,
    traits=["friendly", "outgoing", "hospitable"],
    background="Isabella runs Hobbs Cafe and loves to make people feel welcome.",
    lifestyle="Isabella goes to bed around 11pm and wakes up around 6am.",
    relationships={"klaus": "a regular at the cafe"},
    currently="Isabella is planning a Valentine's Day party at Hobbs Cafe on February 14, 17:00.",
    home="Isabella's apartment",
)
KLAUS = Persona(
    id="klaus",
    name="Klaus Mueller",
    age=20,
    traits=["kind", "curious", "studious"],
    background="Klaus studies sociology at Oak Hill College and writes a paper on gentrification.",
    lifestyle="Klaus goes to bed around 11pm and wakes up around 7am.",
    relationships={"Isabella Rodriguez": "owns the cafe where he studies"},
    home="Klaus's apartment",
)

MakeAgent = Callable[..., Agent]


@pytest.fixture
def model() -> ScriptedModel:
    scripted = load_model("scripted")
    assert isinstance(scripted, ScriptedModel)
    return scripted


@pytest.fixture
def events(tmp_path: Path) -> Iterator[EventWriter]:
    writer = EventWriter(tmp_path / "events.jsonl")
    yield writer
    writer.close()


@pytest.fixture
def make_agent(model: ScriptedModel, events: EventWriter) -> MakeAgent:
    def make(
        persona: Persona = ISABELLA, ablation: Ablation = Ablation.FULL, seed: int = 7
    ) -> Agent:
        memory = MemoryStream(persona.id, HashingEmbedder(), model=model, sink=events)
        return Agent(
            persona, memory, model, ablation=ablation, places=PLACES, sink=events, seed=seed
        )

    return make


def calls(model: ScriptedModel, prefix: str = "") -> int:
    """Model calls so far whose purpose starts with `prefix` (all of them by default)."""
    return sum(t.calls for p, t in model.ledger.by_purpose.items() if p.startswith(prefix))


def day_plan(*blocks: tuple[str, str, str]) -> dict[str, list[dict[str, str]]]:
    """A scripted daily plan: (start, place, activity) triples."""
    return {"blocks": [{"start": s, "place": p, "activity": a} for s, p, a in blocks]}


ISABELLA_DAY = day_plan(
    ("00:00", "Isabella's apartment", "sleeping"),
    ("06:00", "Isabella's apartment", "waking up and having breakfast"),
    ("07:00", "Hobbs Cafe", "opening and running the cafe"),
    ("12:00", "Hobbs Cafe", "having lunch at the counter"),
    ("13:00", "Hobbs Cafe", "serving customers"),
    ("17:00", "Hobbs Cafe", "decorating the cafe for the party"),
    ("20:00", "Isabella's apartment", "relaxing at home"),
    ("23:00", "Isabella's apartment", "sleeping"),
)
