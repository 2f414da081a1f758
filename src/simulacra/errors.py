"""The failures a user can fix, as one family of exceptions.

Every layer raises a `UserError` (or a subclass) for a failure that is not a bug: bad input,
a missing or damaged file, a folder it cannot write, an unreachable model. Its message says
what went wrong, where (a file and line, a field path, a run directory) and how to fix it.
The command line prints it after `error: ` and exits 2, without a traceback.
"""

from __future__ import annotations

import difflib
import errno

# What to do about the operating system's usual refusals, by errno.
_OS_FIXES = {
    errno.ENOSPC: "free some disk space",
    errno.EDQUOT: "free some disk space (the disk quota is full)",
    errno.EFBIG: "the file reached the size limit of this process or file system",
    errno.EACCES: "choose a folder you may write to, or change its permissions",
    errno.EPERM: "choose a folder you may write to, or change its permissions",
    errno.EROFS: "the file system is read-only; choose a folder on a writable one",
    errno.ENOTDIR: "a file stands where a folder is needed; choose another path",
    errno.EISDIR: "a folder stands where a file is needed; choose another path",
    errno.ENAMETOOLONG: "choose a shorter path",
    errno.ENOENT: "check the path",
}


class UserError(Exception):
    """A failure the user can fix; the message says what, where and how."""


class Interrupted(KeyboardInterrupt):
    """Ctrl+C stopped a run or a sweep; the message names its folder and the command that
    continues it."""


def explain_os_error(exc: OSError) -> str:
    """An OSError in words: what the system refused, on which path, and what to do."""
    what = exc.strerror or type(exc).__name__
    where = f": {exc.filename}" if exc.filename is not None else ""
    fix = _OS_FIXES.get(exc.errno or 0)
    return f"{what}{where}" + (f"; {fix}" if fix else "")


def unknown(what: str, name: str, known: list[str]) -> str:
    """The house error for a bad reference: what was asked, what exists, the likeliest fix."""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    listed = ", ".join(known[:30]) + (", ..." if len(known) > 30 else "")
    return f'unknown {what} "{name}"{hint}; known {what}s: {listed}'
