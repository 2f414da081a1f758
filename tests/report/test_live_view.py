"""`simulacra view RUN --live` in a real headless Chromium, following a real run (the town,
on the scripted model) that is still being written: the test lets the run play one tick at a
time, so the page is checked while the run waits for its next tick."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM

from simulacra import api
from simulacra.engine import Progress
from simulacra.report import serve_run

from .test_town_tiles_browser import SHOWN, TWO_FRAMES, blank_beside

pytestmark = NEEDS_CHROMIUM
SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "town.yaml"
SMALL = {
    "memory.embedder": "hashing",
    "clock.start": "2024-02-14T07:00",
    "clock.duration": "2h",  # 12 ticks
    "agents.count": 3,
    "interviews": None,
    "world.attendance": None,
}
TICKS = 12


@dataclass
class PacedRun:
    """A real run in a thread that plays a tick only when the test lets it."""

    root: Path
    gate: threading.Semaphore = field(default_factory=lambda: threading.Semaphore(0))
    played: list[int] = field(default_factory=list)
    failure: list[BaseException] = field(default_factory=list)

    def start(self) -> None:
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        try:
            api.run(
                SCENARIO,
                set={**SMALL, "output.root": str(self.root)},
                model="scripted",
                progress=False,
                on_progress=self._wait,
            )
        except BaseException as exc:  # the test reports it
            self.failure.append(exc)

    def _wait(self, progress: Progress) -> None:
        self.played.append(progress.step)
        assert self.gate.acquire(timeout=120), "the test never let the run go on"

    def allow(self, ticks: int) -> None:
        self.gate.release(ticks)

    @property
    def path(self) -> Path:
        (found,) = [p for p in self.root.iterdir() if (p / "run.json").exists()]
        return found


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[PacedRun]:
    run = PacedRun(tmp_path)
    run.start()
    yield run
    run.allow(TICKS)  # never leave the run waiting
    run.thread.join(timeout=120)


@pytest.fixture
def site(paced: PacedRun) -> Iterator[str]:
    _until(lambda: len(paced.played) == 1 or paced.failure, "the run's first tick")
    assert not paced.failure, paced.failure
    server, url = serve_run(paced.path, live=True)
    yield url
    server.shutdown()
    server.server_close()


def _until(check: Any, what: str, seconds: float = 60) -> None:
    done = threading.Event()
    for _ in range(int(seconds * 20)):
        if check():
            return
        done.wait(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _max(page: Any) -> int:
    return int(page.get_attribute("#scrubber", "max"))


def test_the_live_viewer_follows_a_run_that_is_still_being_written(browser, paced, site):
    expect = pytest.importorskip("playwright.sync_api").expect
    page = browser.new_page(viewport={"width": 1400, "height": 860})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(site)
    # The run has played one tick: the start state and the state after it.
    assert _max(page) == 1
    assert "step 1" in page.inner_text("#clock")
    expect(page.locator("#live")).to_contain_text("following")
    # No blank strip beside the town: the map opened kept within the world's bounds, 7.2 tiles
    # of margin round the tiles, and showed one at the left (its view is made again, too, if
    # the status, arriving after it opened, resizes the map's box).
    page.evaluate(TWO_FRAMES)
    assert blank_beside(page.evaluate(SHOWN)) == []

    # The run waits for its next tick: the page stays usable meanwhile.
    page.click('#map g.agent[data-agent="marta_okafor"] circle')
    assert page.inner_text("#agent-name") == "Marta Okafor"

    # Three more ticks: the scrubber extends and the view, at the newest tick, follows.
    paced.allow(3)
    expect(page.locator("#scrubber")).to_have_attribute("max", "4", timeout=30_000)
    assert "step 4" in page.inner_text("#clock")
    assert page.inner_text("#agent-name") == "Marta Okafor"  # the selection survives updates

    # A reader who went back in time stays there while the run goes on.
    page.click("#step-back")
    page.click("#step-back")
    paced.allow(2)
    expect(page.locator("#scrubber")).to_have_attribute("max", "6", timeout=30_000)
    assert "step 2" in page.inner_text("#clock")

    # The run ends: the page says so and stops asking.
    paced.allow(TICKS)
    expect(page.locator("#live")).to_contain_text("completed", timeout=60_000)
    assert _max(page) == TICKS
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.wait_for_timeout(2500)
    assert asked == []
    assert errors == []
    page.close()


def test_the_live_data_answers_not_modified_until_the_run_writes_again(paced, site):
    data_url = site.rsplit("/", 1)[0] + "/replay.json"
    with urllib.request.urlopen(data_url) as answer:
        etag = answer.headers["ETag"]
        first = json.load(answer)
    assert len(first["frames"]) == 2
    assert answer.headers["Content-Security-Policy"] == "default-src 'none'"
    again = urllib.request.Request(data_url, headers={"If-None-Match": etag})
    with pytest.raises(urllib.error.HTTPError) as unchanged:
        urllib.request.urlopen(again)
    assert unchanged.value.code == 304

    paced.allow(1)
    _until(lambda: len(paced.played) == 2, "the second tick")
    with urllib.request.urlopen(again) as answer:
        assert answer.status == 200
        assert len(json.load(answer)["frames"]) == 3


def test_the_report_of_a_live_run_is_served_once_the_run_has_written_it(paced, site):
    report = site.rsplit("/", 1)[0] + "/report.html"
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(report)
    assert missing.value.code == 404
    assert b"written when the run ends" in missing.value.read()
    paced.allow(TICKS)
    paced.thread.join(timeout=120)
    with urllib.request.urlopen(report) as answer:
        assert answer.status == 200
