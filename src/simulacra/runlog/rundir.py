"""The run directory: config.yaml, run.json, events.jsonl and what is derived from them."""

from __future__ import annotations

import functools
import json
import platform
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from simulacra.runlog.events import RunEnded
from simulacra.runlog.writer import EventWriter

_TRACKED_PACKAGES = ("simulacra", "numpy", "pydantic", "xllamacpp", "onnxruntime")
STATUSES = ("running", "completed", "failed", "interrupted")


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
        stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
        path = Path(root) / f"{scenario}-{stamp}-{secrets.token_hex(3)}"
        path.mkdir(parents=True, exist_ok=False)
        run = cls(path)
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
        return run

    @classmethod
    def open(cls, path: str | Path) -> RunDir:
        run = cls(Path(path))
        if not run.run_json.exists():
            raise FileNotFoundError(f"{path}: not a run directory (no run.json)")
        return run

    def info(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.run_json.read_text(encoding="utf-8"))
        return data

    def write_info(self, info: dict[str, Any]) -> None:
        # Write then rename, so that a kill never leaves half a run.json.
        tmp = self.run_json.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(info, indent=2, sort_keys=True), encoding="utf-8")
        tmp.replace(self.run_json)

    def set_status(self, status: str, **extra: Any) -> None:
        if status not in STATUSES:
            raise ValueError(f"unknown run status {status!r}; expected one of {STATUSES}")
        info = self.info()
        info.update(extra, status=status)
        if status != "running":
            info["ended"] = time.time()
        self.write_info(info)

    def record_failure(self, writer: EventWriter, exc: BaseException) -> None:
        """Close the log with a `run` event saying why, and mark the run failed or interrupted
        (a Ctrl+C), so that `--resume` knows it may continue."""
        error = f"{type(exc).__name__}: {exc}"
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        writer.emit(RunEnded(status=status, error=error))
        writer.close()
        self.set_status(
            "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed", error=error
        )

    def config(self) -> dict[str, Any]:
        data: dict[str, Any] = yaml.safe_load(self.config_path.read_text(encoding="utf-8"))
        return data

    def writer(self, *, truncate_at: int | None = None) -> EventWriter:
        return EventWriter(self.events_path, truncate_at=truncate_at)
