"""PNG frames of a run, one a `world` event (step 0 is the start), drawn from its events with
matplotlib's Agg backend (no window, no pyplot state), or for the embodied world re-rendered
in 3D from the logged poses, and their assembly into a video (ffmpeg where present) or an
animated GIF (Pillow).

The same run draws the same bytes: nothing in a frame depends on the clock or the machine's
matplotlib version (no metadata is written).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from simulacra.report.frame_maps import DPI, Painter, places_painter
from simulacra.report.outputs import ReportError
from simulacra.report.per_world import world_report
from simulacra.report.replay import build_replay
from simulacra.report.replay_model import Replay
from simulacra.runlog import RunDir, history

FRAMES = "frames"


def render_frames(run: RunDir | str | Path) -> list[Path]:
    """Draw <run>/frames/step_NNN.png for every `world` event; return their paths in order.

    Frames of an earlier drawing are replaced. Raises LogError when the folder holds no
    readable events.jsonl and ReportError when the run has no world to draw.
    """
    root = _run_path(run)
    events = list(history(root))
    layout: Mapping[str, Any] = next(
        (
            e.data["world"]
            for e in events
            if e.kind == "run" and isinstance(e.data.get("world"), Mapping)
        ),
        {},
    )
    replay = build_replay(events, _run_info(root))
    if not replay.frames:
        raise ReportError(f"{root}: events.jsonl holds no `world` event, so there is no frame")
    own = world_report(replay.run.world or str(layout.get("kind") or "")).frames
    if own is not None:  # a world that draws its frames itself (a scene re-rendered in 3D)
        out = root / FRAMES
        out.mkdir(parents=True, exist_ok=True)
        for stale in out.glob("step_*.png"):
            stale.unlink()
        return own(root, events, out)
    try:
        painter = painter_for(replay, layout)
    except ValueError as error:
        raise ReportError(f"{root}: {error}") from None
    out = root / FRAMES
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("step_*.png"):
        stale.unlink()
    digits = max(3, len(str(max(frame.step for frame in replay.frames))))
    paths = [out / f"step_{frame.step:0{digits}d}.png" for frame in replay.frames]
    if painter.backdrop is not None and painter.overlay is not None:
        _over_a_backdrop(painter, replay, paths)
    else:
        for frame, path in zip(replay.frames, paths, strict=True):
            fig = Figure(figsize=painter.size, dpi=DPI)
            canvas: Any = FigureCanvasAgg(fig)  # matplotlib's Agg canvas is untyped
            painter.draw(fig, frame)
            canvas.draw()
            _save(canvas, path)
    return paths


def _over_a_backdrop(painter: Painter, replay: Replay, paths: list[Path]) -> None:
    """Draw the backdrop once; each frame restores its pixels and draws only its own artists
    on them (or, when its agents and extras are the frame before's, restores that frame's
    pixels), then its caption, and takes its artists away again."""
    overlay, caption = painter.overlay, painter.caption
    assert painter.backdrop is not None and overlay is not None and caption is not None
    fig = Figure(figsize=painter.size, dpi=DPI)
    canvas: Any = FigureCanvasAgg(fig)  # matplotlib's Agg canvas is untyped
    ax = painter.backdrop(fig)
    canvas.draw()
    backdrop = canvas.copy_from_bbox(fig.bbox)
    shown: tuple[Any, Any, Any] | None = None  # (agents, extras, their pixels)
    for frame, path in zip(replay.frames, paths, strict=True):
        if shown is None or (shown[0], shown[1]) != (frame.agents, frame.extras):
            canvas.restore_region(backdrop)
            _draw_new(fig, ax, partial(overlay, ax, frame))
            shown = (frame.agents, frame.extras, canvas.copy_from_bbox(fig.bbox))
        canvas.restore_region(shown[2])
        _draw_new(fig, ax, partial(caption, fig, frame))
        _save(canvas, path)


def _draw_new(fig: Figure, ax: Axes, paint: Callable[[], None]) -> None:
    """Draw the artists `paint` adds, in the order a full draw would, then remove them."""
    had_ax, had_fig = set(ax.get_children()), set(fig.get_children())
    paint()
    on_ax = [a for a in ax.get_children() if a not in had_ax]
    on_fig = [a for a in fig.get_children() if a not in had_fig]
    for artist in sorted(on_ax, key=lambda a: a.get_zorder()) + on_fig:
        fig.draw_artist(artist)
    for artist in on_ax + on_fig:
        artist.remove()


def _save(canvas: Any, path: Path) -> None:
    # Fast zlib: frames are many and short-lived; the same pixels give the same bytes.
    image = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba())
    image.convert("RGB").save(path, format="png", compress_level=1)


def assemble_video(run: RunDir | str | Path, *, fps: float = 2.0) -> Path:
    """frames/ as <run>/frames.mp4 with ffmpeg when it is on PATH, else <run>/frames.gif.
    Frames are drawn first when the run has none."""
    root = _run_path(run)
    frames = sorted((root / FRAMES).glob("step_*.png")) or render_frames(root)
    ffmpeg = shutil.which("ffmpeg")
    if ffmpeg is not None:
        out = root / "frames.mp4"
        digits = len(frames[0].stem.removeprefix("step_"))
        subprocess.run(
            [
                ffmpeg,
                "-y",
                "-loglevel",
                "error",
                "-framerate",
                f"{fps:g}",
                "-i",
                str(root / FRAMES / f"step_%0{digits}d.png"),
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
    # One palette for every frame, from the first and the last (a fire that starts later is
    # in the last): quantizing each frame to its own palette took most of the GIF's time.
    first, last = (Image.open(frames[i]).convert("RGB") for i in (0, -1))
    both = Image.new("RGB", (first.width + last.width, max(first.height, last.height)))
    both.paste(first)
    both.paste(last, (first.width, 0))
    palette = both.quantize(colors=255)
    images = [
        Image.open(f).convert("RGB").quantize(palette=palette, dither=Image.Dither.NONE)
        for f in frames
    ]
    images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return out


def painter_for(replay: Replay, layout: Mapping[str, Any]) -> Painter:
    """The drawing for the run's world: its own painter where its report gives one, else a
    map of places (any world that lays out places or puts agents at x, y)."""
    kind = replay.run.world or str(layout.get("kind") or "")
    own = world_report(kind).painter
    if own is not None:
        return own(replay, layout)
    placed = any(p.x is not None for f in replay.frames for p in f.agents.values())
    if replay.places or placed:
        return places_painter(replay)
    raise ValueError(
        f"the run's world ({kind or 'of no kind'}) lays out no places and puts no agent at "
        "x, y, so there is nothing to draw; a frame needs places in the `run` event's world "
        "or agents with x and y in its `world` events"
    )


def _run_path(run: RunDir | str | Path) -> Path:
    return run.path if isinstance(run, RunDir) else Path(run)


def _run_info(root: Path) -> dict[str, Any] | None:
    try:
        info = json.loads((root / "run.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None  # the events alone are enough to draw
    return info if isinstance(info, dict) else None
