"""Consolidation: a page revision keeps the evidence of the versions before it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from simulacra.embed import HashingEmbedder
from simulacra.lab.agent import Episode, LearningAgent
from simulacra.lab.config import CONDITIONS, LabConfig
from simulacra.lab.consolidate import consolidate
from simulacra.lab.library import SEED, Library
from simulacra.lab.prompts import Consolidation, MemoryAction, PageDraft
from simulacra.lab.tasks import Category, Task
from simulacra.llm import Request, ScriptedModel, load_model


class _Sink:
    def __init__(self) -> None:
        self.events: list[object] = []

    def emit(self, payload: object, **_: object) -> None:
        self.events.append(payload)


def _revise(request: Request) -> Consolidation:
    page = PageDraft(
        name="sumo-output-files",
        title="SUMO output files",
        summary="What tripinfo, statistics and summary hold; revised from an episode.",
        supersedes=["teleports-and-insertion"],
    )
    return Consolidation(action=MemoryAction.new_page, page=page, reason="a revision")


def test_a_page_revision_keeps_its_earlier_sources_and_names_what_it_supersedes(
    tmp_path: Path,
) -> None:
    library = Library.create(tmp_path / "library", SEED)
    before = library.page("sumo-output-files")
    assert before is not None
    model = load_model("scripted")
    assert isinstance(model, ScriptedModel)
    model.on("lab.consolidate", _revise)
    sink = _Sink()
    agent = LearningAgent(library, model, LabConfig(), sink, CONDITIONS["full"], HashingEmbedder())
    folder = library.root / "episodes" / "20260101-000000-revise"
    (folder / "attempt-1").mkdir(parents=True)
    task = Task(id="revise", tier=1, category=Category.analysis, text="t", required_outputs=["o"])
    episode = Episode(task, folder, folder / "attempt-1", accepted=True)
    changed = asyncio.run(consolidate(agent, library, episode, sink))
    after = library.page("sumo-output-files")
    assert changed == ["sumo-output-files"] and after is not None
    assert after.meta.sources == [*before.meta.sources, "episodes/20260101-000000-revise"]
    assert after.meta.supersedes == ["teleports-and-insertion"]
    assert library.history(1)[0][1] == "memory: revised page sumo-output-files"
