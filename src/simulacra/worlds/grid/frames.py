"""PNG frames of a grid run, drawn from its events with matplotlib's Agg backend (no window),
and their assembly into a video (ffmpeg where present) or an animated GIF (Pillow)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Circle, Rectangle
from PIL import Image

from simulacra.runlog import RunDir, read_events
from simulacra.worlds.grid.world import Cell, Layout

_GENDER_MARKERS = {"female": "o", "male": "s"}


def _run_path(run: RunDir | str | Path) -> Path:
    return run.path if isinstance(run, RunDir) else Path(run)


def draw_frame(
    layout: Layout,
    positions: Mapping[str, Cell],
    path: Path,
    *,
    step: int,
    personas: Mapping[str, Mapping[str, Any]] | None = None,
    occupancy: Mapping[str, int] | None = None,
) -> Path:
    """One frame: places with occupancy, active fires with shaded perception disks, agents, and a
    grey line between every pair that may talk."""
    h = layout.half_size
    fig = Figure(figsize=(7, 7), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_xlim(-h - 0.5, h + 0.5)
    ax.set_ylim(-h - 0.5, h + 0.5)
    ax.set_aspect("equal")
    ax.grid(True, color="#eeeeee", linewidth=0.5)
    for fire in layout.fires:
        if not fire.active(step):
            continue
        ax.add_patch(
            Circle(fire.position, fire.radius, color="orangered", alpha=0.12 + 0.2 * fire.intensity)
        )
        ax.plot(*fire.position, marker="*", color="red", markersize=14)
        ax.annotate(fire.name, fire.position, textcoords="offset points", xytext=(6, 6), fontsize=8)
    for place in layout.places:
        (x0, x1), (y0, y1) = place.x_range, place.y_range
        ax.add_patch(
            Rectangle((x0 - 0.5, y0 - 0.5), x1 - x0 + 1, y1 - y0 + 1, fill=False, linewidth=1.5)
        )
        count = f" {occupancy.get(place.name, 0)}/{place.capacity}" if occupancy else ""
        ax.text(x0 - 0.5, y1 + 0.8, f"{place.name}{count}", fontsize=9)
    links = layout.neighbours(positions)
    pairs = [(positions[a], positions[b]) for a in links for b in links[a] if a < b]
    if pairs:
        ax.add_collection(LineCollection(pairs, colors="grey", linewidths=0.8, zorder=2))
    for index, (agent, (x, y)) in enumerate(positions.items()):
        gender = (personas or {}).get(agent, {}).get("gender", "")
        ax.scatter(
            [x],
            [y],
            marker=_GENDER_MARKERS.get(str(gender), "^"),
            s=40,
            zorder=3,
            color=f"C{index % 10}",
            edgecolors="black",
            linewidths=0.5,
        )
        ax.annotate(agent, (x, y), textcoords="offset points", xytext=(3, -9), fontsize=6)
    ax.legend(
        handles=[
            Line2D([], [], marker=m, linestyle="", color="grey", label=g)
            for g, m in _GENDER_MARKERS.items()
        ],
        loc="lower left",
        fontsize=7,
        framealpha=0.8,
    )
    ax.set_title(f"step {step}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def render_frames(run: RunDir | str | Path) -> list[Path]:
    """Draw frames/step_NNN.png for every `world` event of a grid run (step 0 is the start)."""
    root = _run_path(run)
    layout: Layout | None = None
    personas: dict[str, Any] = {}
    written: list[Path] = []
    for event in read_events(root / "events.jsonl", kinds={"run", "world"}):
        if event.kind == "run" and "world" in event.data:
            layout = Layout.from_dict(event.data["world"])
            personas = dict(event.data.get("agents", {}))
        elif event.kind == "world" and layout is not None:
            step = int(event.data["step"])
            positions = {a: (int(x), int(y)) for a, (x, y) in event.data["positions"].items()}
            written.append(
                draw_frame(
                    layout,
                    positions,
                    root / "frames" / f"step_{step:03d}.png",
                    step=step,
                    personas=personas,
                    occupancy=event.data.get("occupancy"),
                )
            )
    if layout is None:
        raise ValueError(f"{root}: no grid layout in events.jsonl; is this a grid run?")
    return written


def assemble_video(run: RunDir | str | Path, *, fps: float = 2.0) -> Path:
    """frames/ as <run>/frames.mp4 with ffmpeg when it is on PATH, else <run>/frames.gif.
    Frames are drawn first when the run has none."""
    root = _run_path(run)
    frames = sorted((root / "frames").glob("step_*.png")) or render_frames(root)
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is not None:
        out = root / "frames.mp4"
        subprocess.run(
            [
                ffmpeg,
                "-y",
                "-loglevel",
                "error",
                "-framerate",
                f"{fps:g}",
                "-i",
                str(root / "frames" / "step_%03d.png"),
                "-vf",
                "scale=trunc(iw/2)*2:trunc(ih/2)*2",
                "-pix_fmt",
                "yuv420p",
                str(out),
            ],
            check=True,
        )
        return out
    out = root / "frames.gif"
    images = [Image.open(f).convert("P", palette=Image.Palette.ADAPTIVE) for f in frames]
    images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return out
