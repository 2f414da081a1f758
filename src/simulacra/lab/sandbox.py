"""Run untrusted commands in an attempt folder: bubblewrap namespaces plus resource limits.

Inside the sandbox the whole file system is read-only except the attempt folder (its `logs/`
stays read-only too, so code cannot rewrite its own record); `/tmp` is a private tmpfs, the
network namespace has only a loopback of its own, processes live in their own PID namespace
and die with it, HOME is the attempt's `home/`, and SUMO's environment is set. Limits come from
`prlimit` (CPU seconds, address space, file size, process count) and a wall clock kept here.
Commands run under `bash -e -o pipefail`: a crash behind a pipe or a `;` fails the command.

Run as root, the sandbox drops to an unprivileged uid (65534 by default): root ignores the
process limit, so a fork bomb could otherwise fill the machine's process table. Directories on
the way to the interpreter that this uid cannot enter (such as a 0700 /root) are replaced by an
empty tmpfs with only the needed paths bound back, which also hides the rest of them.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from simulacra.errors import UserError
from simulacra.lab.observe import POLL_S, Process, Processes, Writes

_PRIVATE_TMP = (Path("/tmp"), Path("/var/tmp"))  # each an empty tmpfs inside the sandbox
INSTALL_HINT = (
    "install Debian's bubblewrap package (apt-get install bubblewrap, or "
    "`make install-dev`, which runs scripts/install-debian.sh)"
)


class SandboxError(UserError):
    """The sandbox cannot run here (bubblewrap missing, or it refused to start)."""


class SandboxLimits(BaseModel):
    """Per-command limits; every one of them applies to every command an attempt runs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    wall_s: float = Field(default=120.0, gt=0, description="wall-clock seconds")
    cpu_s: int = Field(default=90, ge=1, description="CPU seconds per process")
    memory_mb: int = Field(default=2048, ge=64, description="address space per process, MiB")
    file_mb: int = Field(default=256, ge=1, description="largest file a process may write, MiB")
    processes: int = Field(default=128, ge=4, description="processes and threads at once")
    uid: int = Field(default=65534, ge=1, description="the uid commands run as when we are root")


@dataclass(frozen=True)
class CommandResult:
    """One command's outcome; `stopped` says which limit ended it, if one did."""

    command: str
    exit_code: int
    duration_s: float
    stdout: Path
    stderr: Path
    stopped: str | None = None
    processes: tuple[Process, ...] = ()  # as seen from outside the sandbox (`observe`)
    writes: dict[str, list[str]] = field(default_factory=dict)  # path -> kernel events
    writes_complete: bool = True  # False when the kernel's event queue overflowed

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.stopped is None


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def sumo_home() -> Path | None:
    spec = importlib.util.find_spec("sumo")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def _package_root() -> Path:
    """The folder holding the simulacra package, so verify programs can import its helpers."""
    return Path(__file__).resolve().parents[2]


class Sandbox:
    """Runs commands with `root` (an attempt folder) as the working and only writable folder."""

    def __init__(self, root: Path, limits: SandboxLimits | None = None) -> None:
        self.root = root.resolve()
        self.limits = limits or SandboxLimits()
        found = bwrap_path()
        if found is None:
            raise SandboxError(f"bubblewrap (bwrap) is not installed; {INSTALL_HINT}")
        self.bwrap = found
        self.as_root = os.geteuid() == 0
        for name in ("logs", "home", "outputs"):
            (self.root / name).mkdir(parents=True, exist_ok=True)

    def run(
        self,
        command: str,
        *,
        name: str,
        writable: bool = True,
        pythonpath: Sequence[str] = (),
    ) -> CommandResult:
        """Run `command` with bash in the attempt folder; stdout and stderr go to
        logs/<name>.out and logs/<name>.err. `writable=False` mounts the attempt read-only;
        `pythonpath` adds import folders (read-only, like everything outside the attempt)."""
        stdout = self.root / "logs" / f"{name}.out"
        stderr = self.root / "logs" / f"{name}.err"
        if self.as_root:
            self._hand_over()
        argv = self._argv(command, writable=writable, pythonpath=pythonpath)
        writes = Writes(self.root)
        started = time.perf_counter()
        stopped: str | None = None
        with stdout.open("wb") as out, stderr.open("wb") as err:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                cwd=self.root,
                env=self._env(pythonpath),
                start_new_session=True,
            )
            seen = Processes(process.pid, self.root)
            code = None
            while code is None:
                seen.poll()
                writes.poll()
                try:
                    code = process.wait(timeout=POLL_S)
                except subprocess.TimeoutExpired:
                    if time.perf_counter() - started > self.limits.wall_s:
                        # Killing bwrap kills PID 1 of the sandbox, and every process inside.
                        os.killpg(process.pid, signal.SIGKILL)
                        code = process.wait()
                        stopped = f"wall-clock limit of {self.limits.wall_s:g} s"
        duration = time.perf_counter() - started
        events = writes.close()
        if stopped is None:
            stopped = _limit_signal(code, self.limits)
        if code < 0:
            code = 128 - code
        return CommandResult(
            command,
            code,
            duration,
            stdout,
            stderr,
            stopped,
            tuple(seen.processes()),
            events,
            not writes.overflowed,
        )

    def _hand_over(self) -> None:
        """Give the attempt folder to the sandbox's uid, except logs/, which stays ours."""
        uid = self.limits.uid
        for path in (self.root, *self.root.rglob("*")):
            if path.parent.name == "logs" and path.parent.parent == self.root:
                continue
            if not path.is_symlink() and path.name != "logs":
                os.chown(path, uid, uid)

    def _argv(self, command: str, *, writable: bool, pythonpath: Sequence[str]) -> list[str]:
        limits = self.limits
        argv = [
            self.bwrap,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--perms",
            "1777",
            "--tmpfs",
            "/tmp",
            "--perms",
            "1777",
            "--tmpfs",
            "/var/tmp",
            "--unshare-net",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
        ]
        needed = self._needed(pythonpath)
        if self.as_root:
            argv += self._reachable([self.root, *needed])
            # The folders above the attempt, on the private /tmp or an emptied one, must be
            # enterable by the sandbox's uid.
            for folder in reversed(self.root.parents[:-1]):
                argv += ["--perms", "0755", "--dir", str(folder)]
        else:
            argv.append("--unshare-user")
        argv += self._in_private_tmp(needed)
        argv += ["--bind" if writable else "--ro-bind", str(self.root), str(self.root)]
        argv += ["--ro-bind", str(self.root / "logs"), str(self.root / "logs")]
        argv += ["--chdir", str(self.root), "--"]
        if self.as_root:
            argv += [
                "setpriv",
                f"--reuid={limits.uid}",
                f"--regid={limits.uid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
            ]
        mib = 1024 * 1024
        argv += [
            "prlimit",
            f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",
            f"--as={limits.memory_mb * mib}",
            f"--fsize={limits.file_mb * mib}",
            f"--nproc={limits.processes}",
            "--core=0",
            "--",
            "bash",
            "--noprofile",
            "--norc",
            # A failure anywhere in a list or a pipeline fails the command: `crash | tee log`
            # must not exit 0.
            "-e",
            "-o",
            "pipefail",
            "-c",
            command,
        ]
        return argv

    def _needed(self, pythonpath: Sequence[str]) -> list[Path]:
        paths = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable), _package_root()]
        home = sumo_home()
        if home is not None:
            paths.append(home)
        paths += [Path(p) for p in pythonpath]
        resolved = {p.resolve() for p in paths if p.exists()}
        return sorted(resolved | {Path(p) for p in paths if p.exists()})

    def _reachable(self, paths: Sequence[Path]) -> list[str]:
        """bwrap arguments that let an unprivileged uid reach `paths`: an ancestor it cannot
        enter becomes an empty tmpfs into which only the needed paths are bound back."""
        blocked: set[Path] = set()
        for path in paths:
            for ancestor in reversed(path.parents):
                mode = ancestor.stat().st_mode
                if ancestor != Path("/") and not mode & stat.S_IXOTH:
                    blocked.add(ancestor)
                    break
        args: list[str] = []
        for top in sorted(blocked):
            args += ["--perms", "0755", "--tmpfs", str(top)]
            made: set[Path] = set()
            for path in paths:
                if top not in path.parents or path == self.root:
                    continue
                # bwrap would make the folders between as 0700: make them enterable first.
                for between in reversed(path.parents):
                    if top in between.parents and between not in made:
                        made.add(between)
                        args += ["--perms", "0755", "--dir", str(between)]
                args += ["--ro-bind", str(path), str(path)]
        return args

    def _in_private_tmp(self, paths: Sequence[Path]) -> list[str]:
        """bwrap arguments that bind back, read-only, the needed paths in /tmp or /var/tmp
        (a suite, a virtual environment), which the sandbox's own empty ones would hide."""
        args: list[str] = []
        for path in paths:
            top = next((t for t in _PRIVATE_TMP if t in path.parents), None)
            # A path inside another one bound here comes with it (binding it again would
            # write into a read-only bind: a venv's bin/python3 inside the venv).
            if top is None or any(other in path.parents for other in paths):
                continue
            for folder in reversed(path.parents):
                if top in folder.parents:
                    args += ["--perms", "0755", "--dir", str(folder)]
            args += ["--ro-bind", str(path), str(path)]
        return args

    def _env(self, pythonpath: Sequence[str]) -> dict[str, str]:
        bins = [str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"]
        env = {
            "PATH": ":".join(bins),
            "HOME": str(self.root / "home"),
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0",  # a rerun of the same script iterates sets the same way
            "PYTHONPATH": ":".join([*pythonpath, str(_package_root())]),
            "MPLBACKEND": "Agg",
            "MPLCONFIGDIR": str(self.root / "home" / ".matplotlib"),
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
        }
        home = sumo_home()
        if home is not None:
            env["SUMO_HOME"] = str(home)
            env["PATH"] = f"{home / 'bin'}:{env['PATH']}"
        return env


def _limit_signal(code: int, limits: SandboxLimits) -> str | None:
    """Which limit a signal exit points to: bwrap reports a signal as 128 + its number."""
    signum = code - 128 if code > 128 else -code if code < 0 else 0
    if signum == signal.SIGXCPU:
        return f"CPU limit of {limits.cpu_s} s"
    if signum == signal.SIGXFSZ:
        return f"file-size limit of {limits.file_mb} MiB"
    return None
