"""The town: a map of places, areas and objects, roads with travel times, and its measures."""

from simulacra.worlds.town.config import AttendanceConfig, TownConfig
from simulacra.worlds.town.map import TownMap
from simulacra.worlds.town.metrics import attendance, conversations, rejected_actions
from simulacra.worlds.town.roads import RoadGraph, Route
from simulacra.worlds.town.world import TownWorld

__all__ = [
    "AttendanceConfig",
    "RoadGraph",
    "Route",
    "TownConfig",
    "TownMap",
    "TownWorld",
    "attendance",
    "conversations",
    "rejected_actions",
]
