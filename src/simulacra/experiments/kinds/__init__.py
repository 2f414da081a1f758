"""The world kinds a scenario may name in `world.kind`, each bound to the minds it hosts."""

from __future__ import annotations

from simulacra.experiments.kinds.base import Binding, Cast, Services, agent_seed
from simulacra.experiments.kinds.commute import COMMUTE
from simulacra.experiments.kinds.elfarol import ELFAROL
from simulacra.experiments.kinds.embodied import EMBODIED
from simulacra.experiments.kinds.grid import GRID
from simulacra.experiments.kinds.town import TOWN
from simulacra.experiments.scenario import WORLD_CONFIGS, Scenario
from simulacra.report.per_world import register_world_report

# The one list of bindings: each names its world kind, and registers its report.
BINDINGS: dict[str, Binding] = {
    binding.name: binding for binding in (TOWN, GRID, COMMUTE, ELFAROL, EMBODIED)
}
if set(BINDINGS) != set(WORLD_CONFIGS):
    raise ImportError(
        "every world kind needs its settings in scenario.WorldConfig and a binding here: "
        f"settings for {sorted(WORLD_CONFIGS)}, bindings for {sorted(BINDINGS)}"
    )
for _binding in BINDINGS.values():
    register_world_report(_binding.name, _binding.report)


def binding_of(scenario: Scenario) -> Binding:
    return BINDINGS[scenario.world.kind]


__all__ = ["BINDINGS", "Binding", "Cast", "Services", "agent_seed", "binding_of"]
