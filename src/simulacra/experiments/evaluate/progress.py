"""Progress of an evaluation: stages of a known number of steps (the command draws a bar)."""

from __future__ import annotations

from typing import Protocol


class Steps(Protocol):
    def start(self, stage: str, total: int) -> None: ...

    def advance(self) -> None: ...


class _Quiet:
    def start(self, stage: str, total: int) -> None:
        pass

    def advance(self) -> None:
        pass


quiet: Steps = _Quiet()
