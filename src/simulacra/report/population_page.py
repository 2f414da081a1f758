"""A fitted population's report.html: the fit per margin (totals and SRMSE of the fitted
weights and of the persons drawn, met or not) and every cell (zone x margin x category:
target, fitted, drawn), the unmet cells marked. Every text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from simulacra.report.calibration_page import head_row, section, standalone_page

MET_WITHIN = 0.5  # persons: a cell fitted closer than this is met


def write_population_report(
    out: Path,
    margins: Sequence[Mapping[str, Any]],
    cells: Sequence[Mapping[str, Any]],
    persons: int,
) -> Path:
    """Write out/report.html from the fit's margins and cells (margins.csv, fit.csv)."""
    rows = "".join(
        f"<tr><td>{escape(str(m['margin']))}</td><td>{m['cells']}</td><td>{m['target']:g}</td>"
        f"<td>{m['fitted']:g}</td><td>{m['drawn']}</td><td>{m['srmse_fitted']:.4f}</td>"
        f"<td>{m['srmse_drawn']:.4f}</td><td>{m['largest_gap']:g}</td>"
        f"<td{'' if m['met'] else ' class=out'}>{'yes' if m['met'] else 'no'}</td></tr>"
        for m in margins
    )
    head = head_row(
        "margin",
        "cells",
        "target",
        "fitted",
        "drawn",
        "SRMSE fitted",
        "SRMSE drawn",
        "largest gap",
        "met",
    )
    said = (
        f"<p>{persons} persons drawn. SRMSE: the root mean square error over a margin's cells "
        "over their mean target; 0 is a perfect fit. A margin is met when every cell is "
        f"fitted within {MET_WITHIN} persons.</p>"
    )
    lines = "".join(
        f"<tr><td>{escape(str(c['zone']))}</td><td>{escape(str(c['margin']))}</td>"
        f"<td>{escape(str(c['category']))}</td><td>{c['target']:g}</td>"
        f"<td{_off(c)}>{c['fitted']:.2f}</td><td>{c['drawn']}</td></tr>"
        for c in cells
    )
    cell_head = head_row("zone", "margin", "category", "target", "fitted", "drawn")
    sections = [
        section("Fit per margin", f"{said}<table>{head}{rows}</table>"),
        section("Every cell", f"<table>{cell_head}{lines}</table>"),
    ]
    path = out / "report.html"
    path.write_text(standalone_page("simulacra population fit", sections), encoding="utf-8")
    return path


def _off(cell: Mapping[str, Any]) -> str:
    return " class=out" if abs(float(cell["fitted"]) - float(cell["target"])) > MET_WITHIN else ""
