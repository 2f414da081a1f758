"""Sight's shortcut (only what lies within the cut-off distance is put into words) keeps
exactly the sightings of the plain rule: everything within the radius, sorted by distance
then text, the bandwidth first."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from simulacra.worlds.town.sight import Attention, SightConfig, Sighting

tiles = st.tuples(st.integers(0, 12), st.integers(0, 12))
# Few texts, so that equal distances with equal and unequal texts both happen.
seen = st.lists(
    st.tuples(tiles, st.sampled_from([None, "a", "b", "c"]), st.sampled_from("xyz")),
    max_size=40,
)


def plain_rule(sight: SightConfig, me: tuple[int, int], seen: list[Sighting]) -> list[Sighting]:
    near = [s for s in seen if max(abs(me[0] - s.tile[0]), abs(me[1] - s.tile[1])) <= sight.radius]
    near.sort(key=lambda s: ((s.tile[0] - me[0]) ** 2 + (s.tile[1] - me[1]) ** 2, s.text))
    return near[: sight.bandwidth]


@given(tiles, seen, st.integers(0, 6), st.integers(1, 5))
def test_the_nearest_are_those_of_the_plain_rule(
    me: tuple[int, int],
    things: list[tuple[tuple[int, int], str | None, str]],
    radius: int,
    bandwidth: int,
) -> None:
    sight = SightConfig(radius=radius, bandwidth=bandwidth)
    worded: list[str] = []

    def told(what: str) -> str:
        worded.append(what)
        return f"{what} is here"

    kept = Attention(sight).nearest((me,), [((t,), a, w) for t, a, w in things], told)
    plain = [Sighting(tile, about, f"{what} is here") for tile, about, what in things]
    assert kept == plain_rule(sight, me, plain)
    within = [t for t, _, _ in things if max(abs(me[0] - t[0]), abs(me[1] - t[1])) <= radius]
    if len(within) > bandwidth:  # what lies beyond the cut-off is never put into words
        cut = sorted((t[0] - me[0]) ** 2 + (t[1] - me[1]) ** 2 for t in within)[bandwidth - 1]
        assert len(worded) == sum((t[0] - me[0]) ** 2 + (t[1] - me[1]) ** 2 <= cut for t in within)
