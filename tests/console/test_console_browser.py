"""The console in a real headless Chromium, as a person uses it: a scripted town paused,
a thought sent, a visitor who joins, speaks and is answered, the run resumed and its log
read; and a grid and a commute stepped, each saying it takes no interventions. Screenshots
go to the test's artifacts (`SIMULACRA_ARTIFACTS`, else its temporary folder)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import NEEDS_CHROMIUM
from tests.console.driver import ConsoleRun
from tests.console.test_console_run import HOSTILE, _town
from tests.engine.test_conformance import SCENARIOS, small

from simulacra.experiments import load_scenario
from simulacra.experiments.kinds.town import TOWN
from simulacra.runlog import RunDir, read_events

pytestmark = NEEDS_CHROMIUM
WAIT_MS = 60_000


def _shots(tmp_path: Path) -> Path:
    root = Path(os.environ.get("SIMULACRA_ARTIFACTS") or tmp_path) / "screenshots"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _status(page: Any, text: str) -> None:
    page.wait_for_function(
        "t => document.getElementById('console-status').textContent.startsWith(t)",
        arg=text,
        timeout=WAIT_MS,
    )


def test_a_person_pauses_a_town_sends_a_thought_visits_and_is_answered(
    browser: Any, tmp_path: Path
) -> None:
    scenario = _town(tmp_path / "town")
    first = TOWN.roster(scenario)[0]
    persona = TOWN.personas(scenario)[0]
    console = ConsoleRun(scenario)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        page.goto(console.served.url)
        _status(page, "paused before step 1")
        page.fill("#console-who", "teacher")
        # A thought, composed with the world's own choices.
        page.select_option("#console-type", "thought")
        page.select_option("#console-agent", first)
        page.fill("#console-text", HOSTILE)
        page.click("#console-send")
        page.wait_for_selector("#console-log li:has-text('thought: queued')", timeout=WAIT_MS)
        # A visitor joins where the first agent is, and speaks to them.
        page.fill("#visitor-name", "Vera")
        page.fill("#visitor-description", "a tall woman in a green coat")
        page.select_option("#visitor-place", persona.home)
        page.click("#visitor-join")
        page.wait_for_selector("#console-log li:has-text('visitor join')", timeout=WAIT_MS)
        page.select_option("#visitor-to", first)
        page.fill("#visitor-line", "Good morning! Is the cafe open?")
        page.click("#visitor-say")
        page.wait_for_selector("#visitor-chat li:has-text('Is the cafe open?')", timeout=WAIT_MS)
        # A refused change says why, in the world's words, and is not queued.
        page.select_option("#console-type", "event")
        page.select_option("#console-place", "Hobbs Cafe")
        page.select_option("#console-object", "espresso machine")
        page.fill("#console-state", "")
        page.fill("#console-text", "the machine")
        page.click("#console-send")
        page.wait_for_selector("#console-log li.refused", timeout=WAIT_MS)
        # One tick: the agent answers through the dialogue, and the chat shows it.
        page.click("#console-step")
        _status(page, "paused before step 2")
        reply = page.wait_for_selector("#visitor-chat li.reply", timeout=WAIT_MS)
        assert reply.inner_text().startswith(persona.name + ":")
        # Vera is on the map, and the hostile thought is text, never markup.
        page.wait_for_selector("#map [data-layer=visitors]", state="attached", timeout=WAIT_MS)
        assert "Vera" in page.text_content("#layer-extras")
        note = page.wait_for_selector("#now-list li.note:has-text('alert')", timeout=WAIT_MS)
        assert HOSTILE in note.inner_text()  # shown as the words it is
        assert page.evaluate("document.querySelectorAll('script').length") == 3
        page.screenshot(path=str(_shots(tmp_path) / "console-town.png"), full_page=True)
        page.click("#console-resume")
        _status(page, "the run has ended")
        assert page.is_disabled("#console-send")
    finally:
        page.close()
        console.close()
    # The one refused change is the only failed request (the browser logs it as an error).
    assert errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
    assert not dialogs
    done = console.finish()
    assert isinstance(done, RunDir)
    actions = [
        (e.data["who"], e.data["action"], e.data["step"])
        for e in read_events(done.events_path, {"console"})
    ]
    assert actions == [
        ("teacher", "thought", 1),
        ("Vera", "event", 1),
        ("Vera", "event", 1),
        ("teacher", "step", 1),
        ("teacher", "resume", 2),
    ]
    fired = next(e for e in read_events(done.events_path, {"intervention"}) if e.agent == first)
    assert fired.data["text"] == HOSTILE


@pytest.mark.parametrize(("kind", "world"), [("hazard", "grid"), ("commute", "commute")])
def test_a_world_without_interventions_is_stepped_and_says_so(
    kind: str, world: str, browser: Any, tmp_path: Path
) -> None:
    console = ConsoleRun(load_scenario(SCENARIOS / f"{kind}.yaml", small(kind, tmp_path)))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(console.served.url)
        _status(page, "paused before step 1")
        note = page.inner_text("#console-note")
        assert f"the {world} world takes no interventions" in note
        assert page.is_disabled("#console-send") and page.is_hidden("#console-visitor")
        page.click("#console-step")
        _status(page, "paused before step 2")
        page.screenshot(path=str(_shots(tmp_path) / f"console-{kind}.png"), full_page=True)
        page.click("#console-resume")
        _status(page, "the run has ended")
    finally:
        page.close()
        console.close()
    done = console.finish()
    assert isinstance(done, RunDir)
    steps = [e.data["action"] for e in read_events(done.events_path, {"console"})]
    assert steps == ["step", "resume"]
