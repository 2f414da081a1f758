"""A calibration's report.html: the posterior of each parameter (median and 95% interval
beside its prior and any reference value), the pairwise plots of the posterior sample, the
fit per target and the held-out check (posterior predictive against what was observed), and
the generations of the ABC-SMC. One self-contained file; every text is escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from simulacra.report.plots import figure_svg, plot_style, tidy_axes
from simulacra.report.sweep_page import CSP, CSS, figure, svg_uri

_CSS = CSS + ".out{color:#b42318;font-weight:600}\n"
_ACCENT, _REFERENCE = "#00798c", "#d1495b"


def pairs_svg(
    names: Sequence[str],
    particles: np.ndarray,
    weights: np.ndarray,
    references: Sequence[float | None] = (),
) -> str:
    """Each parameter's weighted histogram on the diagonal, each pair's particles below it
    (darker for more weight); a reference value is a red line or cross."""
    count = len(names)
    refs = list(references) + [None] * (count - len(references))
    shade = weights / weights.max() if len(weights) else weights
    with plot_style():
        side = max(2.2, 7.5 / count)
        fig = Figure(figsize=(side * count, side * count))
        axes = fig.subplots(count, count, squeeze=False)
        for row in range(count):
            for col in range(count):
                ax = axes[row][col]
                tidy_axes(ax)
                if col > row:
                    ax.set_visible(False)
                    continue
                if row == col:
                    ax.hist(particles[:, col], bins=20, weights=weights, color=_ACCENT)
                    if refs[col] is not None:
                        ax.axvline(refs[col], color=_REFERENCE, linewidth=1.5)
                    ax.set_yticks([])
                else:
                    ax.scatter(
                        particles[:, col],
                        particles[:, row],
                        s=6,
                        c=_ACCENT,
                        alpha=np.clip(0.15 + 0.85 * shade, 0, 1),
                        linewidths=0,
                    )
                    if refs[col] is not None and refs[row] is not None:
                        ax.plot(refs[col], refs[row], "x", color=_REFERENCE, markersize=8)
                if row == count - 1:
                    ax.set_xlabel(_short(names[col]))
                if col == 0 and row > 0:
                    ax.set_ylabel(_short(names[row]))
        fig.tight_layout()
        return figure_svg(fig)


def write_calibration_report(out: Path, summary: Mapping[str, Any], pairs: str) -> Path:
    title = f"simulacra calibration: {summary['scenario']}"
    sections = [
        _overview(summary),
        _posterior(summary),
        section(
            "Pairwise posterior",
            figure(
                svg_uri(pairs),
                "pairwise plots of the posterior sample",
                "The last generation's particles: each parameter's weighted histogram, each "
                "pair's particles (darker: more weight); red: the reference value.",
            ),
        ),
        _checks("Fit per target", summary["fit"], "posterior predictive, calibration settings"),
    ]
    if summary.get("held_out"):
        sections.append(
            _checks(
                "Held-out check",
                summary["held_out"],
                "not fitted: the posterior predictive under the held-out settings",
            )
        )
    sections.append(_generations(summary))
    path = out / "report.html"
    path.write_text(standalone_page(title, sections), encoding="utf-8")
    return path


def standalone_page(title: str, sections: Sequence[str]) -> str:
    """A self-contained page of `sections` (already escaped HTML) under `title`."""
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        f"<header><h1>{escape(title)}</h1></header>\n<main>{''.join(sections)}</main>\n"
        "</body>\n</html>\n"
    )


def _overview(summary: Mapping[str, Any]) -> str:
    runs = summary["runs"]
    body = (
        f"<p>ABC-SMC over {len(summary['parameters'])} parameters and "
        f"{len(summary['fit'])} targets: {runs['fit']} runs to fit, "
        f"{runs['predictive']} for the predictive checks ({summary['draws']} posterior draws), "
        f"{summary['wall_s']:.1f} s; stopped after {escape(str(summary['stopped']))}.</p>"
    )
    return section("Overview", body)


def _posterior(summary: Mapping[str, Any]) -> str:
    rows = []
    for p in summary["parameters"]:
        ref = p.get("reference")
        mark = "" if ref is None else ("" if p["reference_inside"] else ' class="out"')
        rows.append(
            f"<tr><td>{escape(p['parameter'])}</td><td>{p['median']:.3f}</td>"
            f"<td>[{p['low']:.3f}, {p['high']:.3f}]</td>"
            f"<td class=muted>[{p['prior_low']:.2f}, {p['prior_high']:.2f}]</td>"
            f"<td{mark}>{'' if ref is None else f'{ref:g}'}</td></tr>"
        )
    head = head_row("parameter", "median", "95% interval", "prior 95%", "reference")
    return section("Posterior", f"<table>{head}{''.join(rows)}</table>")


def _checks(title: str, rows: Sequence[Mapping[str, Any]], what: str) -> str:
    lines = []
    for r in rows:
        mark = "" if r["inside"] else ' class="out"'
        lines.append(
            f"<tr><td>{escape(r['target'])}</td><td>{escape(r['metric'])}</td>"
            f"<td{mark}>{r['observed']:g}</td><td>{r['median']:.2f}</td>"
            f"<td>[{r['low']:.2f}, {r['high']:.2f}]</td><td>{'yes' if r['inside'] else 'no'}</td>"
            f"<td class=muted>{escape(r.get('source') or '')}</td></tr>"
        )
    head = head_row(
        "target", "metric", "observed", "predicted median", "95% interval", "inside", "source"
    )
    return section(title, f"<p class=muted>{escape(what)}</p><table>{head}{''.join(lines)}</table>")


def _generations(summary: Mapping[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{g['generation']}</td><td>{'-' if g['epsilon'] is None else g['epsilon']}</td>"
        f"<td>{g['particles']}</td><td>{g['runs']}</td><td>{g.get('accepted', '')}</td>"
        f"<td>{g['acceptance']:.3f}</td></tr>"
        for g in summary["generations"]
    )
    head = head_row("generation", "tolerance", "particles", "runs", "within it", "acceptance")
    return section("Generations", f"<table>{head}{rows}</table>")


def head_row(*names: str) -> str:
    return "<tr>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"


def section(title: str, body: str) -> str:
    return f"<section><h2>{escape(title)}</h2>{body}</section>\n"


def _short(name: str) -> str:
    """The last two parts of a dotted path: a label that fits under a plot."""
    return ".".join(name.split(".")[-2:])
