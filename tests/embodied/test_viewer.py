"""An embodied run's outputs: frames and video re-rendered from the log, the report's table,
and the viewer scrubbing decisions in a real headless Chromium."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simulacra.experiments import load_scenario, run
from simulacra.report import assemble_video, render_frames

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(scope="module")
def embodied_run(tmp_path_factory: pytest.TempPathFactory, renders: None) -> Path:
    root = tmp_path_factory.mktemp("runs")
    scenario = load_scenario(
        "scenarios/embodied.yaml",
        ["agents.mind=seeker", "world.camera.width=160", "world.camera.height=120",
         "clock.ticks=4", f"output.root={root}"],
    )  # fmt: skip
    return run(scenario, progress=False).path


def test_frames_and_a_video_are_rendered_from_the_log(embodied_run: Path) -> None:
    frames = render_frames(embodied_run)
    assert [f.name for f in frames] == [f"step_{i:03d}.png" for i in range(5)]
    assert frames[0].read_bytes().startswith(b"\x89PNG")
    first_person = sorted((embodied_run / "frames" / "first_person" / "agent").glob("*.png"))
    assert len(first_person) == 5
    video = assemble_video(embodied_run)
    assert video.stat().st_size > 0


def test_the_report_shows_success_and_spl_per_agent(embodied_run: Path) -> None:
    page = (embodied_run / "report.html").read_text()
    assert "Task and episodes" in page
    assert "SPL" in page and "success" in page
    metrics = json.loads((embodied_run / "metrics.json").read_text())
    assert set(metrics["summary"]) >= {"success", "spl", "soft_spl", "steps"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (dev extra)")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.mark.browser
def test_the_viewer_scrubs_decisions_with_image_overview_reply_and_command(
    embodied_run: Path, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto((embodied_run / "viewer.html").as_uri() + "#step=2&agent=agent")
    page.wait_for_load_state("load")
    decision = page.locator('details[data-section="decision"] .decision')
    assert decision.get_attribute("data-step") == "2"
    # Decisions 10 s apart each show their own time: the second is taken at 09:00:10 and
    # leaves the world as it is at 09:00:20.
    assert "step 2 \u00b7 2000-01-01 09:00:10" in decision.locator(".meta").inner_text()
    assert page.locator("#clock").inner_text() == "step 2 \u00b7 2000-01-01 09:00:20"
    view = decision.locator('img[data-kind="view"]')
    assert view.get_attribute("src").startswith("data:image/png;base64,")
    assert view.evaluate("img => img.naturalWidth") == 160
    overview = decision.locator('img[data-kind="overview"]')
    assert overview.evaluate("img => img.naturalWidth") > 0
    assert "turn" in decision.locator('dd[data-field="command"]').inner_text() or (
        "move" in decision.locator('dd[data-field="command"]').inner_text()
    )
    assert decision.locator('dd[data-field="reply"]').inner_text()
    assert "\u2192" in decision.locator('dd[data-field="pose"]').inner_text()
    page.click("#step-forward")
    assert decision.get_attribute("data-step") == "3"
    assert errors == []
    page.close()


def test_the_report_draws_each_path_from_the_logged_positions(embodied_run: Path) -> None:
    """The plan's dots are the `world` events' positions, and its target the target's
    footprint, through one scaling of the axes (equal aspect, y pointing up as the world's)."""
    page = (embodied_run / "report.html").read_text()
    plot = re.search(r'<section id="paths">.*?base64,([^"]+)', page, re.S)
    assert plot is not None
    svg = base64.b64decode(plot[1]).decode()
    drawn = _points(_group(svg, "path-agent"), r'<use [^>]*x="([-\d.]+)" y="([-\d.]+)"')
    events = [json.loads(line) for line in (embodied_run / "events.jsonl").open()]
    logged = np.array(
        [[e["data"]["agents"]["agent"][k] for k in "xy"] for e in events if e["kind"] == "world"]
    )
    assert len(drawn) == len(logged) == 5
    assert np.ptp(logged[:, 0]) > 1  # the seeker walked: the test has something to compare
    scale, x0 = np.polyfit(logged[:, 0], drawn[:, 0], 1)
    y0 = np.mean(drawn[:, 1] + scale * logged[:, 1])
    on_page = np.array([[scale, -scale]])
    assert scale > 0 and np.allclose(drawn, logged * on_page + [x0, y0], atol=0.01)
    target = next(p for p in events[0]["data"]["world"]["places"] if p["kind"] == "target")
    corners = _points(_group(svg, "target"), r"([-\d.]+) ([-\d.]+)")
    low, size = np.array([target["x"], target["y"]]), np.array([target["w"], target["h"]])
    want = np.sort(np.array([low, low + size]) * on_page + [x0, y0], axis=0)
    assert np.allclose(want, [corners.min(axis=0), corners.max(axis=0)], atol=0.01)


def _group(svg: str, gid: str) -> str:
    """The SVG group `gid` up to its first nested group's end or its own."""
    start = svg.index(f'<g id="{gid}">')
    return svg[start : svg.index("</g>", start)]


def _points(text: str, pattern: str) -> np.ndarray:
    return np.array([[float(x), float(y)] for x, y in re.findall(pattern, text)])
