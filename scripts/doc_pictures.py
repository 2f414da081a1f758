"""Remake every picture the docs show, from the shipped scenarios: `make pictures`
(`python scripts/doc_pictures.py`; about a minute; needs /usr/bin/chromium).

Each picture is a run of a shipped scenario on the scripted model (the stand-in: its agents
follow rules, so the picture shows the page, not what a language model would do), opened in
headless Chromium at 1440 x 900 at a moment the scenario is about: the replay viewer of a
finished run, the live viewer following a run that waits for its next tick, and the console
of a run paused by hand. A picture made by hand from another run drifts from what users get;
these are made again by this one command (tests/docs/test_pictures.py checks that every
picture a page shows is one of them).
"""

from __future__ import annotations

import json
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from simulacra.engine import Progress
from simulacra.experiments import Scenario, load_scenario, run
from simulacra.experiments.console import Served, run_console
from simulacra.report import build_outputs, serve_run
from simulacra.runlog import RunDir

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCRIPTED = ["model.spec=scripted", "memory.embedder=hashing"]
WAIT_MS = 120_000
Taking = Callable[[Any, Scenario], AbstractContextManager[None]]


@dataclass(frozen=True)
class Picture:
    target: str  # under docs/
    scenario: str  # under scenarios/
    settings: tuple[str, ...]
    take: Taking  # (page, scenario): the page at the picture's moment while it is held
    whole_page: bool = False  # the page's whole length, not the window's


def _in_thread(work: Callable[[], Any]) -> Any:
    """`work` done in a thread of its own: Playwright's sync API holds this thread's event
    loop, and a run makes one of its own."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(work).result()


def _events(path: Path) -> list[dict[str, Any]]:
    lines = (path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _replay(moment: Callable[[list[dict[str, Any]]], str]) -> Taking:
    """The finished run's replay viewer at `moment` (its events -> "#step=..&agent=..")."""

    @contextmanager
    def take(page: Any, scenario: Scenario) -> Iterator[None]:
        path = _in_thread(lambda: run(scenario, progress=False).path)
        build_outputs(path)
        page.goto((path / "viewer.html").as_uri() + moment(_events(path)))
        page.wait_for_timeout(300)
        yield

    return take


def _first_party_talk(events: list[dict[str, Any]]) -> str:
    """The first word said of the party, on its speaker: the demo's news spreading. A line
    said belongs to the frame of the first world event after it."""
    said = next(
        i
        for i, e in enumerate(events)
        if e["kind"] == "message" and "party" in e["data"]["text"].lower()
    )
    step = next(e["data"]["step"] for e in events[said:] if e["kind"] == "world")
    return f"#step={step}&agent={events[said]['agent']}"


def _fullest_week(events: list[dict[str, Any]]) -> str:
    """The week the most went to the bar, on its first agent at the bar."""
    weeks = [e["data"] for e in events if e["kind"] == "world" and e["data"].get("attendance")]
    week = max(weeks, key=lambda w: w["attendance"])
    agent = next(a for a, where in week["agents"].items() if where["place"] == "bar")
    return f"#step={week['step']}&agent={agent}"


LIVE_TICKS = 8  # the run plays these, then waits while the picture is taken


@contextmanager
def _live(page: Any, scenario: Scenario) -> Iterator[None]:
    """`simulacra view RUN --live` following the run while it waits for its next tick, Marta
    selected."""
    # Each tick's end waits for a permit: the first ticks have theirs, the last waits.
    gate, played = threading.Semaphore(LIVE_TICKS - 1), threading.Semaphore(0)
    opened: list[RunDir] = []

    def wait(progress: Progress) -> None:
        played.release()
        gate.acquire(timeout=WAIT_MS / 1000)

    thread = threading.Thread(
        target=lambda: run(scenario, progress=False, on_progress=wait, opened=opened.append),
        daemon=True,
    )
    thread.start()
    for _ in range(LIVE_TICKS):
        assert played.acquire(timeout=WAIT_MS / 1000), "the run stopped"
    server, url = serve_run(opened[0].path, live=True)
    try:
        page.goto(url + "#agent=marta_okafor")
        page.wait_for_function(
            "() => /waiting for the next tick/.test(document.getElementById('live').textContent)",
            timeout=WAIT_MS,
        )
        yield
    finally:
        server.shutdown()
        server.server_close()
        gate.release(10_000)  # the run plays to its end
        thread.join()


def _console_says(page: Any, status: str) -> None:
    page.wait_for_function(
        "t => document.getElementById('console-status').textContent.startsWith(t)",
        arg=status,
        timeout=WAIT_MS,
    )


@contextmanager
def _console(page: Any, scenario: Scenario) -> Iterator[None]:
    """`simulacra run --console --paused`: a thought sent to Marta, a visitor who joins her
    and speaks, one tick stepped, and her answer in the chat; the map follows her."""
    ready = threading.Event()
    served = Served(ready=lambda _: ready.set())
    thread = threading.Thread(
        target=lambda: run_console(scenario, served=served, paused=True, progress=False),
        daemon=True,
    )
    thread.start()
    assert ready.wait(WAIT_MS / 1000), "the console never started"
    try:
        page.goto(served.url)
        _console_says(page, "paused before step 1")
        page.fill("#console-who", "teacher")
        page.select_option("#console-type", "thought")
        page.select_option("#console-agent", "marta_okafor")
        page.fill("#console-text", "The cafe could open early today for the market crowd.")
        page.click("#console-send")
        page.wait_for_selector("#console-log li:has-text('thought: queued')", timeout=WAIT_MS)
        page.fill("#visitor-name", "Vera")
        page.fill("#visitor-description", "a tall woman in a green coat")
        page.select_option("#visitor-place", "Alder Cottage")
        page.click("#visitor-join")
        page.wait_for_selector("#console-log li:has-text('visitor join')", timeout=WAIT_MS)
        page.select_option("#visitor-to", "marta_okafor")
        page.fill("#visitor-line", "Good morning! Is the cafe open yet?")
        page.click("#visitor-say")
        page.wait_for_selector("#visitor-chat li:has-text('open yet?')", timeout=WAIT_MS)
        page.click("#console-step")
        _console_says(page, "paused before step 2")
        page.wait_for_selector("#visitor-chat li.reply", timeout=WAIT_MS)
        page.check("#follow")  # the map closes in on Marta, her visitor and their words
        page.click("#map g.agent[data-agent=marta_okafor]")
        page.wait_for_timeout(1500)  # the page's next poll: the step's frame drawn
        yield
        page.click("#console-resume")
        _console_says(page, "the run has ended")
    finally:
        served.stop()
        thread.join()


PICTURES = (
    # README: the demo's town (scenarios/town.yaml, as `make demo` plays it).
    Picture("viewer.png", "town", (), _replay(_first_party_talk)),
    # docs/elfarol.md: a hundred agents at the bar or at home, against the bar's 60 seats.
    Picture("elfarol.png", "elfarol", ("clock.ticks=8",), _replay(_fullest_week)),
    # docs/index.md: the live viewer following the demo's town as it is written.
    Picture("live-view.png", "town", (), _live),
    # docs/console.md: the console on the demo's town, paused, changed and visited.
    Picture("console.png", "town", (), _console, whole_page=True),
)


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for picture in PICTURES:
            root = Path(scratch) / Path(picture.target).stem
            settings = [*SCRIPTED, *picture.settings, f"output.root={root}"]
            scenario = load_scenario(ROOT / "scenarios" / f"{picture.scenario}.yaml", settings)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            target = ROOT / "docs" / picture.target
            with picture.take(page, scenario):
                page.screenshot(path=str(target), full_page=picture.whole_page)
            page.close()
            sys.stderr.write(f"wrote {target}\n")
        browser.close()


if __name__ == "__main__":
    main()
