"""The commute's sections of a sweep page: the source's Table 5 beside the sweep's on-time
window and strike, and each group's modal split and taxi wait averaged over replicates."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from simulacra.experiments.kinds.commute.plots import modal_split_svg, taxi_wait_svg
from simulacra.report.sweep_page import svg_uri, sweep_section
from simulacra.worlds.commute import (
    TABLE5_COLUMNS,
    CityConfig,
    mean_modal_split,
    mean_taxi_wait,
    on_time_window,
    strike_days,
)

# The source's Table 5 (Qwen2.5-7B, 320 agents x 20 days, 80% taxi strike on days 11-15).
SOURCE_TABLE5 = {
    "A1": (58.95, 34.25, 2.50, 4.30, 95.70),
    "B1": (71.95, 23.35, 3.60, 1.30, 98.70),
    "Full": (81.05, 14.75, 2.40, 1.80, 98.20),
}


def commute_sweep_sections(out: Path, summary: Mapping[str, Any]) -> list[str]:
    city = CityConfig.model_validate(summary["config"]["world"]["city"])
    strikes = strike_days(city, int(summary["ticks"]))
    head = "<tr><th>variant</th>" + "".join(f"<th>{c}</th>" for c in TABLE5_COLUMNS) + "</tr>"
    source = "".join(
        f"<tr><td>{v}</td>" + "".join(f"<td>{x:.2f}</td>" for x in values) + "</tr>"
        for v, values in SOURCE_TABLE5.items()
    )
    reference = sweep_section(
        "The source's Table 5",
        "<p class='muted'>Qwen2.5-7B, 320 agents x 20 days, one run, on-time window not "
        f"stated. Ours: {escape(on_time_window(city))}; taxi strike on days "
        f"{escape(', '.join(map(str, strikes)) or 'none')} (variants may change it).</p>"
        f"<table>{head}{source}</table>",
    )
    sections = [reference]
    by_group: dict[str, list[Path]] = {}
    for run in summary["runs"]:
        if run.get("run"):
            by_group.setdefault(f"{run['variant']} ({run['model']})", []).append(out / run["run"])
    for group, paths in by_group.items():
        metrics = [json.loads((p / "metrics.json").read_text(encoding="utf-8")) for p in paths]
        label = f"{group}, mean of {len(metrics)} replicate{'s' if len(metrics) > 1 else ''}"
        split = mean_modal_split([m["modal_split"] for m in metrics])
        waits = mean_taxi_wait([m["taxi_wait"]["by_day"] for m in metrics])
        # Each group's own strike days: a variant may change or drop the strike.
        struck = sorted({int(d) for m in metrics for d in m["taxi_wait"]["strike_days"]})
        title = f"Modal split per profile ({label})"
        if not struck:
            title = f"Figure 6 of the source, no strike: modal split per profile ({label})"
        images = (
            (modal_split_svg(split, struck, title), "modal split"),
            (taxi_wait_svg(waits, struck, f"Mean taxi wait ({label})"), "taxi wait"),
        )
        body = "".join(
            f'<figure><img src="{svg_uri(svg)}" alt="{escape(alt)}"></figure>'
            for svg, alt in images
        )
        strike = "no strike: every taxi in service"
        if struck:
            rows = [r for m in metrics for r in m["taxi_wait"]["by_day"] if r["strike"]]
            fewest = min(int(r["taxis_in_service"]) for r in rows)
            strike = f"taxi strike on days {', '.join(map(str, struck))}, {fewest} taxis in service"
        sections.append(sweep_section(f"{group}: {strike}", body))
    return sections
