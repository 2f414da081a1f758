"""The grid hazard world (SD-AgentFoundry-2D): places with capacities, fires with perception
radii, local messages, and two model calls per agent per step."""

from simulacra.worlds.grid.config import GridScenario, ScenarioError, load_scenario, parse_scenario
from simulacra.worlds.grid.frames import assemble_video, draw_frame, render_frames
from simulacra.worlds.grid.metrics import grid_metrics
from simulacra.worlds.grid.prompts import MessageChoice, MoveChoice, action_prompt, message_prompt
from simulacra.worlds.grid.run import run_grid, run_hazard
from simulacra.worlds.grid.scripted import script_grid_agents
from simulacra.worlds.grid.sim import GridSimulation
from simulacra.worlds.grid.world import (
    Fire,
    FireSighting,
    GridWorld,
    Layout,
    Persona,
    Place,
    layout_from_scenario,
    world_from_scenario,
)

__all__ = [
    "Fire",
    "FireSighting",
    "GridScenario",
    "GridSimulation",
    "GridWorld",
    "Layout",
    "MessageChoice",
    "MoveChoice",
    "Persona",
    "Place",
    "ScenarioError",
    "action_prompt",
    "assemble_video",
    "draw_frame",
    "grid_metrics",
    "layout_from_scenario",
    "load_scenario",
    "message_prompt",
    "parse_scenario",
    "render_frames",
    "run_grid",
    "run_hazard",
    "script_grid_agents",
    "world_from_scenario",
]
