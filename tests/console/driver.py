"""A console run in a thread of its own, and its calls as a person's browser makes them."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.engine import Progress
from simulacra.experiments import resume
from simulacra.experiments.console import Served, run_console
from simulacra.experiments.scenario import Scenario
from simulacra.runlog import RunDir

WAIT_S = 120


class ConsoleRun:
    """`simulacra run --console`, in a thread; `close` stops its server and waits for it."""

    def __init__(
        self,
        scenario: Scenario | None = None,
        *,
        resume: Path | None = None,
        paused: bool = True,
        on_progress: Callable[[Progress], None] | None = None,
        overrides: tuple[str, ...] = (),
    ) -> None:
        self._ready = threading.Event()
        self.served = Served(ready=lambda _: self._ready.set())
        self.done: RunDir | None = None
        self.error: BaseException | None = None

        def play() -> None:
            try:
                self.done = run_console(
                    scenario,
                    resume=resume,
                    served=self.served,
                    paused=paused,
                    progress=False,
                    on_progress=on_progress,
                    overrides=overrides,
                )
            except BaseException as exc:  # the test reads it
                self.error = exc
            finally:
                self._ready.set()

        self.thread = threading.Thread(target=play, name="console-run", daemon=True)
        self.thread.start()
        assert self._ready.wait(WAIT_S), "the console never started"
        if self.error is not None:
            raise self.error
        self.base, self.token = self.served.url.split("/console.html?token=")

    def call(
        self,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        token: str | None = "",
        headers: dict[str, str] | None = None,
    ) -> tuple[int, Any]:
        """A console call (GET without a body); `token` None sends none, "" this run's."""
        sent = {"Content-Type": "application/json", **(headers or {})}
        if token is not None:
            sent["X-Console-Token"] = token or self.token
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, headers=sent, method="GET" if body is None else "POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            text = refused.read().decode()
            try:
                return refused.code, json.loads(text)
            except ValueError:
                return refused.code, text

    def act(self, **body: Any) -> dict[str, Any]:
        status, answer = self.call("/console/act", body)
        assert status == 200, answer
        return dict(answer)

    def wait(self, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The run's status once `ready` says so (the run still going)."""
        end = time.monotonic() + WAIT_S
        while time.monotonic() < end:
            status = self.call("/console/status")[1]
            if ready(status):
                return dict(status)
            assert self.thread.is_alive(), f"the run ended early: {self.error!r}"
            time.sleep(0.05)
        raise AssertionError("the run never reached the state waited for")

    def paused_at(self, step: int) -> dict[str, Any]:
        return self.wait(lambda s: s["paused"] and s["step"] == step and not s["queued"])

    def finish(self) -> RunDir | BaseException:
        """Wait for the run to end; its run directory (or what stopped it)."""
        self.thread.join(WAIT_S * 3)
        assert not self.thread.is_alive(), "the run did not end"
        if self.done is not None:
            return self.done
        assert self.error is not None
        return self.error

    def close(self) -> None:
        """Let a paused run go on to its end, then stop the server."""
        if self.thread.is_alive() and not self.call("/console/status")[1].get("finished"):
            self.call("/console/act", {"action": "resume"})
        self.served.stop()
        self.thread.join(WAIT_S * 3)


def played(
    scenario: Scenario,
    play: Callable[[ConsoleRun], None],
    on_progress: Callable[[Progress], None] | None = None,
) -> RunDir | BaseException:
    """`scenario` run with a console that `play` drives; its run (or what stopped it)."""
    console = ConsoleRun(scenario, on_progress=on_progress)
    try:
        play(console)
        return console.finish()
    finally:
        console.close()


def killed_and_resumed(
    make: Callable[[Path], Scenario], play: Callable[[ConsoleRun], None], root: Path, step: int
) -> tuple[RunDir, RunDir]:
    """The run `play` drives, whole; and the same run killed at `step`, then resumed without
    a console (the log's actions are taken up again)."""
    whole = played(make(root / "whole"), play)
    assert isinstance(whole, RunDir), whole

    def stop(progress: Progress) -> None:
        if progress.step == step:
            raise RuntimeError("the machine went down")

    assert isinstance(played(make(root / "cut"), play, stop), RuntimeError)
    (path,) = (root / "cut").iterdir()
    return whole, resume(path, progress=False)
