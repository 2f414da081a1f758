"""`simulacra run --console` as a person starts it: the address it prints, the console
there, `simulacra view RUN --live --console`, and Ctrl+C once the run is over."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.engine.test_conformance import SCENARIOS, small

SRC = Path(__file__).resolve().parents[2] / "src"


def _simulacra(*args: str) -> list[str]:
    return [sys.executable, "-m", "simulacra", *args]


def test_run_console_prints_its_address_serves_it_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    sets = [a for s in small("town", tmp_path) for a in ("--set", s)]
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        _simulacra("run", str(SCENARIOS / "town.yaml"), *sets, "--console", "--paused"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        printed = ""
        while "console:" not in printed:
            line = process.stdout.readline()
            assert line, f"the run ended before its console started: {printed}"
            printed += line
        url = re.search(r"http://127\.0\.0\.1:\d+/console\.html\?token=\S+", printed)
        assert url is not None, printed
        base, token = url.group(0).split("/console.html?token=")
        (run,) = [p for p in tmp_path.iterdir() if p.is_dir()]
        shown = subprocess.run(
            _simulacra("view", str(run), "--live", "--console"),
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=True,
        )
        assert url.group(0) in shown.stdout
        assert (run / "console.url").stat().st_mode & 0o077 == 0  # this user's alone

        def act(body: dict[str, object]) -> dict[str, object]:
            request = urllib.request.Request(
                base + "/console/act",
                data=json.dumps(body).encode(),
                method="POST",
                headers={"X-Console-Token": token, "Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as answer:
                return dict(json.loads(answer.read()))

        thought = {"type": "thought", "agents": ["marta_okafor"], "text": "Buy flowers."}
        assert act({"action": "intervene", "intervention": thought})["ok"]
        assert act({"action": "resume"})["ok"]
        while "Ctrl+C" not in printed:
            line = process.stdout.readline()
            assert line, printed
            printed += line
        assert "simulacra run " + str(run / "scheduled.yaml") in printed
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=60) == 0
        assert not (run / "console.url").exists()
        status = json.loads((run / "run.json").read_text())["status"]
        assert status == "completed"
        # Its config with the thought scheduled writes the same run: diff finds nothing.
        again = tmp_path / "again"
        subprocess.run(
            _simulacra("run", str(run / "scheduled.yaml"), "--set", f"output.root={again}"),
            env=env,
            timeout=300,
            check=True,
            capture_output=True,
        )
        (other,) = again.iterdir()
        diff = subprocess.run(
            _simulacra("diff", str(run), str(other)),
            env=env,
            timeout=120,
            capture_output=True,
            text=True,
        )
        assert diff.returncode == 0, diff.stdout + diff.stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
