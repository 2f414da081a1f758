"""TrueSkill aggregation, agreement and density on fixed, hand-made inputs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulacra.experiments.evaluate.judging import Ranking
from simulacra.experiments.evaluate.ratings import agreement, people_rankings, rate
from simulacra.experiments.evaluate.social import density, directed_density, mutual

CONDITIONS = ("full", "no_reflection", "no_reflection_no_planning", "none")


def _rankings(orders: list[tuple[str, ...]]) -> list[Ranking]:
    return [Ranking(f"item{i}", "judge:0", order) for i, order in enumerate(orders)]


def test_trueskill_on_fixed_rankings_gives_the_known_order() -> None:
    # full wins 5 of 6, the ablations keep their order below it, "none" is always last.
    orders = [CONDITIONS] * 5 + [("no_reflection", "full", "no_reflection_no_planning", "none")]
    rated = rate(_rankings(orders), CONDITIONS, bootstrap=20, seed=1)
    by_mu = [r.condition for r in sorted(rated, key=lambda r: -r.mu)]
    assert by_mu == list(CONDITIONS)
    for r in rated:
        assert r.low is not None and r.high is not None and r.low <= r.high
        assert r.sigma < 25 / 3 and r.rankings == 6


def test_a_ranking_the_judge_failed_is_left_out() -> None:
    failed = Ranking("x", "judge:0", tuple(reversed(CONDITIONS)), fallback=True)
    alone = rate(_rankings([CONDITIONS]), CONDITIONS, 0, 1)
    with_failed = rate([*_rankings([CONDITIONS]), failed], CONDITIONS, 0, 1)
    assert alone == with_failed


def test_agreement_counts_pairs_ordered_alike() -> None:
    judge = _rankings([("a", "b", "c")])
    assert agreement([Ranking("item0", "p", ("a", "b", "c"))], judge)["pairwise_agreement"] == 1
    flipped = agreement([Ranking("item0", "p", ("c", "b", "a"))], judge)
    assert (flipped["pairwise_agreement"], flipped["kendall_tau"]) == (0, -1)
    one_swap = agreement([Ranking("item0", "p", ("b", "a", "c"))], judge)
    assert one_swap["pairs"] == 3 and one_swap["pairwise_agreement"] == round(2 / 3, 4)


def test_people_rankings_refuse_answers_of_another_page() -> None:
    key = {"k1": "item0\tfull", "k2": "item0\tnone", "k3": "item1\tfull"}
    (ok,) = people_rankings({"rater": "ann", "rankings": [{"order": ["k2", "k1"]}]}, key)
    assert (ok.item, ok.order, ok.rater) == ("item0", ("none", "full"), "person:ann")
    with pytest.raises(ValueError, match="not on this evaluation's rating page"):
        people_rankings({"rankings": [{"order": ["zz"]}]}, key)
    with pytest.raises(ValueError, match="each answer of one item once"):
        people_rankings({"rankings": [{"order": ["k1", "k3"]}]}, key)


def test_the_density_of_a_hand_made_acquaintance_set_is_exact() -> None:
    agents = ["ann", "ben", "cat", "dan"]
    knows = [("ann", "ben"), ("ben", "ann"), ("cat", "ann"), ("ann", "ann"), ("eve", "ann")]
    # One pair of six knows each other both ways (ann and ben); cat's one-sided claim, ann's
    # self-knowledge and a stranger do not make an edge.
    assert density(agents, knows) == 1 / 6
    assert mutual(knows) == [("ann", "ben")]
    assert directed_density(agents, knows) == 3 / 12
    assert density(agents, []) == 0.0
    assert density(agents, [(a, b) for a in agents for b in agents]) == 1.0


@given(st.sets(st.tuples(st.integers(0, 5), st.integers(0, 5))))
def test_density_is_the_share_of_pairs_who_both_say_they_know_each_other(
    pairs: set[tuple[int, int]],
) -> None:
    agents = [str(i) for i in range(6)]
    knows = [(str(a), str(b)) for a, b in pairs]
    both = {frozenset((a, b)) for a, b in pairs if a != b and (b, a) in pairs}
    assert density(agents, knows) == len(both) / 15
    assert directed_density(agents, knows) == len([p for p in pairs if p[0] != p[1]]) / 30
