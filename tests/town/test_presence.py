from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from simulacra.worlds.town.presence import Roster

PLACES = ("cafe", "park", "home")


@dataclass(frozen=True)
class Where:
    place: str
    trip: str | None = None  # where it is bound, when on the way

    @property
    def bound(self) -> str | None:
        return self.trip


moves = st.lists(
    st.tuples(
        st.sampled_from("abcdef"),
        st.sampled_from(PLACES),
        st.sampled_from((None, *PLACES)),
        st.booleans(),
    ),
    max_size=30,
)


@given(moves)
def test_who_is_present_or_on_the_way_matches_a_scan_of_everyone_after_any_moves(
    steps: list[tuple[str, str, str | None, bool]],
) -> None:
    roster: Roster[Where] = Roster()
    for agent, place, bound, leaves in steps:
        roster.present("cafe")  # grouped between changes, as looks are between moves
        if leaves and agent in roster:
            del roster[agent]
        else:
            roster[agent] = Where(place, bound)
        for here in PLACES:
            scan = sorted((a, w) for a, w in roster.items() if w.place == here and w.trip is None)
            assert roster.present(here) == scan
            heading = [w for w in roster.values() if w.trip == here]
            assert sorted(roster.heading(here), key=repr) == sorted(heading, key=repr)
