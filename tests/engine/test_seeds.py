"""Seeds derived from names keep the values recorded runs were made with (before the seven
derivations became core.seeds' two): a change here would make every shipped run replay
differently, so it must be versioned, never silent."""

from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from simulacra.core import crc_seed, derived_seed
from simulacra.experiments.kinds import agent_seed
from simulacra.mind import call_seed
from simulacra.mind.commuter.profiles import person_seed


def test_each_seed_keeps_the_value_it_had() -> None:
    # Computed with the derivations as they stood in commit fddf1c3.
    assert agent_seed(7, "ada") == 437585643
    assert call_seed(12345, "plan.day", datetime(2024, 2, 14, 7, 0), "t1") == 2138888833
    assert person_seed(0, "student_001") == 634732715
    assert crc_seed(0, "student_001", "random_week", 2) == 1899763266  # the commuter's week
    assert derived_seed("q1", "judge") == 773751086  # the evaluation's judge


@given(st.lists(st.one_of(st.integers(), st.text()), max_size=4))
def test_a_seed_is_31_bits_and_fixed_by_its_parts(parts: list[object]) -> None:
    for derive in (derived_seed, crc_seed):
        seed = derive(*parts)
        assert 0 <= seed < 2**31
        assert derive(*parts) == seed
