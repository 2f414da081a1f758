"""A local OpenAI-compatible server in one call: a GGUF model (the embedded one by default)
served by xllamacpp, llama.cpp's server in-process, on 127.0.0.1 only.

`simulacra serve` starts it and prints the `--model openai:...` spec that runs a scenario
against it. Several slots serve calls in parallel, which the embedded backend does inside a
run too; a server is shared by runs, sweeps' workers and notebooks alike.
"""

from __future__ import annotations

import gc
import socket
from dataclasses import dataclass, field
from typing import Any

from simulacra.errors import UserError
from simulacra.llm.catalogue import DEFAULT_MODEL
from simulacra.llm.embedded import DEFAULT_THREADS, find_gguf

HOST = "127.0.0.1"
DEFAULT_PORT = 8080  # llama.cpp's server's
PORT_TRIES = 20  # a busy port gives way to the next free one of these


class ServeError(UserError):
    """A model that cannot be served: no such file, a port that cannot be had."""


@dataclass
class Served:
    """A running server: its model's name, its URL and the spec that reaches it."""

    model: str
    url: str  # the OpenAI base URL, ending in /v1
    port: int
    slots: int
    threads: int
    _server: Any = field(default=None, repr=False)

    @property
    def spec(self) -> str:
        return f"openai:{self.url}?model={self.model}"

    def stop(self) -> None:
        """Stop serving (xllamacpp's server stops when its object is freed)."""
        self._server = None
        gc.collect()


def serve(
    name: str = "embedded",
    *,
    port: int = DEFAULT_PORT,
    slots: int = 4,
    threads: int = DEFAULT_THREADS,
    context_per_slot: int = 2048,
) -> Served:
    """Serve `name` (embedded, a catalogue model's name, or a path to a .gguf file) on
    127.0.0.1:`port`, or the next free port; 0 takes any free one."""
    path = find_gguf(_gguf_name(name))
    if slots < 1 or threads < 1:
        raise ServeError(f"slots and threads must be at least 1, not {slots} and {threads}")
    chosen = _free_port(port)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {path.stem}
    params.port = chosen
    params.n_parallel = slots
    params.n_ctx = context_per_slot * slots
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = 0
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:
        raise ServeError(f"could not serve {path} on port {chosen}: {exc}") from exc
    url = f"{server.listening_address}/v1"
    return Served(path.stem, url, chosen, slots, threads, server)


def _gguf_name(name: str) -> str:
    if name in ("", "embedded"):
        return DEFAULT_MODEL
    return name.removeprefix("embedded:")


def _free_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise ServeError(f"port {port} does not exist; give one from 1024 to 65535, or 0")
    candidates = [0] if port == 0 else range(port, min(port + PORT_TRIES, 65536))
    for candidate in candidates:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind((HOST, candidate))
            except OSError:
                continue
            return int(probe.getsockname()[1])
    raise ServeError(
        f"ports {port} to {port + PORT_TRIES - 1} on {HOST} are all in use; give another "
        "with --port, or 0 for any free one"
    )
