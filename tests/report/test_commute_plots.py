"""The commute figures lay out their parts where they can be read: Figure 7's legend stays
clear of its title and of its panels, whatever the title's length."""

from __future__ import annotations

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from simulacra.experiments.kinds.commute.plots import profile_strike_figure

PROFILES = ("student", "administrative_worker", "elderly_resident", "factory_worker")
DAYS = range(1, 21)


def boxes(fig: Figure) -> tuple[Bbox, Bbox, list[Bbox]]:
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    [legend] = fig.legends
    [title] = [t for t in fig.findobj(Text) if t.get_text() == fig.get_suptitle()]
    panels = [ax.get_tightbbox(renderer) for ax in fig.axes if ax.get_visible()]
    return legend.get_window_extent(renderer), title.get_window_extent(renderer), panels


@pytest.mark.parametrize("profiles", [PROFILES, PROFILES[:1], PROFILES[:3]])
@pytest.mark.parametrize("label", ["commute, seed 0", "available40 (scripted), mean of 5 " * 3])
def test_figure_7s_legend_covers_neither_its_title_nor_a_panel(
    profiles: tuple[str, ...], label: str
) -> None:
    modes = {"bus": 30.0, "taxi": 60.0, "walk": 10.0}
    split = {p: {str(d): modes for d in DAYS} for p in profiles}
    waits = {p: [{"day": d, "mean_wait_min": 14.0 + d} for d in DAYS] for p in profiles}
    fig = profile_strike_figure(split, waits, [11, 12, 13, 14, 15], f"Modes and wait ({label})")
    legend, title, panels = boxes(fig)
    assert not legend.overlaps(title)
    for panel in panels:
        assert not legend.overlaps(panel)
    shown = [t.get_text() for t in fig.legends[0].get_texts()]
    assert shown == ["taxi strike", "bus", "taxi", "walk"]
