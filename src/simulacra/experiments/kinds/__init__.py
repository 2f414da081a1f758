"""The world kinds a scenario may name in `world.kind`, each bound to the minds it hosts."""

from __future__ import annotations

from simulacra.experiments.kinds.base import Cast, Services, WorldKind, agent_seed
from simulacra.experiments.kinds.commute import COMMUTE
from simulacra.experiments.kinds.elfarol import ELFAROL
from simulacra.experiments.kinds.embodied import EMBODIED
from simulacra.experiments.kinds.grid import GRID
from simulacra.experiments.kinds.town import TOWN
from simulacra.experiments.scenario import Scenario
from simulacra.report.world_report import register_world_report

KINDS: dict[str, WorldKind] = {kind.name: kind for kind in (TOWN, GRID, COMMUTE, ELFAROL, EMBODIED)}
for _kind in KINDS.values():
    register_world_report(_kind.name, _kind.report)


def kind_of(scenario: Scenario) -> WorldKind:
    return KINDS[scenario.world.kind]


__all__ = ["KINDS", "Cast", "Services", "WorldKind", "agent_seed", "kind_of"]
