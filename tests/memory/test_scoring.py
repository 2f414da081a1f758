"""The retrieval arithmetic: the source's hand-scored example and the normalisation rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from simulacra.memory import Weights, approx_tokens, min_max, recency, score
from simulacra.memory.scoring import Span, fit_budget, ranking_key, top_k

# The seed's teaching table: memory -> (recency, importance, relevance, total).
SOURCE_TABLE = {
    "Promised today to help decorate at 17:00": (0.95, 0.85, 0.92, 2.72),
    "Drank a glass of water a minute ago": (1.00, 0.10, 0.05, 1.15),
    "Attended a birthday party last year": (0.10, 0.60, 0.70, 1.40),
    "Has an exam tomorrow": (0.45, 0.95, 0.15, 1.55),
}

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
components = arrays(np.float64, st.integers(1, 40), elements=finite)
weight = st.floats(min_value=0, max_value=100, allow_nan=False)


def test_score_reproduces_the_source_table_totals_and_order() -> None:
    totals = {text: score(r, i, v) for text, (r, i, v, _) in SOURCE_TABLE.items()}
    for text, (*_, expected) in SOURCE_TABLE.items():
        assert totals[text] == pytest.approx(expected)
    ranking = sorted(totals, key=lambda text: -totals[text])
    assert ranking == [
        "Promised today to help decorate at 17:00",
        "Has an exam tomorrow",
        "Attended a birthday party last year",
        "Drank a glass of water a minute ago",
    ]


@given(components)
def test_min_max_maps_candidates_onto_zero_to_one(values: np.ndarray) -> None:
    scaled = min_max(values)
    assert scaled.min() >= 0 and scaled.max() <= 1
    if np.ptp(values) > 1e-12:
        assert scaled[values.argmin()] == 0 and scaled[values.argmax()] == 1


@given(finite, st.integers(1, 30))
def test_equal_values_and_a_single_candidate_normalise_to_one(value: float, n: int) -> None:
    assert np.all(min_max(np.full(n, value)) == 1.0)


@given(components, st.floats(min_value=0.01, max_value=100), finite)
def test_min_max_ignores_the_scale_and_offset_of_a_component(
    values: np.ndarray, factor: float, offset: float
) -> None:
    if np.ptp(values) > 1e-6:
        assert np.allclose(min_max(values * factor + offset), min_max(values), atol=1e-6)


@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(*(arrays(np.float64, n, elements=finite) for _ in range(3)))
    ),
    weight,
    weight,
    weight,
)
def test_the_ranking_key_is_the_total_less_the_weight_of_flat_components(
    parts: tuple[np.ndarray, np.ndarray, np.ndarray], a: float, b: float, c: float
) -> None:
    w = Weights(a, b, c)
    spans = [Span.of(part) for part in parts]
    key = ranking_key(parts, spans, w)
    rec, imp, rel = (min_max(part) for part in parts)
    totals = score(rec, imp, rel, w)
    flat = sum(weight for span, weight in zip(spans, w, strict=True) if not span.width)
    assert np.allclose(key + flat, totals, atol=1e-9 * (1 + a + b + c))
    for span, part in zip(spans, parts, strict=True):
        assert np.array_equal(span.apply(part[::-1]), min_max(part)[::-1])


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), weight, weight, weight, weight)
def test_scores_scale_linearly_with_the_weights(
    r: float, i: float, v: float, a: float, b: float, c: float, factor: float
) -> None:
    w = Weights(a, b, c)
    scaled = Weights(a * factor, b * factor, c * factor)
    assert score(r, i, v, scaled) == pytest.approx(factor * score(r, i, v, w), abs=1e-9)
    assert 0 <= score(r, i, v) <= 3


def test_negative_weights_are_refused_with_a_hint() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        score(1.0, 1.0, 1.0, (1, -1, 1))


def test_recency_decays_by_the_factor_each_hour() -> None:
    hours = np.array([0.0, 1.0, 10.0, -5.0])
    assert recency(hours, 0.995) == pytest.approx([1.0, 0.995, 0.995**10, 1.0])


@given(
    arrays(np.float64, st.integers(1, 60), elements=st.integers(0, 5).map(float)),
    st.integers(1, 70),
)
def test_top_k_is_the_best_k_with_ties_to_the_older_record(totals: np.ndarray, k: int) -> None:
    best = top_k(totals, k)
    expected = sorted(range(totals.size), key=lambda i: (-totals[i], i))[:k]
    assert best.tolist() == expected


def test_token_budget_keeps_the_longest_prefix_that_fits() -> None:
    texts = ["a" * 40, "b" * 40, "c" * 4, "d" * 400]
    assert approx_tokens("a" * 41) == 11
    assert fit_budget(texts, 20) == 2
    assert fit_budget(texts, 21) == 3
    assert fit_budget(texts, 5) == 0
    assert fit_budget(texts, 10_000) == 4
