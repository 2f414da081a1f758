"""What the run pipeline needs of a world kind: the binding of one world to the minds that
live in it.

A world knows its space and rules; a mind knows how to think. A `Binding` is the one place
that knows both: it checks a scenario's sections against each other, builds the world and a
mind per agent, arms the scripted model with the world's responders, and reads the world's
measures back from the log.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from simulacra.core import Mind, World, derived_seed
from simulacra.embed import Embedder, build_embedder
from simulacra.engine import EventRouter
from simulacra.errors import unknown
from simulacra.experiments.explain import explained
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway, ScriptedModel
from simulacra.memory import MemoryStream
from simulacra.memory.store import Store
from simulacra.report.per_world import WorldReport
from simulacra.runlog import Event

# What a mind may be asked beyond deciding: take a thought, hold a conversation, answer an
# interview, take a correction. A scenario that needs one its minds lack is refused.
Ability = str
THINK, TALK, INTERVIEW, CORRECT = "think", "talk", "interview", "correct"


def agent_seed(run_seed: int, agent_id: str) -> int:
    """Each agent's own seed, fixed by the run's seed and its id."""
    return derived_seed(run_seed, agent_id)


@dataclass
class Services:
    """What minds are built with: the run's model, its event router (None when a mind is
    built only to be interviewed), the memory database and one shared embedder."""

    model: Gateway
    router: EventRouter | None
    memory_db: Path | None
    scenario: Scenario
    workdir: Path | None = None  # the run's directory, for worlds that write files
    record_access: bool = True  # False: retrieval leaves the saved memories as they are
    _embedder: Embedder | None = None
    _store: Store | None = None
    streams: list[MemoryStream] = field(default_factory=list)

    def embedder(self) -> Embedder:
        # One embedder (and one text cache) for every agent: they observe the same sentences.
        if self._embedder is None:
            self._embedder = build_embedder(self.scenario.memory.embedder)
        return self._embedder

    def close(self) -> None:
        for stream in self.streams:
            stream.close()
        self.streams = []
        if self._store is not None:
            self._store.close()
            self._store = None

    def sink(self, agent: str) -> Any:
        return None if self.router is None else self.router.sink(agent)

    def stream(self, agent: str, scenario: Scenario, importance: Any = None) -> MemoryStream:
        """An agent's memory stream in the run's database, under the scenario's settings."""
        assert self.memory_db is not None, "a memory stream needs the run's memory database"
        if self._store is None:
            self._store = Store(self.memory_db, shared=True)
        stream = MemoryStream(
            agent,
            self.embedder(),
            self._store,
            model=self.model,
            importance=scenario.memory.importance if importance is None else importance,
            sink=self.sink(agent),
            seed=agent_seed(scenario.seed, agent),
            record_access=self.record_access,
            rating_batch=scenario.memory.rating_batch,
        )
        self.streams.append(stream)
        return stream

    def flush(self) -> None:
        """Commit every record written so far (a checkpoint then copies the database)."""
        for stream in self.streams:
            stream.flush(commit=False)
        if self._store is not None:
            self._store.commit()


@dataclass
class Cast:
    """A world and the minds of its agents, in roster order, and the services they were
    built with (whose memory streams are flushed before a checkpoint and closed at the end)."""

    world: World
    minds: dict[str, Mind]
    services: Services
    closers: list[Callable[[], None]] = field(default_factory=list)

    def on_close(self, close: Callable[[], None]) -> None:
        """Release something the world holds (a renderer) when the run ends."""
        self.closers.append(close)

    def flush(self) -> None:
        self.services.flush()

    def close(self) -> None:
        for close in self.closers:
            close()
        self.closers = []
        self.services.close()


class NoOptions(BaseModel):
    """A mind with no settings of its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Binding:
    """One world kind's binding; subclasses fill in the class attributes and methods."""

    name: ClassVar[str]
    minds: ClassVar[tuple[str, ...]]  # the minds it offers; the first is the default
    # Minds that call no language model (classical baselines): they have no faculties an
    # ablation could switch off.
    baselines: ClassVar[tuple[str, ...]] = ()
    # Each mind's settings (`agents.options.<mind>`); a mind not listed takes none.
    options: ClassVar[dict[str, type[BaseModel]]] = {}
    ablations: ClassVar[tuple[str, ...]] = ()  # the first is the default (not for baselines)
    memory_modes: ClassVar[tuple[str, ...]] = ("stream",)  # the first is the default
    changes: ClassVar[str] = ""  # what an `event` intervention's `change` holds; "" if none
    reads: ClassVar[frozenset[str]] = frozenset()  # the event kinds `measures` reads
    # The headline figures that characterise a run of this world, in named groups: what a
    # sweep shows side by side across models and minds.
    signature: ClassVar[dict[str, tuple[str, ...]]] = {}
    # Headline figures that are shares, with their full scale (1, or 100 for a percentage):
    # their intervals are Wilson's, which stay inside the scale.
    shares: ClassVar[dict[str, float]] = {}

    def report(self) -> WorldReport:
        """What this world adds to its runs' report, viewer, frames and sweep page: `REPORT` in
        the `report` module beside the binding (kinds/<world>/report.py), imported on first
        use so that running a world loads none of its plotting; none there, nothing added."""
        name = f"{type(self).__module__}.report"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as missing:
            if missing.name != name:
                raise
            return WorldReport(self.name)
        found = module.REPORT
        assert isinstance(found, WorldReport), f"{name}.REPORT is not a WorldReport"
        return found

    def roster(self, scenario: Scenario) -> list[str]:
        """The ids of the agents taking part, in order."""
        raise NotImplementedError

    def check(self, scenario: Scenario) -> list[str]:
        """Faults between sections, each "scenario.<path>: <what is wrong>"."""
        return []

    def abilities(self, scenario: Scenario) -> set[Ability]:
        raise NotImplementedError

    def trim(self, scenario: Scenario, last: datetime) -> tuple[Scenario, list[str]]:
        """The scenario without what its world section sets after the last tick (`last`),
        and each item left out, in words (experiments/trim.py does the other sections)."""
        return scenario, []

    def build(self, scenario: Scenario, services: Services) -> Cast:
        raise NotImplementedError

    def agents_info(self, cast: Cast) -> dict[str, dict[str, Any]]:
        """Each agent as the run's first event and the viewer present it."""
        found: dict[str, dict[str, Any]] = {}
        for agent, mind in cast.minds.items():
            persona = getattr(mind, "persona", None)
            found[agent] = (
                persona.model_dump(mode="json") if persona is not None else {"name": agent}
            )
        return found

    def script(self, model: ScriptedModel) -> None:
        """Register this world's responders on a scripted model."""

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        """The world's own sections of metrics.json, read back from the log."""
        return {}

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        """The few numbers a sweep compares: logged as `metric` events at the end of a run."""
        return {}

    def share_scales(self) -> dict[str, float]:
        """The world's shares and every run's: the fallback rate and the share aware."""
        return {**self.shares, "fallback_rate": 1.0, "aware_final": 1.0}

    def signature_groups(self) -> dict[str, tuple[str, ...]]:
        """The world's signature, and what every run adds: the model's fallbacks and calls."""
        return {**self.signature, "model": ("fallback_rate", "calls_per_agent_tick")}

    # --- resolved settings -----------------------------------------------------------------

    def mind(self, scenario: Scenario) -> str:
        return scenario.agents.mind or self.minds[0]

    def is_baseline(self, scenario: Scenario) -> bool:
        return self.mind(scenario) in self.baselines

    def mind_options(self, scenario: Scenario) -> Any:
        """The running mind's settings, validated (`check_options` has reported any fault)."""
        model = self.options.get(self.mind(scenario), NoOptions)
        return model.model_validate(scenario.agents.options.get(self.mind(scenario), {}))

    def check_options(self, scenario: Scenario) -> list[str]:
        """Faults in `agents.options`: a key that is no mind of this world, or settings the
        mind does not take."""
        problems = []
        for mind, raw in scenario.agents.options.items():
            where = f"scenario.agents.options.{mind}"
            if mind not in self.minds:
                problems.append(f"{where}: {unknown('mind', mind, list(self.minds))}")
                continue
            model = self.options.get(mind, NoOptions)
            try:
                model.model_validate(raw)
            except ValidationError as exc:
                allowed = ", ".join(model.model_fields) or "none"
                unknown_setting = f"unknown setting; the {mind} mind takes: {allowed}"
                for line in explained(exc.errors(), model, prefix=where):
                    problems.append(
                        line.replace("unknown field; allowed fields: " + allowed, unknown_setting)
                    )
        return problems

    def ablation(self, scenario: Scenario) -> str | None:
        if self.is_baseline(scenario):
            return None
        return scenario.ablation or (self.ablations[0] if self.ablations else None)

    def memory_mode(self, scenario: Scenario) -> str:
        return scenario.memory.mode or self.memory_modes[0]

    def why_no_interviews(self, scenario: Scenario) -> str:
        """Why this scenario's minds cannot be interviewed, and what to run instead."""
        stream = "stream" in self.memory_modes and self.memory_mode(scenario) != "stream"
        with_stream = " --set memory.mode=stream" if stream else ""
        if self.is_baseline(scenario):
            thinking = next(m for m in self.minds if m not in self.baselines)
            return (
                f"the {self.mind(scenario)} mind is a classical baseline that keeps no memory "
                f"stream; run the scenario with --set agents.mind={thinking}{with_stream} to "
                "interview its agents"
            )
        if stream:
            return (
                f"its agents keep no memory stream (memory.mode: {self.memory_mode(scenario)}); "
                f"run the scenario with{with_stream} to interview them"
            )
        return f"the {self.name} world's minds keep no memory stream"
