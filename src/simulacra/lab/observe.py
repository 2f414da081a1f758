"""What a sandboxed command did, seen from outside the sandbox, where its code cannot forge it.

Two observers run beside every command while it runs:

- `Processes` polls the command's process tree (psutil) and keeps, for each process it sees,
  the executable's name, its arguments and its working folder, and for a simulator (`sumo`,
  `sumo-gui`) the files of the attempt it held open for writing. A TraCI-steered SUMO lives as
  long as its script steps it, so a poll every `POLL_S` sees it; a short-lived process may go
  unseen, which only ever costs a claim its evidence, never grants one. A descendant is born
  after its parent, so only the processes numbered above the sandbox's are read (a scan of
  every process costs tens of milliseconds on a busy machine).
- `Writes` asks the kernel (inotify) for every file under the folder that was opened,
  modified, closed (after writing or not), created, moved in or out, or deleted, in order,
  whoever did it, so a script cannot write a file unseen. The kernel merges an event with an
  identical one still unread, so two writers' closes can look like one; the opening of the
  second writer between them cannot be merged away, and is kept. Repeats in a row of one
  file's events are kept once.

Inotify is used through ctypes: the maintained wrappers (watchdog) deliver events on threads
and hold moves back to pair them, where the record needs every event, in order, when the
command ends.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct
from pathlib import Path

import psutil
from pydantic import BaseModel, ConfigDict, Field

POLL_S = 0.05
SIMULATORS = frozenset({"sumo", "sumo-gui"})  # whose open files are kept
MAX_PROCESSES = 200  # processes kept per command: a fork bomb must not fill the record
MAX_ARGV_CHARS = 2000
SKIPPED = ("logs", "home")  # logs are the harness's; home/ holds caches

_MODIFY, _CLOSE_WRITE, _CLOSE_NOWRITE, _OPEN = 0x2, 0x8, 0x10, 0x20
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_OVERFLOW, _IGNORED, _ISDIR = 0x4000, 0x8000, 0x40000000
_KINDS = {
    _CREATE: "created",
    _OPEN: "opened",
    _MODIFY: "modified",
    _CLOSE_NOWRITE: "read",
    _CLOSE_WRITE: "written",
    _MOVED_FROM: "moved away",
    _MOVED_TO: "moved in",
    _DELETE: "deleted",
}
_EVENT = struct.Struct("iIII")


class Process(BaseModel):
    """One process the command ran, as seen from outside the sandbox."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the executable's file name")
    argv: list[str] = Field(default_factory=list)
    cwd: str = Field(default="", description="its working folder, relative to the attempt")
    writing: list[str] = Field(
        default_factory=list,
        description="for a simulator, the files of the attempt it held open for writing",
    )

    def option(self, name: str) -> str | None:
        """The value of `--name VALUE` or `--name=VALUE` in its arguments."""
        for k, arg in enumerate(self.argv):
            if arg == f"--{name}" and k + 1 < len(self.argv):
                return self.argv[k + 1]
            if arg.startswith(f"--{name}="):
                return arg.partition("=")[2]
        return None


class Processes:
    """Polls the process tree under one process (the sandbox's bwrap)."""

    def __init__(self, pid: int, root: Path) -> None:
        self.root = root.resolve()
        self.pid = pid
        self.seen: dict[tuple[int, float, str], Process] = {}

    def _children(self) -> list[psutil.Process]:
        family, found = {self.pid}, []
        for pid in sorted(p for p in psutil.pids() if p > self.pid):
            try:
                child = psutil.Process(pid)
                if child.ppid() in family:
                    family.add(pid)
                    found.append(child)
            except psutil.Error:
                continue
        return found

    def poll(self) -> None:
        for child in self._children():
            try:
                # A process that replaced its program (exec) is a new one to the record.
                key = (child.pid, child.create_time(), _exe(child))
                known = self.seen.get(key)
                if known is None:
                    if len(self.seen) >= MAX_PROCESSES or not child.cmdline():
                        continue
                    known = self.seen[key] = self._describe(child, key[2])
                if known.name not in SIMULATORS:
                    continue
                for opened in child.open_files():
                    path = self._inside(opened.path)
                    if path is None or path.split("/")[0] in SKIPPED:
                        continue  # outside the attempt, or the harness's own logs
                    if opened.mode != "r" and path not in known.writing:
                        known.writing.append(path)
            except psutil.Error:
                continue  # it ended between the listing and the look

    def processes(self) -> list[Process]:
        return list(self.seen.values())

    def _describe(self, child: psutil.Process, exe: str) -> Process:
        argv, total = [], 0
        for arg in child.cmdline():
            total += len(arg)
            if total > MAX_ARGV_CHARS:
                break
            argv.append(arg)
        return Process(name=Path(exe).name, argv=argv, cwd=self._inside(child.cwd()) or "")

    def _inside(self, path: str) -> str | None:
        resolved = Path(path)
        if resolved == self.root:
            return "."
        if self.root not in resolved.parents:
            return None
        return str(resolved.relative_to(self.root))


def _exe(child: psutil.Process) -> str:
    try:
        return str(child.exe() or child.name())
    except psutil.AccessDenied:
        return str(child.name())


class Writes:
    """Kernel-reported changes to the files under `root` (logs/ and home/ aside)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.events: dict[str, list[str]] = {}
        self.overflowed = False
        self._libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._folders: dict[int, Path] = {}
        for folder, dirs, _ in os.walk(self.root):
            here = Path(folder)
            if here == self.root:
                dirs[:] = [d for d in dirs if d not in SKIPPED]
            self._watch(here)

    def _watch(self, folder: Path) -> None:
        mask = 0
        for bit in _KINDS:
            mask |= bit
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), mask)
        if wd >= 0:
            self._folders[wd] = folder

    def poll(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 1 << 20)
            except BlockingIOError:
                return
            at = 0
            while at < len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size : at + _EVENT.size + length].rstrip(b"\0")
                at += _EVENT.size + length
                self._event(wd, mask, os.fsdecode(name))

    def _event(self, wd: int, mask: int, name: str) -> None:
        if mask & _OVERFLOW:
            self.overflowed = True
            return
        folder = self._folders.get(wd)
        if folder is None or mask & _IGNORED:
            return
        path = folder / name
        if mask & _ISDIR:
            if mask & (_CREATE | _MOVED_TO):
                self._watch(path)  # a new folder: what is written into it is watched too
            return
        events = self.events.setdefault(str(path.relative_to(self.root)), [])
        for bit, kind in _KINDS.items():
            if mask & bit and events[-1:] != [kind]:
                events.append(kind)

    def close(self) -> dict[str, list[str]]:
        self.poll()
        os.close(self._fd)
        return self.events
