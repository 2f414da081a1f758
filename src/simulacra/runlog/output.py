"""Where runs go: checking an output folder before a run directory is made in it, and
removing a run directory whose start failed."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from simulacra.errors import UserError, explain_os_error

NAME_MAX = 255  # bytes in one file name, on the file systems a run is written to
PATH_MAX = 4096
_FIX = "set output.root to a folder you can write (--set output.root=FOLDER)"


class RunFolderError(UserError):
    """An output folder that cannot take a run directory."""


def check_output_root(run: Path) -> list[Path]:
    """Check that the folder `run` can be made: no name in its path is too long, no file
    stands where a folder must, and the nearest existing folder takes new entries. Returns
    the folders to create, outermost first (`run` last); creates nothing."""
    root = run.parent
    for part in run.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise RunFolderError(
                f"output folder {root}: the name {part[:40]!r}... is {len(os.fsencode(part))} "
                f"bytes long; a file system takes at most {NAME_MAX}: choose a shorter "
                "output.root or scenario name"
            )
    if len(os.fsencode(run.absolute())) >= PATH_MAX:
        raise RunFolderError(f"output folder {root}: the path is too long; {_FIX}")
    missing: list[Path] = []
    existing = run
    while not os.path.lexists(existing):
        missing.append(existing)
        existing = existing.parent
    if not existing.is_dir():
        raise RunFolderError(f"output folder {root}: {existing} is a file, not a folder; {_FIX}")
    try:
        probe = tempfile.mkdtemp(prefix=".simulacra-check-", dir=existing)
    except OSError as exc:
        raise RunFolderError(
            f"output folder {root}: cannot create a folder in {existing} "
            f"({explain_os_error(exc)}); {_FIX}"
        ) from None
    os.rmdir(probe)
    return list(reversed(missing))


def remove_run(run: Path, created: list[Path]) -> None:
    """Remove the run directory `run` and the empty folders made for it (`created`)."""
    shutil.rmtree(run, ignore_errors=True)
    for folder in reversed([f for f in created if f != run]):
        try:
            folder.rmdir()
        except OSError:
            return  # not empty, or already gone: what remains is not ours
