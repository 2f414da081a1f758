"""The town: a map of places, areas and objects, roads with travel times, and its measures."""

from simulacra.worlds.town.map import TownMap
from simulacra.worlds.town.metrics import attendance, conversations, diffusion, mentions_all
from simulacra.worlds.town.roads import RoadGraph, Route
from simulacra.worlds.town.world import TownWorld

__all__ = [
    "RoadGraph",
    "Route",
    "TownMap",
    "TownWorld",
    "attendance",
    "conversations",
    "diffusion",
    "mentions_all",
]
