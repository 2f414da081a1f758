"""A dead model stops a run early and says which endpoint; a run that finishes mostly on
fallback answers exits non-zero and prints the share. Against real sockets on 127.0.0.1: a
port where nothing listens, and our misbehaving server."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from simulacra.cli import app
from simulacra.llm.fault_server import FaultServer, closed_port_url
from simulacra.runlog import RunDir, read_events

from .conftest import ELFAROL, run_dirs, sets, small_elfarol

runner = CliRunner()


def _run(root: Path, url: str, *extra: str) -> tuple[int, str, RunDir]:
    """Five El Farol agents for four weeks on the openai-compatible model at `url`."""
    overrides = small_elfarol(root, "agents.count=5", "clock.ticks=4", *extra)
    result = runner.invoke(
        app, ["run", str(ELFAROL), *sets(overrides), "--model", f"openai:{url}?model=fake"]
    )
    assert "Traceback" not in result.output
    (run_dir,) = [RunDir(p) for p in run_dirs(root)]
    return result.exit_code, result.output, run_dir


def _calls(run_dir: RunDir) -> int:
    return sum(1 for _ in read_events(run_dir.events_path, {"llm.call"}))


def test_a_refused_endpoint_stops_the_run_after_ten_calls_and_names_it(tmp_path: Path) -> None:
    url = closed_port_url()
    code, output, run_dir = _run(tmp_path, url)
    assert code == 2 and output.startswith("error: run ")
    assert f"at {url} did not answer 10 calls in a row" in output
    assert "ConnectError" in output and "simulacra run --resume" in output
    info = run_dir.info()
    assert info["status"] == "failed" and url in info["error"]
    assert _calls(run_dir) < 20  # it stopped before the end


def test_how_many_silent_calls_stop_a_run_is_the_scenarios_choice(tmp_path: Path) -> None:
    code, output, run_dir = _run(tmp_path, closed_port_url(), "model.unreachable_after=3")
    assert code == 2 and "did not answer 3 calls in a row" in output
    assert _calls(run_dir) < 5


def test_an_endpoint_that_never_answers_stops_the_run_after_its_timeouts(tmp_path: Path) -> None:
    with FaultServer("slow", slow_s=30) as server:
        code, output, run_dir = _run(
            tmp_path,
            server.url,
            "model.timeout_s=0.3",
            "model.attempts=1",
            "model.unreachable_after=2",
        )
    assert code == 2
    assert f"at {server.url} did not answer 2 calls in a row" in output
    assert "timed out after 0.3 s" in output or "ReadTimeout" in output
    assert run_dir.info()["status"] == "failed"


def test_a_run_finished_on_fallbacks_exits_non_zero_and_prints_the_share(tmp_path: Path) -> None:
    with FaultServer("malformed") as server:
        code, output, run_dir = _run(tmp_path / "strict", server.url)
        assert code == 2
        assert output.startswith("run finished:")  # where it went, then why it failed
        assert "error: run " in output
        assert "100% of its 20 model calls (20) were answered by the declared fallback" in output
        assert "model.max_fallback_rate (50%)" in output
        assert run_dir.info()["status"] == "completed"

        code, output, _ = _run(tmp_path / "lenient", server.url, "model.max_fallback_rate=1")
        assert code == 0, output
