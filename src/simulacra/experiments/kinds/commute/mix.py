"""How many commuters of each profile: `agents.mix` gives each profile's share, and
`agents.count`, when given, the total, so a smaller run is one setting (`--set
agents.count=12` keeps the scenario's proportions)."""

from __future__ import annotations

from collections.abc import Mapping


def scale_mix(mix: Mapping[str, int], count: int) -> dict[str, int]:
    """`mix` scaled to `count` agents by the largest-remainder method: each profile gets the
    whole part of its exact share (count x its weight / the weights' sum), and the agents
    left over go one each to the largest fractions, ties to the profile named first. A
    profile left with none is dropped; a mix that adds up to `count` keeps its numbers."""
    total = sum(mix.values())
    exact = {name: count * weight / total for name, weight in mix.items()}
    given = {name: int(share) for name, share in exact.items()}
    left = count - sum(given.values())
    order = sorted(mix, key=lambda name: given[name] - exact[name])  # stable: ties by order
    for name in order[:left]:
        given[name] += 1
    return {name: n for name, n in given.items() if n}


def mix_form(profiles: list[str], count: int | None) -> str:
    """The form agents.mix takes, filled in for these profiles (and `count`, if given)."""
    shares = scale_mix(dict.fromkeys(profiles, 1), count or len(profiles))
    inner = ", ".join(f"{name}: {shares.get(name, 0)}" for name in profiles)
    return "{" + inner + "}"
