"""The run directory: config.yaml, run.json, events.jsonl and what is derived from them."""

from __future__ import annotations

import functools
import json
import logging
import platform
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from simulacra.errors import UserError
from simulacra.runlog.events import RunEnded
from simulacra.runlog.lock import RunLock
from simulacra.runlog.output import check_output_root, remove_run
from simulacra.runlog.writer import EventWriter

_TRACKED_PACKAGES = ("simulacra", "numpy", "pydantic", "xllamacpp", "onnxruntime")
STATUSES = ("running", "completed", "failed", "interrupted", "stopped: budget")
log = logging.getLogger(__name__)


class RunDirError(UserError):
    """A folder that is not a run directory, or whose own files are damaged."""


@functools.cache
def _versions() -> tuple[tuple[str, str], ...]:
    found = {"python": platform.python_version()}
    for name in _TRACKED_PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return tuple(found.items())


def versions() -> dict[str, str]:
    """The versions of Python and the packages a run depends on (read once per process)."""
    return dict(_versions())


@dataclass(frozen=True)
class RunDir:
    path: Path
    # The folders made for a new run directory (itself last), removed if its start fails.
    created: tuple[Path, ...] = field(default=(), compare=False, repr=False)

    @property
    def events_path(self) -> Path:
        return self.path / "events.jsonl"

    @property
    def run_json(self) -> Path:
        return self.path / "run.json"

    @property
    def config_path(self) -> Path:
        return self.path / "config.yaml"

    @classmethod
    def create(
        cls,
        root: str | Path,
        scenario: str,
        *,
        seed: int,
        model: str,
        config: dict[str, Any],
        extra: dict[str, Any] | None = None,
    ) -> RunDir:
        """A new run directory under `root`, after checking that `root` can hold it; if
        writing its first files fails, nothing is left behind."""
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        path = Path(root) / f"{scenario}-{stamp}-{secrets.token_hex(3)}"
        created = check_output_root(path)
        run = cls(path, tuple(created))
        try:
            path.mkdir(parents=True, exist_ok=False)
            run.config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
            run.write_info(
                {
                    "scenario": scenario,
                    "seed": seed,
                    "model": model,
                    "versions": versions(),
                    "started": time.time(),
                    "ended": None,
                    "status": "running",
                    **(extra or {}),
                }
            )
        except BaseException:
            remove_run(path, created)
            raise
        return run

    def discard(self) -> None:
        """Remove a new run directory whose start failed, and the empty folders made for it."""
        remove_run(self.path, list(self.created))

    @classmethod
    def open(cls, path: str | Path) -> RunDir:
        run = cls(Path(path))
        if not run.run_json.is_file():
            raise RunDirError(
                f"{path}: not a run directory (no run.json); pass a folder that `simulacra run` "
                "wrote, such as runs/<scenario>-<date>-<time>-<id>"
            )
        return run

    def info(self) -> dict[str, Any]:
        return _mapping(self.run_json, json.loads, "the run's status file")

    def write_info(self, info: dict[str, Any]) -> None:
        # Write then rename, so that a kill never leaves half a run.json.
        tmp = self.run_json.with_suffix(".json.tmp")
        try:
            tmp.write_text(json.dumps(info, indent=2, sort_keys=True), encoding="utf-8")
            tmp.replace(self.run_json)
        finally:
            tmp.unlink(missing_ok=True)

    def set_status(self, status: str, **extra: Any) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown run status {status!r}; expected one of {STATUSES}")
        info = self.info()
        info.update(extra, status=status)
        if status in ("running", "completed"):
            info.pop("error", None)  # the stop it was resumed from is over
        if status != "running":
            info["ended"] = time.time()
        self.write_info(info)

    def record_failure(self, writer: EventWriter, exc: BaseException) -> None:
        """Close the log with a `run.end` event saying why, and mark the run failed or
        interrupted (a Ctrl+C), so that `--resume` knows it may continue. Writing the log may
        fail too (the disk that failed the run is still full): run.json then says both."""
        error = f"{type(exc).__name__}: {exc}"
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        try:
            if not writer.closed:
                writer.emit(RunEnded(status=status, error=error))
                writer.close()
        except Exception as second:
            writer.abandon()
            error += f" (the log could not record it: {type(second).__name__}: {second})"
        try:
            self.set_status(status, error=error)
        except Exception:
            log.exception("%s: could not mark the run %s: %s", self.path, status, error)

    def config(self) -> dict[str, Any]:
        return _mapping(self.config_path, yaml.safe_load, "the run's resolved scenario")

    def lock(self) -> RunLock:
        """Hold this run for writing; raises RunLocked while another process writes it."""
        return RunLock.acquire(self.path)

    def writer(self, *, truncate_at: int | None = None) -> EventWriter:
        return EventWriter(self.events_path, truncate_at=truncate_at)


def _mapping(path: Path, parse: Callable[[str], Any], what: str) -> dict[str, Any]:
    """A run's file that holds a mapping; one that cannot be read as one is damaged."""
    try:
        data = parse(path.read_text(encoding="utf-8"))
    except (ValueError, yaml.YAMLError, OSError) as exc:
        data = exc
    if not isinstance(data, dict):
        why = data if isinstance(data, Exception) else f"a {type(data).__name__}, not a mapping"
        raise RunDirError(
            f"{path}: unreadable ({why}); {what} is damaged: restore it from a copy, or run "
            "the scenario again"
        )
    return data
