"""The grid hazard world (SD-AgentFoundry-2D): places with capacities, fires with perception
radii, and local messages."""

from simulacra.worlds.grid.config import GridConfig, GridPerson
from simulacra.worlds.grid.fires import Fire
from simulacra.worlds.grid.layout import FireSighting, Layout, Place
from simulacra.worlds.grid.metrics import grid_metrics
from simulacra.worlds.grid.world import (
    GridWorld,
    Traits,
    build_world,
    layout_from_config,
    roster,
)

__all__ = [
    "Fire",
    "FireSighting",
    "GridConfig",
    "GridPerson",
    "GridWorld",
    "Layout",
    "Place",
    "Traits",
    "build_world",
    "grid_metrics",
    "layout_from_config",
    "roster",
]
