"""`simulacra frames RUN --video` against the run it draws: a day of the shipped town (five
agents, 84 ticks, 85 frames) on the scripted model, then its frames and GIF drawn twice in
this process: as frames.py draws them (the map drawn once, each frame blitted over it, one
palette for the GIF) and, as the baseline, each frame drawn whole with matplotlib's savefig
and each GIF frame given its own palette (how they were drawn before). Prints one JSON line:
the run's wall time, both drawings' and their ratios.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

from simulacra.experiments import load_scenario, run
from simulacra.report import assemble_video, render_frames
from simulacra.report.frame_maps import DPI
from simulacra.report.frames import painter_for
from simulacra.report.replay import build_replay
from simulacra.runlog import read_events

SCENARIO = Path(__file__).resolve().parent.parent / "scenarios" / "town.yaml"


def baseline(root: Path) -> None:
    """Every frame drawn whole and saved by savefig; a GIF with a palette per frame."""
    events = list(read_events(root / "events.jsonl"))
    layout = next(e.data["world"] for e in events if e.kind == "run")
    replay = build_replay(events)
    painter = painter_for(replay, layout)
    out = root / "baseline"
    out.mkdir()
    paths = []
    for frame in replay.frames:
        fig = Figure(figsize=painter.size, dpi=DPI)
        FigureCanvasAgg(fig)
        painter.draw(fig, frame)
        paths.append(out / f"step_{frame.step:03d}.png")
        fig.savefig(paths[-1], format="png", dpi=DPI, metadata={"Software": None})
    images = [Image.open(p).convert("P", palette=Image.Palette.ADAPTIVE) for p in paths]
    images[0].save(out / "frames.gif", save_all=True, append_images=images[1:], loop=0)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-frames-") as folder:
        scenario = load_scenario(
            SCENARIO, ["model.spec=scripted", f"output.root={folder}", "output.report=false"]
        )
        started = time.perf_counter()
        done = run(scenario, progress=False)
        run_s = time.perf_counter() - started
        started = time.perf_counter()
        drawn = render_frames(done)
        video = assemble_video(done.path)
        frames_s = time.perf_counter() - started
        started = time.perf_counter()
        baseline(done.path)
        baseline_s = time.perf_counter() - started
        sizes = sum(p.stat().st_size for p in drawn), video.stat().st_size
        shutil.rmtree(done.path / "baseline")
    print(
        json.dumps(
            {
                "bench": "frames",
                "frames": len(drawn),
                "run_s": round(run_s, 2),
                "frames_video_s": round(frames_s, 2),
                "baseline_frames_video_s": round(baseline_s, 2),
                "frames_over_run": round(frames_s / run_s, 2),
                "speedup_over_baseline": round(baseline_s / frames_s, 2),
                "png_mb": round(sizes[0] / 1e6, 2),
                "gif_mb": round(sizes[1] / 1e6, 2),
            }
        )
    )


if __name__ == "__main__":
    main()
