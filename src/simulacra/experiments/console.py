"""A run's live console (`simulacra run SCENARIO --console`): the run plays in this thread
while the viewer, served on 127.0.0.1 with a token, pauses, steps and changes it.

`ConsoleBackend` is what the server asks (report/console_api.py): the choices the world offers
(its agents, places and objects, the intervention types its world and minds take), where the
run stands, and each action, checked before it is queued on the engine's Control. What a world
takes: see `choices`; a world that takes no interventions says so, and can still be paused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from simulacra.engine import Control, ProgressHook
from simulacra.errors import UserError
from simulacra.experiments.console_actions import (
    CONSOLE,
    Refused,
    compose,
    types_taken,
    written,
)
from simulacra.experiments.kinds import binding_of
from simulacra.experiments.load import load_scenario
from simulacra.experiments.scenario import Scenario
from simulacra.llm import Gateway
from simulacra.runlog import RunDir, read_events

MAX_WHO = 40
CONSOLE_FILE = "console.url"


class ConsoleBackend:
    """The console's side of a run: `choices`, `status` and `act` (from the server's threads)."""

    def __init__(self, scenario: Scenario, control: Control) -> None:
        self.scenario = scenario
        self.control = control
        self.kind = binding_of(scenario)
        self._first = scenario.clock.calendar().times()[0]  # a time any check accepts
        self._visitors: set[str] = set()
        self._lock = threading.Lock()
        self.log: Path | None = None  # the run's events.jsonl, once it is open

    def choices(self) -> dict[str, Any]:
        """What the console offers to compose with, in the world's own words."""
        taken = types_taken(self.scenario)
        found: dict[str, Any] = {
            "world": self.kind.name,
            "types": taken,
            "agents": self.kind.roster(self.scenario),
            "visitors": self._takes_visitors(),
            **self.kind.console_choices(self.scenario),
        }
        if not taken:
            found["note"] = (
                f"the {self.kind.name} world takes no interventions: pause, step and the "
                "speed limit work; nothing can be sent"
            )
        return found

    def status(self) -> dict[str, Any]:
        s = self.control.status()
        return {
            "paused": s.paused,
            "pausing": s.pausing,
            "speed": s.speed,
            "step": s.step,
            "queued": s.queued,
            "finished": s.finished,
        }

    def said(self) -> list[dict[str, Any]]:
        """What visitors said (`name`, `to`, `text`, and the `step` it was said before), in
        order, from the run's `console` events: a reloaded page, or a resumed run's, shows
        its chat again."""
        if self.log is None or not self.log.is_file():
            return []
        found = []
        for event in read_events(self.log, {CONSOLE}):
            sent = event.data.get("intervention") or {}
            change = sent.get("change") or {}
            if "visitor" in change and "to" in change:
                found.append(
                    {
                        "name": change["visitor"],
                        "to": change["to"],
                        "text": sent.get("text", ""),
                        "step": event.data["step"],
                    }
                )
        return found

    def act(self, who: str, body: Mapping[str, Any]) -> str:
        """Take one action (`action`: pause, resume, step, speed, intervene, visitor); Refused
        says why not. Returns what was done, in words."""
        who = str(who or "console").strip()[:MAX_WHO] or "console"
        action = body.get("action")
        if action in ("pause", "resume", "step"):
            getattr(self.control, action)(who)
            return f"{action}: at the next tick boundary"
        if action == "speed":
            speed = body.get("ticks_per_s")
            try:
                self.control.set_speed(who, None if speed in (None, "", 0) else float(speed))
            except (TypeError, ValueError) as exc:
                raise Refused(f"ticks_per_s: {exc}") from None
            return "speed: set"
        if action == "intervene":
            raw = body.get("intervention")
            if not isinstance(raw, Mapping):
                raise Refused("intervention: give the intervention as a scenario writes it")
            if isinstance(raw.get("change"), Mapping) and "visitor" in raw["change"]:
                raise Refused("intervention: a visitor comes and speaks through the visitor panel")
            item = compose(self.scenario, raw, self._first)
            self.control.send(who, item)
            return f"{item.type}: queued for the next tick"
        if action == "visitor":
            return self._visitor(body)
        raise Refused(
            f"action: {action!r} is none of pause, resume, step, speed, intervene, visitor"
        )

    def _visitor(self, body: Mapping[str, Any]) -> str:
        if not self._takes_visitors():
            raise Refused(f"visitor: the {self.kind.name} world and its minds take no visitors")
        name = str(body.get("name") or "").strip()
        what = body.get("do")
        text = str(body.get("text") or "").strip()
        change: dict[str, Any] = {"visitor": name}
        if what in ("join", "move"):
            change["place"] = body.get("place")
            if body.get("description"):
                change["description"] = str(body["description"]).strip()
            text = text or f"{name} arrives at {change['place']}"
        elif what == "say":
            with self._lock:
                if name not in self._visitors:
                    raise Refused(f"visitor: {name or 'nobody'} has not joined; join first")
            change["to"] = body.get("to")
            if not text:
                raise Refused("text: say something")
        else:
            raise Refused(f"do: {what!r} is none of join, move, say")
        item = compose(
            self.scenario, {"type": "event", "text": text, "change": change}, self._first
        )
        self.control.send(name, item)
        with self._lock:
            self._visitors.add(name)
        return f"visitor {what}: queued for the next tick"

    def _takes_visitors(self) -> bool:
        return self.kind.takes_visitors(self.scenario)


@dataclass
class Served:
    """Where a console run is served, once it is (`ready` is told the console's address)."""

    ready: Callable[[str], None] | None = None
    server: ThreadingHTTPServer | None = None
    url: str = ""
    note: Path | None = None  # CONSOLE_FILE in the run, for `simulacra view RUN --console`

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        if self.note is not None:
            self.note.unlink(missing_ok=True)
            self.note = None


def console_url(run: str | Path) -> str | None:
    """The address of the console a run is served with now, or None."""
    note = Path(run) / CONSOLE_FILE
    return note.read_text(encoding="utf-8").strip() if note.is_file() else None


def run_console(
    scenario: Scenario | None = None,
    *,
    served: Served,
    resume: str | Path | None = None,
    model: Gateway | None = None,
    port: int = 0,
    paused: bool = False,
    progress: bool = True,
    on_progress: ProgressHook | None = None,
    overrides: Sequence[str] = (),
) -> RunDir:
    """Run `scenario` (or resume the run at `resume`, with `overrides` as a plain resume
    takes them: model.budget and model.price) with a live console on 127.0.0.1:`port`
    (0: any free port), paused before its first tick when `paused`. The console keeps serving,
    read-only, after the run ends: `served.stop()` stops it."""
    from simulacra.experiments import pipeline
    from simulacra.report import ConsoleSite, serve_run

    if (scenario is None) == (resume is None):
        raise UserError("run_console: give either a scenario or a run to resume")
    if overrides and resume is None:
        raise UserError("run_console: overrides are for a resumed run; load them into the scenario")
    if scenario is None:
        scenario = load_scenario(RunDir.open(str(resume)).config())
    control = Control(written, paused=paused)
    backend = ConsoleBackend(scenario, control)
    site = ConsoleSite(backend)

    def opened(run: RunDir) -> None:
        backend.log = run.events_path
        served.server, _ = serve_run(run.path, port=port, live=True, console=site)
        served.url = site.url(served.server.server_address[1])
        # The address holds the token: readable by this user alone, gone when serving stops.
        note = run.path / CONSOLE_FILE
        note.touch(mode=0o600)
        note.write_text(served.url + "\n", encoding="utf-8")
        served.note = note
        if served.ready is not None:
            served.ready(served.url)

    shown: dict[str, Any] = {"progress": progress, "on_progress": on_progress}
    try:
        if resume is not None:
            return pipeline.resume(
                resume, model=model, control=control, opened=opened, overrides=overrides, **shown
            )
        return pipeline.run(scenario, model=model, control=control, opened=opened, **shown)
    finally:
        control.finish()
