"""A binding's first part: the minds a world offers and each scenario's resolved settings
for them (the running mind, its options, its ablation, its memory mode), and why its minds
cannot be interviewed where they cannot."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from simulacra.errors import unknown
from simulacra.experiments.explain import explained
from simulacra.experiments.scenario import Scenario


class NoOptions(BaseModel):
    """A mind with no settings of its own."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class MindSettings:
    """The class attributes a binding declares of its minds, and what they resolve to."""

    name: ClassVar[str]
    minds: ClassVar[tuple[str, ...]]  # the minds it offers; the first is the default
    # Minds that call no language model (classical baselines): they have no faculties an
    # ablation could switch off.
    baselines: ClassVar[tuple[str, ...]] = ()
    # Each mind's settings (`agents.options.<mind>`); a mind not listed takes none.
    options: ClassVar[dict[str, type[BaseModel]]] = {}
    ablations: ClassVar[tuple[str, ...]] = ()  # the first is the default (not for baselines)
    memory_modes: ClassVar[tuple[str, ...]] = ("stream",)  # the first is the default

    def mind(self, scenario: Scenario) -> str:
        return scenario.agents.mind or self.minds[0]

    def is_baseline(self, scenario: Scenario) -> bool:
        return self.mind(scenario) in self.baselines

    def models_used(self, scenario: Scenario) -> dict[str, str | None]:
        """run.json's `minds`: the mind the agents run and the model it calls (None for a
        baseline, which calls none)."""
        return {self.mind(scenario): None if self.is_baseline(scenario) else scenario.model.spec}

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
