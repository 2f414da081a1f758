"""Remake the docs' pictures of the replay viewer from the shipped scenarios: `make pictures`
(`python scripts/doc_pictures.py`; about a minute; needs /usr/bin/chromium).

Each picture is a run of a shipped scenario on the scripted model (the stand-in: its agents
follow rules, so the picture shows the viewer, not what a language model would do), opened in
headless Chromium at 1440 x 900 at a moment the scenario is about. A picture made by hand
from another run drifts from what users get; these are made again by this one command.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

from simulacra.experiments import load_scenario, run
from simulacra.report import build_outputs

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
SCRIPTED = ["model.spec=scripted", "memory.embedder=hashing"]


@dataclass(frozen=True)
class Picture:
    target: str  # under docs/
    scenario: str  # under scenarios/
    settings: tuple[str, ...]
    moment: Callable[[list[dict[str, Any]]], str]  # its events -> "#step=..&agent=.."


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


PICTURES = (
    # README and docs/index.md: the demo's town (scenarios/town.yaml, as `make demo` plays it).
    Picture("viewer.png", "town", (), _first_party_talk),
    # docs/elfarol.md: a hundred agents at the bar or at home, against the bar's 60 seats.
    Picture("elfarol.png", "elfarol", ("clock.ticks=8",), _fullest_week),
)


def prepare(picture: Picture, scratch: Path) -> str:
    """Run the picture's scenario and build its viewer; the viewer's address at the moment."""
    settings = [*SCRIPTED, *picture.settings, f"output.root={scratch}"]
    scenario = load_scenario(ROOT / "scenarios" / f"{picture.scenario}.yaml", settings)
    path = run(scenario, progress=False).path
    build_outputs(path)
    lines = (path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return (path / "viewer.html").as_uri() + picture.moment([json.loads(line) for line in lines])


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        # Every run before the browser opens: Playwright's sync API holds an event loop.
        addresses = [prepare(picture, Path(scratch)) for picture in PICTURES]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for picture, address in zip(PICTURES, addresses, strict=True):
                page = browser.new_page(viewport={"width": 1440, "height": 900})
                page.goto(address)
                page.wait_for_timeout(300)
                target = ROOT / "docs" / picture.target
                page.screenshot(path=str(target))
                page.close()
                sys.stderr.write(f"wrote {target}\n")
            browser.close()


if __name__ == "__main__":
    main()
