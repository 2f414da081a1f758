"""The embodied world's floor plan with each agent's path: the positions its `world` events
logged step by step, over the footprints of what stands in the scene and its target.

The replay holds screen coordinates, y pointing down, mirrored from the world's (whose y
axis points up: `report/replay_layout.py`); the plan mirrors them back, so its axes read as
the log does and it is oriented as the viewer is.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from simulacra.report.plots import figure_svg, plot_style
from simulacra.report.replay_model import Replay

Point = tuple[int, float, float]  # step, x, y
_TARGET = "#d1495b"


def paths(replay: Replay) -> dict[str, list[Point]]:
    """Each agent's logged position (world coordinates) at every frame that has one, in step
    order."""
    found: dict[str, list[Point]] = {agent: [] for agent in replay.agents}
    for frame in replay.frames:
        for agent, position in frame.agents.items():
            if position.x is not None and position.y is not None:
                found.setdefault(agent, []).append((frame.step, position.x, -position.y))
    return {agent: points for agent, points in found.items() if points}


def trajectory_svg(replay: Replay) -> str:
    """The plan view: the floor, obstacles in grey, the target in red, and each agent's path
    from its start (a ring) through every step (dots, numbered) to where it ended (a square).
    Each path is the SVG group `path-<agent>` and the target `target`, so a test can read
    back what was drawn."""
    with plot_style():
        fig = Figure(figsize=(9, 4))
        ax = fig.add_subplot()
        _footprints(ax, replay)
        for index, (agent, points) in enumerate(paths(replay).items()):
            colour = f"C{index % 10}"
            xs, ys = [x for _, x, _ in points], [y for _, _, y in points]
            (line,) = ax.plot(xs, ys, color=colour, marker=".", linewidth=1.4, label=agent)
            line.set_gid(f"path-{agent}")
            ax.scatter(xs[:1], ys[:1], s=70, facecolors="none", edgecolors=colour, zorder=3)
            ax.scatter(xs[-1:], ys[-1:], s=40, marker="s", color=colour, zorder=3)
            for text, x, y in _stays(points):
                ax.annotate(text, (x, y), xytext=(3, 3), textcoords="offset points",
                            fontsize=6, color=colour)  # fmt: skip
        ax.set_aspect("equal")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        return figure_svg(fig)


def _stays(points: list[Point]) -> list[tuple[str, float, float]]:
    """One label per run of steps at the same position ("5-10" where the agent stood still)."""
    runs: list[tuple[int, int, float, float]] = []
    for step, x, y in points:
        if runs and runs[-1][2:] == (x, y):
            runs[-1] = (runs[-1][0], step, x, y)
        else:
            runs.append((step, step, x, y))
    return [(f"{a}" if a == b else f"{a}-{b}", x, y) for a, b, x, y in runs]


def _footprints(ax: Axes, replay: Replay) -> None:
    for place in replay.places:
        corner, w, h = (place.x, -place.y - place.h), place.w, place.h
        if place.kind == "floor":
            ax.add_patch(Rectangle(corner, w, h, facecolor="#f3f1ea", edgecolor="#c9c4b5"))
        elif place.kind == "target":
            label = f"target: {place.name}"  # in the legend, where no path can cover it
            ax.add_patch(Rectangle(corner, w, h, color=_TARGET, lw=2, label=label, gid="target"))
        else:
            ax.add_patch(Rectangle(corner, w, h, facecolor="#b9bcc4", edgecolor="none"))
    ax.autoscale_view()
