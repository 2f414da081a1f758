"""The report's cost section: what the run spent against its budget, in dollars at its
model.price per purpose, per agent and per simulated hour, and `simulacra estimate`'s
prediction (estimate.json, where it was written) beside what the run spent."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

import yaml

from simulacra.llm.budget import Price
from simulacra.report.budget import BudgetLine, budget_lines, by_agent, by_purpose, total
from simulacra.report.replay_model import Replay
from simulacra.report.sections import links, no_link, number, section
from simulacra.report.tables import rows_table
from simulacra.runlog import Event

ESTIMATE = "estimate.json"  # `simulacra estimate --run RUN` writes it into the run


def read_cost(run: Path) -> dict[str, Any]:
    """What the section shows, from the run's files: its price (config.yaml), its budget,
    status and spend (run.json) and its estimate (estimate.json), each where present."""
    found: dict[str, Any] = {}
    try:
        config = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8")) or {}
        info = json.loads((run / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return found
    model = config.get("model") or {}
    found["price"] = model.get("price")
    found["budget"] = model.get("budget")
    found["status"] = info.get("status")
    found["stopped"] = info.get("error") if info.get("status") == "stopped: budget" else None
    found["spent"] = info.get("spent")
    try:
        found["estimate"] = json.loads((run / ESTIMATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found["estimate"] = None
    return found


def cost_section(replay: Replay, events: Sequence[Event], cost: Mapping[str, Any] | None) -> str:
    if not cost:
        return ""
    price = Price.model_validate(cost["price"]) if cost.get("price") else None
    parts = [_spent(cost, price)]
    purposes = budget_lines(events, by_purpose)
    if price is not None and purposes:
        parts.append("<h3>Cost per purpose</h3>")
        parts.append(rows_table(_rows((*purposes, total(purposes)), "purpose", price), no_link))
        parts.append("<h3>Cost per agent</h3>")
        agents = budget_lines(events, by_agent)
        parts.append(rows_table(_rows(agents, "agent", price), links(replay)))
    hours = budget_lines(events, _simulated_hour)
    if hours:
        parts.append("<h3>Per simulated hour</h3>")
        ordered = sorted(hours, key=lambda line: line.key)
        parts.append(rows_table(_rows(ordered, "simulated hour", price), no_link))
    if cost.get("estimate"):
        parts.append("<h3>The estimate beside the run</h3>")
        if cost["estimate"].get("at_most"):
            parts.append(
                "<p>At most: this world's episodes may end before the last tick, so the"
                " estimate is the cost of a run to its last tick.</p>"
            )
        elif cost["estimate"].get("by_progress"):
            parts.append(
                "<p>This world's episodes may end before the last tick: the estimate follows"
                " the pilot's progress toward the goal, and its interval's top is the cost of a"
                " run to its last tick.</p>"
            )
        parts.append(rows_table(_beside(cost["estimate"], events, price), no_link))
    return section("Cost and budget", "".join(parts), "cost")


def _spent(cost: Mapping[str, Any], price: Price | None) -> str:
    said = []
    if price is None:
        said.append("No model.price was given: tokens are counted, not priced.")
    else:
        cached = (
            "at the input rate"
            if price.cached_input is None
            else f"at ${price.cached_input:g} per million"
        )
        said.append(
            f"Priced at ${price.input:g} per million input tokens (cached input tokens "
            f"{cached}) and ${price.output:g} per million output tokens."
        )
    budget = {k: v for k, v in (cost.get("budget") or {}).items() if v is not None}
    spent = cost.get("spent") or {}
    if budget:
        limits = ", ".join(f"{k} {v:,}" for k, v in budget.items())
        used = ", ".join(f"{k} {spent.get(k):,}" for k in budget if spent.get(k) is not None)
        said.append(f"Budget: {limits}; spent: {used or 'nothing recorded'}.")
    if cost.get("stopped"):
        said.append(f"The run stopped: budget ({cost['stopped']}) at a tick's end.")
    return "".join(f"<p>{escape(line)}</p>" for line in said)


def _rows(lines: Sequence[BudgetLine], key: str, price: Price | None) -> list[dict[str, Any]]:
    rows = []
    for line in lines:
        row: dict[str, Any] = {
            key: line.key,
            "calls": line.calls,
            "prompt tokens": line.prompt_tokens,
            "completion tokens": line.completion_tokens,
        }
        if price is not None:
            dollars = price.cost(
                line.prompt_tokens, line.cached_prompt_tokens, line.completion_tokens
            )
            row["dollars"] = f"{dollars:.4f}"
        rows.append(row)
    return rows


def _beside(
    estimate: Mapping[str, Any], events: Sequence[Event], price: Price | None
) -> list[dict[str, Any]]:
    spent = total(budget_lines(events, by_purpose))
    actual: dict[str, float] = {
        "calls": spent.calls,
        "prompt_tokens": spent.prompt_tokens,
        "completion_tokens": spent.completion_tokens,
        "tokens": spent.tokens,
    }
    if price is not None:
        actual["dollars"] = price.cost(
            spent.prompt_tokens, spent.cached_prompt_tokens, spent.completion_tokens
        )
    rows = []
    for name, value in actual.items():
        figure = estimate.get(name)
        if not isinstance(figure, Mapping):
            continue
        low, high, guess = figure["low"], figure["high"], figure["value"]
        rows.append(
            {
                "measure": name.replace("_", " "),
                "estimate": _figure(guess),
                "95% interval": f"{_figure(low)} - {_figure(high)}",
                "actual": _figure(value),
                "error": f"{(guess - value) / value:+.1%}" if value else "",
                "inside": "yes" if low <= value <= high else "no",
            }
        )
    return rows


def spend_text(
    events: Sequence[Event], start: Mapping[str, Any], price: Mapping[str, Any] | None = None
) -> str:
    """`model: 120 calls, 40.1k tokens, $0.0123; ~300 calls, ~100.2k tokens, ~$0.0308 by the
    last tick at this pace`, for the viewer (live, the run is still going): what the log holds
    so far, projected to the clock's last tick from the last tick written; dollars where the
    run's config gives a `model.price`."""
    calls = [e for e in events if e.kind == "llm.call"]
    if not calls:
        return ""
    tokens = sum(
        number(e.data.get("prompt_tokens")) + number(e.data.get("completion_tokens")) for e in calls
    )
    dollars = None
    if price:
        spent = total(budget_lines(calls, by_purpose))
        dollars = Price.model_validate(price).cost(
            spent.prompt_tokens, spent.cached_prompt_tokens, spent.completion_tokens
        )
    said = f"model: {len(calls):,} calls, {tokens / 1000:.1f}k tokens"
    said += "" if dollars is None else f", ${dollars:.4f}"
    clock = start.get("clock")
    ticks = clock.get("ticks") if isinstance(clock, Mapping) else None
    steps = [e.data.get("step") for e in events if e.kind == "world"]
    step = max((s for s in steps if isinstance(s, int)), default=0)
    ended = any(e.kind == "run.end" for e in events)
    if isinstance(ticks, int) and 0 < step < ticks and not ended:
        scale = ticks / step
        said += f"; ~{len(calls) * scale:,.0f} calls, ~{tokens * scale / 1000:.1f}k tokens"
        said += "" if dollars is None else f", ~${dollars * scale:.4f}"
        said += " by the last tick at this pace"
    return said


def _figure(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.4g}"


def _simulated_hour(event: Event) -> str | None:
    return str(event.t)[:13].replace("T", " ") + ":00" if event.t else None
