"""Worlds agents live in, behind one protocol."""

from simulacra.worlds.base import Action, Observation, Outcome, World, WorldEvent

__all__ = ["Action", "Observation", "Outcome", "World", "WorldEvent"]
