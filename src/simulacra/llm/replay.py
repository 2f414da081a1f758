"""The replay backend: answers only from a finished run's response cache.

Keys are computed with the name of the model the run used, so each attempt of each call finds
the reply, or the recorded fault, that the run itself got: the name its calls logged, else
the name of the spec its run.json records (a spec such as `embedded` names the default model,
which may since have changed).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from simulacra.errors import UserError
from simulacra.llm.cache import SqliteCache, cache_key
from simulacra.llm.embedded import SLOT_CONTEXT
from simulacra.llm.gateway import ModelFailure
from simulacra.llm.types import RawReply, Request

CACHE_FILE = "llm_cache.sqlite"
RUN_INFO_FILE = "run.json"
EVENTS_FILE = "events.jsonl"


class ReplayMiss(ModelFailure, UserError):
    """The run being replayed never made this call."""


class RecordedFault(RuntimeError):
    """An attempt that failed in the original run fails again, the same way, in its replay."""


def recorded_model(run_dir: Path) -> str:
    """The model spec a run used, from its run.json."""
    info_path = run_dir / RUN_INFO_FILE
    if not info_path.is_file():
        raise FileNotFoundError(
            f"replay:{run_dir}: no {RUN_INFO_FILE} there; give the directory of a finished run"
        )
    try:
        info: Any = json.loads(info_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"replay:{run_dir}: {info_path} is not JSON ({exc.msg})") from exc
    model = info.get("model") if isinstance(info, dict) else None
    if not isinstance(model, str) or not model:
        raise ValueError(f'replay:{run_dir}: {info_path} records no "model" spec')
    return model


def logged_model(run_dir: Path) -> str | None:
    """The model name of the run's first logged call, or None if it logged none."""
    path = run_dir / EVENTS_FILE
    if not path.is_file():
        return None
    with path.open(encoding="utf-8") as events:
        for line in events:
            if '"llm.call"' not in line:
                continue
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                return None  # a torn last line
            name = event.get("data", {}).get("model") if event.get("kind") == "llm.call" else None
            if isinstance(name, str) and name:
                return name
    return None


class ReplayBackend:
    """Called by the Gateway only when the cache has no reply for an attempt: it replays a
    recorded fault, or reports that the run never asked this."""

    def __init__(
        self,
        run_dir: Path,
        cache: SqliteCache,
        original_spec: str,
        original_name: str,
    ) -> None:
        self.run_dir = run_dir
        self.cache = cache
        self.original_spec = original_spec
        # The original name, so that the Gateway's keys are the keys the run wrote.
        self.name = original_name
        # An embedded run sized its prompts to the slot's window; a replay must too.
        embedded = original_spec.partition(":")[0].partition("?")[0] == "embedded"
        self.context_tokens = SLOT_CONTEXT if embedded else None

    async def generate(
        self, request: Request, schema: dict[str, Any] | None, seed: int
    ) -> RawReply:
        fault = self.cache.get_failure(cache_key(self.name, request, schema, seed))
        if fault is not None:
            raise RecordedFault(f"as in the original run: {fault}")
        agent = f" for agent {request.agent}" if request.agent else ""
        raise ReplayMiss(
            f"replay:{self.run_dir}: the run never asked {request.purpose!r}{agent} with seed "
            f"{seed} and these messages, so its cache {self.cache.path} has no answer. The "
            f"replay has diverged from the run (changed code, config or prompts?); re-run "
            f"with the original model instead: --model '{self.original_spec}'"
        )


def open_replay(run_dir: str | Path, name_of: Callable[[str], str]) -> ReplayBackend:
    """A replay backend over a run directory; `name_of` maps the run's spec to its model name."""
    path = Path(run_dir).expanduser()
    spec = recorded_model(path)
    if spec.startswith("replay:"):
        raise ValueError(
            f"replay:{path}: that run was itself a replay of {spec[7:]}; replay that one instead"
        )
    cache_path = path / CACHE_FILE
    if not cache_path.is_file():
        raise FileNotFoundError(
            f"replay:{path}: no {CACHE_FILE} there; only runs made with a response cache "
            "can be replayed"
        )
    name = logged_model(path) or name_of(spec)
    return ReplayBackend(path, SqliteCache(cache_path, readonly=True), spec, name)
