"""Paired differences from a sweep's reference: each group minus the reference at the same
replicate (the same seed), with a Student-t interval over replicates."""

from __future__ import annotations

import pytest

from simulacra.experiments.paired import (
    check_reference,
    paired_differences,
    signature_columns,
)


def runs(variant: str, model: str, *values: float) -> list[dict[str, object]]:
    return [
        {"variant": variant, "model": model, "replicate": r, "summary": {"late": v}, "error": None}
        for r, v in enumerate(values, start=1)
    ]


def test_a_model_reference_compares_each_model_within_its_variant() -> None:
    done = [
        *runs("Full", "small", 30.0, 20.0, 25.0),
        *runs("Full", "large", 20.0, 16.0, 18.0),
        *runs("A1", "small", 40.0, 44.0, 42.0),
        *runs("A1", "large", 35.0, 37.0, 39.0),
    ]
    rows = paired_differences(done, "small", ["Full", "A1"])
    found = {(r["variant"], r["model"]): r for r in rows}
    assert set(found) == {("Full", "large"), ("A1", "large")}
    full = found["Full", "large"]
    assert full["against"] == {"variant": "Full", "model": "small"} and full["pairs"] == 3
    late = full["figures"]["late"]  # differences -10, -4, -7: mean -7, sd 3
    assert late["mean"] == pytest.approx(-7.0)
    assert late["high"] - late["mean"] == pytest.approx(4.303 * 3 / 3**0.5, abs=1e-3)
    assert found["A1", "large"]["figures"]["late"]["mean"] == pytest.approx(-5.0)


def test_a_variant_reference_pairs_only_the_replicates_both_finished() -> None:
    done = [*runs("logit", "m", 10.0, 12.0), *runs("Full", "m", 4.0, 5.0, 6.0)]
    done[1]["error"] = "failed"  # logit's replicate 2 did not finish
    [row] = paired_differences(done, "logit", ["logit", "Full"])
    assert (row["variant"], row["pairs"]) == ("Full", 1)
    late = row["figures"]["late"]
    assert (late["mean"], late["low"], late["high"]) == (-6.0, None, None)


def test_a_reference_must_name_one_variant_or_one_model() -> None:
    assert check_reference(None, ["A1"], ["m"]) == []
    assert check_reference("A1", ["A1"], ["m"]) == check_reference("m", ["A1"], ["m"]) == []
    [missing] = check_reference("B2", ["A1"], ["m"])
    assert missing.startswith('scenario.sweep.reference: "B2" is neither')
    [both] = check_reference("x", ["x"], ["x"])
    assert "names both a variant and a model" in both


def test_figures_are_grouped_by_the_signature_and_the_rest_kept() -> None:
    signature = {"Table 5": ("early", "late"), "model": ("calls_per_agent_tick",)}
    figures = ["calls_per_agent_tick", "late", "extra"]
    assert signature_columns(signature, figures) == [
        ("Table 5", ["late"]),
        ("model", ["calls_per_agent_tick"]),
        ("other", ["extra"]),
    ]
