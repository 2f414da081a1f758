"""`simulacra serve`: the embedded GGUF served by xllamacpp on 127.0.0.1 in one command, the
spec it prints answers a structured request, a busy port gives way, and Ctrl+C stops it."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from pydantic import BaseModel, Field

from simulacra.llm import Request, chat, load_model

pytestmark = pytest.mark.slow

SERVE = [sys.executable, "-m", "simulacra", "serve", "--slots", "1"]


class Mood(BaseModel):
    mood: str = Field(description="one word")


@contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    child = subprocess.Popen(
        [*SERVE, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    try:
        assert child.stdout is not None
        for line in child.stdout:
            said.append(line.rstrip("\n"))
            if "press Ctrl+C to stop" in line:
                break
        yield child, said
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def _spec(said: list[str]) -> str:
    found = next(re.search(r'model spec: "([^"]+)"', line) for line in said if "model spec" in line)
    assert found is not None, said
    return found.group(1)


async def test_the_printed_spec_answers_and_ctrl_c_stops_the_server() -> None:
    with serving("--port", "0") as (child, said):
        spec = _spec(said)
        assert re.fullmatch(
            r"openai:http://127\.0\.0\.1:\d+/v1\?model=SmolLM2-135M-Instruct\.Q8_0", spec
        )
        model = load_model(spec, timeout_s=120)
        asked = Request(chat("Answer in JSON.", "How do you feel?"), output=Mood, max_tokens=24)
        completion = await model.complete(asked)
        await model.aclose()
        assert not completion.fallback and isinstance(completion.value, Mood), completion.error
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=60)
        assert child.returncode == 0 and "stopped" in out
    port = int(spec.split(":")[3].split("/")[0])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_a_busy_port_gives_way_to_the_next_free_one() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        with serving("--port", str(busy)) as (_child, said):
            assert f"port {busy} is in use; serving on port" in said[0]
            assert f"127.0.0.1:{busy}/" not in _spec(said)


def test_a_model_file_that_is_not_there_is_named() -> None:
    done = subprocess.run([*SERVE, "nowhere.gguf"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("error: embedded model file nowhere.gguf does not exist")
