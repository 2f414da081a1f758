"""Small hand-made runs of each world that follow docs/events.md, written with the real
EventWriter: the town here, the grid and the commute in worlds.py."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from simulacra.runlog import EventWriter, RunDir
from simulacra.runlog.events import PAYLOADS

SCRIPT_PAYLOAD = "<script>window.__pwned=1</script>"
IMG_PAYLOAD = '<img src=x onerror="window.__pwned=1">'
START = datetime(2024, 2, 13, 8, 0)
TICK = timedelta(minutes=10)

PLACES = [
    {"name": "Lin house", "kind": "home", "x": 0, "y": 0, "w": 22, "h": 16, "areas": ["kitchen"]},
    {"name": "Diaz house", "kind": "home", "x": 0, "y": 30, "w": 22, "h": 16, "areas": ["bedroom"]},
    {"name": "Moreno flat", "kind": "home", "x": 0, "y": 60, "w": 22, "h": 16, "areas": ["sofa"]},
    {"name": "Juniper Cafe", "kind": "cafe", "x": 45, "y": 0, "w": 30, "h": 22, "areas": ["bar"]},
    {"name": "Willow Park", "kind": "park", "x": 45, "y": 35, "w": 34, "h": 28, "areas": ["pond"]},
    {"name": "Town College", "kind": "college", "x": 95, "y": 0, "w": 26, "h": 40, "areas": []},
    {"name": "Corner Store", "kind": "store", "x": 95, "y": 55, "w": 26, "h": 20, "areas": []},
]
CENTRES = {p["name"]: (p["x"] + p["w"] / 2, p["y"] + p["h"] / 2) for p in PLACES}
PERSONAS = {
    "ada": {"name": "Ada Lin", "age": 34, "traits": "warm, organised", "home": "Lin house"},
    "bo": {"name": "Bo Diaz", "age": 21, "traits": "curious student", "home": "Diaz house"},
    "cy": {
        "name": "Cy Moreno",
        "age": 45,
        "traits": f"writes odd notes {SCRIPT_PAYLOAD} and {IMG_PAYLOAD}",
        "home": "Moreno flat",
    },
}
# Each agent's day: one (place, action) per step.
DAYS = {
    "ada": [("Lin house", "making breakfast")] * 2
    + [("Juniper Cafe", "opening the cafe")] * 3
    + [("Juniper Cafe", "serving coffee")] * 4
    + [("Willow Park", "handing out party flyers")] * 3,
    "bo": [("Diaz house", "sleeping")] * 3
    + [("Town College", "attending a lecture")] * 4
    + [("Juniper Cafe", "drinking coffee")] * 3
    + [("Willow Park", "reading")] * 2,
    "cy": [("Moreno flat", "writing")] * 4
    + [("Corner Store", "buying paint")] * 2
    + [("Willow Park", "painting the pond")] * 6,
}
STEPS = 12


def at(step: int) -> datetime:
    return START + step * TICK


class Log:
    """The real EventWriter, fed (kind, data) as events.jsonl holds them; data the schema has
    no field for is refused, so these fixtures keep to docs/events.md."""

    def __init__(self, writer: EventWriter) -> None:
        self.writer = writer

    def emit(
        self, kind: str, data: dict[str, Any], *, t: datetime, agent: str | None = None
    ) -> None:
        cls = PAYLOADS[kind]
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown and "extra" not in names:
            raise ValueError(f"{kind}: no such fields in the schema: {sorted(unknown)}")
        self.writer.emit(cls.from_data(data), t=t, agent=agent)


@contextmanager
def event_log(path: Path) -> Iterator[Log]:
    with EventWriter(path) as writer:
        yield Log(writer)


def write_town_run(path: Path, *, with_metrics: bool = True) -> Path:
    """Write events.jsonl, run.json and metrics.json for a 12-step, 3-agent morning."""
    path.mkdir(parents=True, exist_ok=True)
    RunDir(path).write_info(
        {
            "scenario": "town",
            "world": "town",
            "seed": 7,
            "model": "scripted",
            "started": 1_700_000_000.0,
            "ended": 1_700_000_012.5,
            "status": "completed",
        }
    )
    with event_log(path / "events.jsonl") as log:
        log.emit(
            "run",
            {
                "scenario": "town",
                "seed": 7,
                "model": "scripted",
                "world": {"kind": "town", "name": "town", "places": PLACES},
                "agents": PERSONAS,
                "clock": {"start": at(0).isoformat(), "tick_minutes": 10.0, "ticks": STEPS - 1},
            },
            t=at(0),
        )
        log.emit(
            "memory.add", _memory("ada-1", "I am opening the cafe today", 3), t=at(0), agent="ada"
        )
        log.emit(
            "memory.add",
            _memory("ada-2", "I want to hold a party at 17:00", 8),
            t=at(0),
            agent="ada",
        )
        log.emit("memory.add", _memory("bo-1", "I have a lecture at 9", 4), t=at(0), agent="bo")
        log.emit(
            "plan",
            {
                "level": "day",
                "items": [
                    {
                        "start": at(0).isoformat(),
                        "duration_min": 20,
                        "place": "Lin house",
                        "description": "breakfast",
                    },
                    {
                        "start": at(2).isoformat(),
                        "duration_min": 70,
                        "place": "Juniper Cafe",
                        "description": "run the cafe",
                    },
                    {
                        "start": at(9).isoformat(),
                        "duration_min": 30,
                        "place": "Willow Park",
                        "description": "invite people to the party",
                    },
                ],
            },
            t=at(0),
            agent="ada",
        )
        for step in range(STEPS):
            if step == 2:
                log.emit(
                    "retrieval",
                    {
                        "query": "what should I tell customers",
                        "k": 2,
                        "results": [
                            {
                                "id": "ada-2",
                                "recency": 0.9,
                                "importance": 1.0,
                                "relevance": 0.8,
                                "total": 2.7,
                            },
                            {
                                "id": "ada-1",
                                "recency": 1.0,
                                "importance": 0.0,
                                "relevance": 0.3,
                                "total": 1.3,
                            },
                        ],
                    },
                    t=at(step),
                    agent="ada",
                )
            if step == 3:
                log.emit(
                    "memory.add",
                    _memory("ada-3", "Bo Diaz ordered a latte", 2),
                    t=at(step),
                    agent="ada",
                )
                log.emit(
                    "memory.add",
                    _memory("cy-1", f"a note: {SCRIPT_PAYLOAD}", 2),
                    t=at(step),
                    agent="cy",
                )
            if step == 4:
                log.emit(
                    "reflection",
                    {
                        "questions": ["What matters to Ada today?"],
                        "insights": [
                            {
                                "id": "ada-r1",
                                "text": "Ada is planning a party",
                                "evidence_ids": ["ada-1", "ada-2"],
                            }
                        ],
                        "rejected": [],
                    },
                    t=at(step),
                    agent="ada",
                )
                log.emit(
                    "memory.add",
                    _memory(
                        "ada-r1", "Ada is planning a party", 7, "reflection", ["ada-1", "ada-2"]
                    ),
                    t=at(step),
                    agent="ada",
                )
            if step == 7:
                log.emit(
                    "message",
                    {
                        "to": ["bo"],
                        "text": "Party at Juniper Cafe at 17:00!",
                        "conversation": "c1",
                        "turn": 0,
                    },
                    t=at(step),
                    agent="ada",
                )
                log.emit(
                    "message",
                    {"to": ["ada"], "text": "I will be there.", "conversation": "c1", "turn": 1},
                    t=at(step),
                    agent="bo",
                )
                log.emit(
                    "conversation",
                    {
                        "id": "c1",
                        "participants": ["ada", "bo"],
                        "topic": "the party",
                        "turns": [
                            {"speaker": "ada", "text": "Party at Juniper Cafe at 17:00!"},
                            {"speaker": "bo", "text": "I will be there."},
                        ],
                        "ended_by": "decision",
                    },
                    t=at(step),
                )
                log.emit(
                    "memory.add",
                    _memory("bo-2", "Ada invited me to a party at 17:00", 6, "dialogue"),
                    t=at(step),
                    agent="bo",
                )
            if step == 8:
                log.emit(
                    "reflection",
                    {
                        "questions": ["Who knows about the party?"],
                        "insights": [
                            {
                                "id": "ada-r2",
                                "text": "Bo is coming to the party",
                                "evidence_ids": ["ada-r1", "ada-3", "ghost-9"],
                            }
                        ],
                        "rejected": [
                            {
                                "question": "Who knows about the party?",
                                "text": "Cy is coming too",
                                "cited": [9],
                                "reason": "cited a statement it was not shown",
                            }
                        ],
                    },
                    t=at(step),
                    agent="ada",
                )
                log.emit(
                    "memory.add",
                    _memory(
                        "ada-r2", "Bo is coming to the party", 6, "reflection", ["ada-r1", "ada-3"]
                    ),
                    t=at(step),
                    agent="ada",
                )
            if step == 10:
                log.emit(
                    "message",
                    {
                        "to": ["ada"],
                        "text": f"hello {IMG_PAYLOAD}",
                        "conversation": "c2",
                        "turn": 0,
                    },
                    t=at(step),
                    agent="cy",
                )
                log.emit(
                    "conversation",
                    {
                        "id": "c2",
                        "participants": ["cy", "ada"],
                        "topic": "paint",
                        "turns": [{"speaker": "cy", "text": f"hello {IMG_PAYLOAD}"}],
                        "ended_by": "turn_limit",
                    },
                    t=at(step),
                )
                log.emit(
                    "action",
                    {
                        "step": step,
                        "phase": "act",
                        "description": "use the oven",
                        "place": "Willow Park",
                        "ok": False,
                        "reason": "no oven here",
                    },
                    t=at(step),
                    agent="cy",
                )
            for agent in PERSONAS:
                log.emit("llm.call", _call("react.decide", agent), t=at(step), agent=agent)
            if step % 4 == 0:
                log.emit(
                    "llm.call", _call("plan.daily", "ada", cached=True), t=at(step), agent="ada"
                )
            log.emit("world", _world(step), t=at(step))
        log.emit(
            "interview",
            {
                "question": "Do you know of a party?",
                "answer": "Yes, at 17:00",
                "memory_ids": ["bo-2"],
                "purpose": "metric.diffusion",
            },
            t=at(STEPS - 1),
            agent="bo",
        )
        log.emit("run.end", {"status": "completed"}, t=at(STEPS - 1))
    if with_metrics:
        metrics = {
            "diffusion": [
                {
                    "t": at(0).isoformat(),
                    "aware": 1,
                    "agents": ["ada"],
                    "answers": {"ada": "yes", "bo": "no", "cy": "no"},
                },
                {
                    "t": at(6).isoformat(),
                    "aware": 1,
                    "agents": ["ada"],
                    "answers": {"ada": "yes", "bo": "no", "cy": "no"},
                },
                {
                    "t": at(11).isoformat(),
                    "aware": 2,
                    "agents": ["ada", "bo"],
                    "answers": {"ada": "yes", "bo": "yes", "cy": f"no {SCRIPT_PAYLOAD}"},
                    "owner": "ada",
                    "heard_from": {"bo": "ada"},
                    "claims": {
                        "bo": {"choice": "yes", "from_whom": "Ada Lin", "confirmed": True},
                        "cy": {"choice": "yes", "from_whom": "Bo Diaz", "confirmed": False},
                    },
                },
            ],
            "attendance": {
                "place": "Juniper Cafe",
                "time": "17:00",
                "invited": ["bo"],
                "attended": ["ada", "bo"],
            },
            "conversations": [
                {"pair": ["ada", "bo"], "count": 1},
                {"pair": ["ada", "cy"], "count": 1},
            ],
            "budget": {"calls": 39, "prompt_tokens": 3900, "completion_tokens": 780},
            "fallbacks": {"total": 2, "rate": 0.0513},
            "models": ["scripted"],
        }
        (path / "metrics.json").write_text(json.dumps(metrics), encoding="utf-8")
    return path


def _memory(mid, text, importance, kind="observation", evidence=()):
    return {
        "id": mid,
        "kind": kind,
        "text": text,
        "importance": importance,
        "importance_source": "model",
        "evidence_ids": list(evidence),
        "created_at": None,
    }


def _call(purpose, agent, cached=False):
    return {
        "purpose": purpose,
        "model": "scripted",
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "latency_s": 0.0 if cached else 0.01,
        "cached": cached,
        "attempts": 1,
        "fallback": purpose == "plan.daily",
        "error": None,
    }


def _world(step):
    agents = {}
    for agent, day in DAYS.items():
        place, action = day[step]
        x, y = CENTRES[place]
        agents[agent] = {"place": place, "area": "", "x": x, "y": y, "action": action}
    extras = {"fires": [{"x": 72, "y": 57, "r": 3, "label": "bonfire"}]} if step >= 9 else {}
    return {"step": step, "agents": agents, **extras}


@pytest.fixture
def town_run(tmp_path: Path) -> Path:
    return write_town_run(tmp_path / "run")


@pytest.fixture
def grid_run(tmp_path: Path) -> Path:
    from .worlds import write_grid_run

    return write_grid_run(tmp_path / "grid")


@pytest.fixture
def commute_run(tmp_path: Path) -> Path:
    from .worlds import write_commute_run

    return write_commute_run(tmp_path / "commute")


@pytest.fixture(scope="module")
def built_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run with its pages already built, shared by the tests that only read them."""
    from simulacra.report import build_outputs

    run = write_town_run(tmp_path_factory.mktemp("built") / "run")
    build_outputs(run)
    return run


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A fresh page (a browser.Page) per test."""
    from .browser import Page

    page = Page(browser)
    yield page
    page.page.close()
