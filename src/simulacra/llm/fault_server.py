"""A misbehaving OpenAI-compatible server on 127.0.0.1, for fault tests and the gateway
benchmark: it answers late, fails, cuts bodies short or sends garbage, on purpose.

    with FaultServer("error", "ok", latency_s=0.01) as server:   # modes cycle per request
        load_model(f"openai:{server.url}?model=fake")

It speaks just enough HTTP/1.1 (keep-alive, Content-Length or chunked bodies) for an HTTP
client and runs its own event loop in a thread, or in a child process so that it never
competes with the client for the GIL.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.context import SpawnProcess
from typing import Any, Literal, Self

Mode = Literal["ok", "slow", "error", "truncated", "malformed", "fenced", "chunked", "closing"]
MODES: tuple[Mode, ...] = (
    "ok",
    "slow",
    "error",
    "truncated",
    "malformed",
    "fenced",
    "chunked",
    "closing",
)
_CTX = multiprocessing.get_context("spawn")


@dataclass(frozen=True)
class FaultPlan:
    """How the server behaves. Modes apply to requests in turn, cycling:
    ok: a chat completion whose content is `content`;
    slow: the same, but only after `slow_s` seconds;
    error: HTTP 500;
    truncated: a 200 whose body stops halfway, then the connection closes;
    malformed: a 200 whose body is not JSON;
    fenced: `content` wrapped in prose and a code fence, with a trailing comma;
    chunked: a good answer sent in chunks (Transfer-Encoding: chunked), as Go servers do;
    closing: a good answer with `Connection: close`, then the connection closes.
    Every answer waits `latency_s` first. `answers` maps a response_format schema name to the
    content for requests that name it (a stand-in for a served model in benchmarks);
    `capacity` answers at most that many requests at once, the others queue (0: no limit),
    as a server with that many batch slots. `respond`, where given, reads a request (its
    parsed body) and returns the content, or None for the answer above: a benchmark's
    stand-in that acts on its prompt (a module-level function, to reach a child process)."""

    modes: tuple[Mode, ...] = ("ok",)
    latency_s: float = 0.0
    slow_s: float = 30.0
    content: str = '{"answer": "yes"}'
    answers: tuple[tuple[str, str], ...] = ()
    capacity: int = 0
    respond: Callable[[dict[str, Any]], str | None] | None = None


def closed_port_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens: connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class FaultServer:
    """Start with `with FaultServer(...) as server:`; `server.url` is the base URL and
    `server.requests` the number of requests it has received."""

    def __init__(
        self,
        *modes: Mode,
        latency_s: float = 0.0,
        slow_s: float = 30.0,
        content: str = '{"answer": "yes"}',
        own_process: bool = False,
        answers: Mapping[str, str] | None = None,
        capacity: int = 0,
        respond: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> None:
        bad = [m for m in modes if m not in MODES]
        if bad:
            raise ValueError(f"unknown fault mode(s) {bad}; known: {list(MODES)}")
        pairs = tuple(sorted((answers or {}).items()))
        self.plan = FaultPlan(
            modes or ("ok",), latency_s, slow_s, content, pairs, capacity, respond
        )
        self.own_process = own_process
        self.port = 0
        # Shared memory, readable from the parent process: requests, in flight, peak in flight.
        self._counters: Any = _CTX.RawArray("q", 3)
        self._stop = _CTX.Event()
        self._worker: threading.Thread | SpawnProcess | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> int:
        """Requests received so far."""
        return int(self._counters[0])

    @property
    def peak_in_flight(self) -> int:
        """The most requests it was answering at one time."""
        return int(self._counters[2])

    def start(self) -> Self:
        ports = _CTX.SimpleQueue()
        args = (self.plan, self._counters, self._stop, ports)
        if self.own_process:
            self._worker = _CTX.Process(target=_serve, args=args, daemon=True)
        else:
            self._worker = threading.Thread(target=_serve, args=args, daemon=True)
        self._worker.start()
        self.port = int(ports.get())
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._worker is not None:
            self._worker.join(timeout=5)
            if isinstance(self._worker, SpawnProcess) and self._worker.is_alive():
                self._worker.terminate()
                self._worker.join(timeout=5)
            self._worker = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(plan: FaultPlan, counters: Any, stop: Any, ports: Any) -> None:
    asyncio.run(_serve_until_stopped(plan, counters, stop, ports))


async def _serve_until_stopped(plan: FaultPlan, counters: Any, stop: Any, ports: Any) -> None:
    connections: set[asyncio.Task[Any]] = set()
    slots = asyncio.Semaphore(plan.capacity) if plan.capacity else None

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            connections.add(task)
        try:
            while await _answer_one(reader, writer, plan, counters, slots):
                pass
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        except asyncio.CancelledError:
            pass  # stopping; Python 3.11's stream callback reports cancelled handlers as errors
        finally:
            writer.close()
            connections.discard(task)

    server = await asyncio.start_server(on_connection, "127.0.0.1", 0, backlog=1024)
    ports.put(server.sockets[0].getsockname()[1])
    while not stop.is_set():
        await asyncio.sleep(0.05)
    server.close()
    # Connections still waiting (a slow answer) are cut, so that stopping never waits on them.
    for task in list(connections):
        task.cancel()
    await asyncio.gather(*connections, return_exceptions=True)


async def _answer_one(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    plan: FaultPlan,
    counters: Any,
    slots: asyncio.Semaphore | None,
) -> bool:
    """Read one request and answer it; False when the connection must close."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    body = await reader.readexactly(length)
    mode = plan.modes[counters[0] % len(plan.modes)]
    counters[0] += 1
    counters[1] += 1
    counters[2] = max(counters[2], counters[1])
    content = _content_for(plan, body) if plan.answers or plan.respond else plan.content
    try:
        if slots is None:
            return await _misbehave(writer, plan, mode, content, len(body))
        async with slots:
            return await _misbehave(writer, plan, mode, content, len(body))
    finally:
        counters[1] -= 1


def _content_for(plan: FaultPlan, body: bytes) -> str:
    """The responder's answer; else the one for the schema a request names; else the plan's
    content."""
    try:
        request = json.loads(body)
    except ValueError:
        return plan.content
    said = plan.respond(request) if plan.respond is not None else None
    if said is not None:
        return said
    try:
        name = request["response_format"]["json_schema"]["name"]
    except (KeyError, TypeError):
        return plan.content
    return dict(plan.answers).get(name, plan.content)


async def _misbehave(
    writer: asyncio.StreamWriter, plan: FaultPlan, mode: Mode, content: str, size: int
) -> bool:
    if plan.latency_s:
        await asyncio.sleep(plan.latency_s)
    if mode == "slow":
        await asyncio.sleep(plan.slow_s)
    if mode == "error":
        _respond(writer, 500, b'{"error": {"message": "injected fault"}}')
    elif mode == "malformed":
        _respond(writer, 200, b"<html><body>502 Bad Gateway</body></html>")
    else:
        if mode == "fenced":
            content = f"Sure! Here it is:\n```json\n{content[:-1].rstrip()},}}\n```\nHope it helps."
        payload = _completion(content, size)
        if mode == "chunked":
            _respond_chunked(writer, payload)
        elif mode == "closing":
            _respond(writer, 200, payload, close=True)
            await writer.drain()
            return False
        elif mode == "truncated":
            # Declare the whole body, send half, hang up: the client sees a cut transfer.
            _respond(writer, 200, payload, send=len(payload) // 2)
            await writer.drain()
            return False
        else:
            _respond(writer, 200, payload)
    await writer.drain()
    return True


def _completion(content: str, request_bytes: int) -> bytes:
    prompt_tokens = max(1, request_bytes // 4)
    completion_tokens = max(1, len(content) // 4)
    return json.dumps(
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "model": "fault-server",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
    ).encode()


def _respond(
    writer: asyncio.StreamWriter, status: int, payload: bytes, send: int = -1, close: bool = False
) -> None:
    reason = {200: "OK", 500: "Internal Server Error"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(payload)}\r\nConnection: {'close' if close else 'keep-alive'}"
        "\r\n\r\n"
    ).encode()
    writer.write(head + (payload if send < 0 else payload[:send]))


def _respond_chunked(writer: asyncio.StreamWriter, payload: bytes, size: int = 40) -> None:
    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    parts = [payload[i : i + size] for i in range(0, len(payload), size)]
    body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts)
    writer.write(head + body + b"0\r\n\r\n")
