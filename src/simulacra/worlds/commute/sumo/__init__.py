"""The commute city in Eclipse SUMO (the sumo extra: eclipse-sumo, libsumo, traci, sumolib)."""

from simulacra.worlds.commute.sumo.executor import SumoExecutor
from simulacra.worlds.commute.sumo.network import CorridorNet, build_network, sumo_binary
from simulacra.worlds.commute.sumo.outputs import PersonInfo, Stage, StopEvent

__all__ = [
    "CorridorNet",
    "PersonInfo",
    "Stage",
    "StopEvent",
    "SumoExecutor",
    "build_network",
    "sumo_binary",
]
