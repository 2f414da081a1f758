"""The sandbox stops or refuses each kind of harmful command, and the next command still runs."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

import simulacra
from simulacra.lab.sandbox import Sandbox, SandboxLimits, bwrap_path

pytestmark = pytest.mark.skipif(
    bwrap_path() is None,
    reason="needs bubblewrap (make install-dev, or apt-get install bubblewrap)",
)
LIMITS = SandboxLimits(wall_s=4, cpu_s=2, memory_mb=512, file_mb=1, processes=32)


@pytest.fixture
def sandbox(tmp_path: Path) -> Sandbox:
    return Sandbox(tmp_path / "attempt", LIMITS)


def _still_runs(sandbox: Sandbox) -> None:
    after = sandbox.run("python -c 'print(6 * 7)' > outputs/after.txt", name="after")
    assert after.ok, after.stderr.read_text()
    assert (sandbox.root / "outputs" / "after.txt").read_text().strip() == "42"


def test_a_good_command_writes_its_outputs_with_sumo_on_the_path(sandbox: Sandbox) -> None:
    # `sed -n 1p`, not `head -1`: head leaves before sumo has written, and under pipefail the
    # broken pipe failed the command one time in eight.
    result = sandbox.run(
        "sumo --version | sed -n 1p; echo $HOME; python -c 'import sumolib' && echo ok > outputs/a",
        name="good",
    )
    assert result.ok, result.stderr.read_text()
    out = result.stdout.read_text()
    assert "Eclipse SUMO" in out
    assert str(sandbox.root / "home") in out
    assert (sandbox.root / "outputs" / "a").exists()


def test_an_infinite_loop_is_stopped_by_the_cpu_limit(tmp_path: Path) -> None:
    # The wall clock is far beyond the CPU limit, so even on a busy machine the CPU limit is
    # what stops the loop; the wall clock has its own test below.
    limits = LIMITS.model_copy(update={"cpu_s": 1, "wall_s": 60.0})
    sandbox = Sandbox(tmp_path / "attempt", limits)
    result = sandbox.run("python -c 'while True: pass'", name="loop")
    assert result.stopped == "CPU limit of 1 s"
    assert not result.ok and result.duration_s < limits.wall_s
    _still_runs(sandbox)


def test_a_sleeping_command_is_stopped_by_the_wall_clock(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path / "a", LIMITS.model_copy(update={"wall_s": 1.0}))
    result = sandbox.run("sleep 30", name="sleep")
    assert result.stopped is not None and "wall-clock" in result.stopped
    assert result.duration_s < 5
    _still_runs(sandbox)


def test_a_memory_bomb_fails_inside_its_address_space_limit(sandbox: Sandbox) -> None:
    bomb = "python -c '\nchunks = []\nwhile True:\n    chunks.append(bytearray(64 * 2**20))'"
    result = sandbox.run(bomb, name="memory")
    assert not result.ok
    assert "MemoryError" in result.stderr.read_text()
    _still_runs(sandbox)


def test_a_fork_bomb_is_capped_and_killed_with_its_namespace(sandbox: Sandbox) -> None:
    bomb = (
        "python -c '\nimport os\nwhile True:\n    try:\n        os.fork()\n"
        "    except OSError:\n        pass'"
    )
    result = sandbox.run(bomb, name="fork")
    assert result.stopped is not None  # the CPU limit or the wall clock, whichever comes first
    if sandbox.as_root:  # only then do the sandbox's processes have a uid of their own
        assert _survivors(LIMITS.uid) == 0
    _still_runs(sandbox)


def test_a_network_call_cannot_reach_a_server_on_this_machine(sandbox: Sandbox) -> None:
    with _listening_server() as port:
        call = f"python -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)'"
        result = sandbox.run(call, name="net")
    assert not result.ok
    assert "ConnectionRefusedError" in result.stderr.read_text()
    _still_runs(sandbox)


def test_a_write_outside_the_attempt_is_refused(sandbox: Sandbox) -> None:
    target = Path(simulacra.__file__).parent / "sandbox-escape.txt"
    try:
        result = sandbox.run(f"echo pwned > {target}", name="write")
        assert not result.ok
        assert "Read-only file system" in result.stderr.read_text()
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)
    _still_runs(sandbox)


def test_a_module_in_an_open_folder_of_tmp_is_importable(sandbox: Sandbox) -> None:
    # The sandbox's /tmp is its own, empty: a suite or a virtual environment that lives in
    # the machine's /tmp must be bound back for verify.py and python to run.
    folder = Path(tempfile.mkdtemp(prefix="simulacra-lab-"))
    try:
        folder.chmod(0o755)
        (folder / "probe_module.py").write_text("ANSWER = 42\n")
        result = sandbox.run(
            "python -c 'import probe_module; print(probe_module.ANSWER)'",
            name="import",
            pythonpath=[str(folder)],
        )
        assert result.ok, result.stderr.read_text()
        assert result.stdout.read_text().strip() == "42"
    finally:
        shutil.rmtree(folder)


def test_a_link_in_tmp_inside_another_needed_folder_is_bound_once(sandbox: Sandbox) -> None:
    # As a virtual environment in /tmp and its bin/python3, a link out of /tmp, are both
    # needed: the link comes with the folder, and binding it again into the read-only copy
    # failed ("Can't create file at .../bin/python3").
    folder = Path(tempfile.mkdtemp(prefix="simulacra-lab-"))
    try:
        folder.chmod(0o755)
        (folder / "outer_module.py").write_text("A = 1\n")
        link = folder / "python-stdlib"
        link.symlink_to(Path(os.__file__).parent)
        result = sandbox.run(
            "python -c 'import outer_module; print(outer_module.A)'",
            name="nested",
            pythonpath=[str(folder), str(link)],
        )
        assert result.ok, result.stderr.read_text()
        assert result.stdout.read_text().strip() == "1"
    finally:
        shutil.rmtree(folder)


def test_the_sandbox_tmp_is_private(sandbox: Sandbox, tmp_path: Path) -> None:
    result = sandbox.run(f"echo x > /tmp/{tmp_path.name}-private", name="tmp")
    assert result.ok
    assert not Path(f"/tmp/{tmp_path.name}-private").exists()


def test_the_attempt_cannot_rewrite_its_own_logs(sandbox: Sandbox) -> None:
    result = sandbox.run("echo forged > logs/good.out", name="forge")
    assert not result.ok
    assert not (sandbox.root / "logs" / "good.out").exists()


def test_a_huge_file_stops_at_the_file_size_limit(sandbox: Sandbox) -> None:
    result = sandbox.run("head -c 5000000 /dev/zero > outputs/big", name="big")
    assert not result.ok
    assert (sandbox.root / "outputs" / "big").stat().st_size <= LIMITS.file_mb * 2**20
    _still_runs(sandbox)


def _survivors(uid: int) -> int:
    """Processes of `uid` still alive a moment after their sandbox ended."""
    deadline = time.monotonic() + 2
    while True:
        alive = 0
        for name in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                alive += os.stat(f"/proc/{name}").st_uid == uid
        if alive == 0 or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


class _listening_server:
    """A TCP server on 127.0.0.1 outside the sandbox; it accepts until the block ends."""

    def __enter__(self) -> int:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()
        port: int = self.sock.getsockname()[1]
        return port

    def _accept(self) -> None:
        with self.sock:
            try:
                while True:
                    conn, _ = self.sock.accept()
                    conn.close()
            except OSError:
                return

    def __exit__(self, *exc: object) -> None:
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join(timeout=2)


def test_the_server_is_reachable_from_outside_the_sandbox() -> None:
    # Guards the network test: the refusal comes from the sandbox, not from a dead server.
    with _listening_server() as port, socket.create_connection(("127.0.0.1", port), 2):
        pass
