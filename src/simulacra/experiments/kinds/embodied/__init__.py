"""The embodied world of SD-AgentFoundry-3D, bound to its minds: `caption` (the default:
any text model, the embedded one included), `vlm` (a served vision model), and the
baselines `seeker`, `oracle` and `random`, which call no model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel

from simulacra.core import Mind
from simulacra.experiments.kinds.base import Ability, Binding, Cast, Services, agent_seed
from simulacra.experiments.scenario import Scenario
from simulacra.llm import ScriptedModel
from simulacra.mind.embodied import (
    CaptionOptions,
    EmbodiedAgent,
    Oracle,
    RandomWalker,
    Seeker,
    VlmOptions,
    script_embodied,
)
from simulacra.runlog import Event
from simulacra.worlds.embodied import EmbodiedConfig, embodied_metrics, expected_steps

BASELINES = {"seeker": Seeker, "oracle": Oracle, "random": RandomWalker}
DEFAULT_HISTORY = 5  # the decisions a prompt's history shows; memory.recall overrides


def _embodied(scenario: Scenario) -> EmbodiedConfig:
    assert isinstance(scenario.world, EmbodiedConfig)
    return scenario.world


class EmbodiedBinding(Binding):
    name = "embodied"
    minds = ("caption", "vlm", "seeker", "oracle", "random")
    baselines = ("seeker", "oracle", "random")
    memory_modes = ("bounded",)  # the prompt's recent history: memory.recall decisions
    options: ClassVar[dict[str, type[BaseModel]]] = {"caption": CaptionOptions, "vlm": VlmOptions}
    reads = frozenset({"run", "world", "decision", "action", "llm.call"})
    shares: ClassVar[dict[str, float]] = {"success": 1.0, "spl": 1.0, "soft_spl": 1.0}
    finishes: ClassVar[bool] = True  # an episode ends where the agent stops at its target
    pilot_reads = frozenset({"run", "world"})

    def decisions(self, events: Sequence[Event], ticks: int) -> tuple[int, float] | None:
        """From each agent's pace toward its target in the pilot (embodied/metrics.py)."""
        return expected_steps(events, ticks)

    def roster(self, scenario: Scenario) -> list[str]:
        count = scenario.agents.count or 1
        return ["agent"] if count == 1 else [f"agent_{k + 1}" for k in range(count)]

    def abilities(self, scenario: Scenario) -> set[Ability]:
        return set()

    def why_no_interviews(self, scenario: Scenario) -> str:
        return (
            "an embodied agent keeps only its last decisions (memory.recall), no memory "
            "stream, so it cannot be interviewed yet; the minds that can are the town's, the "
            "commuter, and the grid's and El Farol's with --set memory.mode=stream"
        )

    def check(self, scenario: Scenario) -> list[str]:
        from simulacra.worlds.embodied.shipped import SHIPPED, tasks_of

        problems: list[str] = []
        config = _embodied(scenario)
        for field in ("personas", "profiles", "mix"):
            if getattr(scenario.agents, field):
                problems.append(f"scenario.agents.{field}: the embodied world takes no {field}")
        if config.scene not in SHIPPED and not config.scene.lower().endswith(
            (".usd", ".usda", ".usdc", ".usdz")
        ):
            problems.append(
                f"scenario.world.scene: {config.scene!r} is neither a shipped scene "
                f"({', '.join(SHIPPED)}) nor a USD file (.usd, .usda, .usdc, .usdz)"
            )
        elif config.scene in SHIPPED and config.task not in tasks_of(config):
            known = ", ".join(sorted(tasks_of(config)))
            problems.append(f"scenario.world.task: no task {config.task!r}; known: {known}")
        spec = scenario.model.spec
        if self.mind(scenario) == "vlm" and spec.startswith("embedded"):
            problems.append(
                "scenario.agents.mind: vlm sends images, and the embedded model reads text "
                "only; give a served vision model (model.spec=openai:<url>?model=<name>) or "
                "use mind caption"
            )
        if scenario.interventions:
            problems.append("scenario.interventions: the embodied world takes none")
        return problems

    def build(self, scenario: Scenario, services: Services) -> Cast:
        from simulacra.worlds.embodied.world import EmbodiedWorld

        config = _embodied(scenario)
        roster = self.roster(scenario)
        world = EmbodiedWorld(config, roster, workdir=services.workdir)
        mind = self.mind(scenario)
        history = DEFAULT_HISTORY if scenario.memory.recall is None else scenario.memory.recall
        options = self.mind_options(scenario)
        # A scenario's model.max_tokens stands for every request's own (the gateway's rule).
        budget = scenario.model.max_tokens
        if isinstance(options, CaptionOptions):
            budget = budget or options.max_tokens
        minds: dict[str, Mind] = {}
        for agent in roster:
            seed = agent_seed(scenario.seed, agent)
            if mind in BASELINES:
                minds[agent] = BASELINES[mind](agent, seed=seed, sink=services.sink(agent))
            else:
                minds[agent] = EmbodiedAgent(
                    agent,
                    services.model,
                    sight="vlm" if mind == "vlm" else "caption",
                    seed=seed,
                    history=history,
                    max_tokens=budget or CaptionOptions.default_tokens,
                    talks=config.talk_radius_m is not None,
                    sink=services.sink(agent),
                )
        cast = Cast(world, minds, services)
        cast.on_close(world.close)
        return cast

    def script(self, model: ScriptedModel) -> None:
        script_embodied(model)

    def measures(self, events: Sequence[Event], scenario: Scenario) -> dict[str, Any]:
        return {"embodied": embodied_metrics(events)}

    def headline(self, measures: dict[str, Any]) -> dict[str, float]:
        return {k: float(v) for k, v in measures["embodied"]["headline"].items()}


EMBODIED = EmbodiedBinding()
