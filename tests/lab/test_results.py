"""The bench's results: per suite and condition, medians per task, dollars from a price table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from simulacra.lab.prices import PriceError, load_prices, price_for
from simulacra.lab.results import interaction, report_html, summary, write_results
from simulacra.llm.budget import Price


def _row(
    suite: str, condition: str, verified: bool, tokens: int, wall_s: float, **kw: Any
) -> dict[str, Any]:
    return {
        "suite": suite,
        "condition": condition,
        "task": kw.get("task", "t"),
        "tier": kw.get("tier", 1),
        "verified": verified,
        "self_reported": kw.get("self_reported", True),
        "accepted": verified,
        "calls": 3,
        "tokens": tokens,
        "cost_usd": kw.get("cost_usd"),
        "wall_s": wall_s,
        "agreement": 1.0,
    }


ROWS = [
    _row("v1", "full", True, 100, 1.0, cost_usd=0.01),
    _row("v1", "full", True, 300, 3.0, tier=2, cost_usd=0.03),
    _row("v1", "full", False, 900, 9.0, tier=2, cost_usd=0.09),
    _row("v1", "seed", True, 100, 1.0),
    _row("v1", "seed", False, 200, 2.0, tier=2),
    _row("v2", "full", False, 50, 0.5),
]


def test_the_summary_is_per_suite_and_condition_with_medians_per_task() -> None:
    table = summary(ROWS)
    assert set(table) == {"v1", "v2"} and set(table["v1"]) == {"full", "seed"}
    full = table["v1"]["full"]
    assert (
        full["verified"] == 2 and full["tasks"] == 3 and full["by_tier"] == {1: (1, 1), 2: (1, 2)}
    )
    assert full["median_tokens"] == 300 and full["median_wall_s"] == 3.0
    assert full["median_cost_usd"] == pytest.approx(0.03)
    assert table["v1"]["seed"]["median_cost_usd"] is None  # no price, no dollars
    assert full["false_success"] == 1


def test_the_interaction_contrast_needs_the_four_ablation_conditions() -> None:
    rows = [
        _row("v1", c, v, 1, 1.0, task=f"{c}{i}")
        for c, n in (("full", 3), ("procedural", 2), ("semantic", 2), ("framework", 1))
        for i, v in enumerate([True] * n)
    ]
    assert interaction(summary(rows)["v1"]) == 3 - 2 - 2 + 1
    assert interaction(summary(ROWS)["v1"]) is None


def test_the_report_escapes_names_and_labels_the_scripted_model(tmp_path: Path) -> None:
    rows = [_row("<v1>", "full", True, 1, 1.0)]
    html = report_html(rows, "scripted", "memory <b>", "seed <i>")
    assert "&lt;v1&gt;" in html and "memory &lt;b&gt;" in html and "seed &lt;i&gt;" in html
    assert "(scripted: a rule-following policy, not a language model)" in html
    write_results(tmp_path, ROWS, "openai:m", "memory")
    assert (tmp_path / "results.csv").read_text().splitlines()[0].startswith("suite,condition")


def test_a_price_table_gives_a_models_price_per_million_tokens(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("deepseek-chat: {input: 0.27, cached_input: 0.07, output: 1.10}\n")
    price = price_for(load_prices(path), "openai:deepseek-chat")
    assert price == Price(input=0.27, cached_input=0.07, output=1.10)  # the model.price
    assert price.cost(1_000_000, 400_000, 500_000) == pytest.approx(0.6 * 0.27 + 0.4 * 0.07 + 0.55)
    assert price_for(None, "scripted") is None


def test_a_price_table_that_lacks_the_model_or_is_malformed_says_so(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("other: {input: 1, output: 2}\n")
    with pytest.raises(PriceError, match="no price for openai:m; it prices other"):
        price_for(load_prices(path), "openai:m")
    path.write_text("m: {input: -1}\n")
    with pytest.raises(PriceError, match=r"m\.input: .*greater than or equal to 0.*m\.output"):
        load_prices(path)
    path.write_text("m: [unclosed\n")
    with pytest.raises(PriceError, match="not YAML"):
        load_prices(path)
