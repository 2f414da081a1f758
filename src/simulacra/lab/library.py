"""The library: episodic, procedural and semantic memory in one folder under git.

```
library/
  skills/<name>/SKILL.md, skills/<name>/scripts/...   procedural memory
  pages/<name>.md                                       semantic memory, with [[links]]
  episodes/<time>-<task>/attempt-N/                     episodic memory (learn mode)
  index.md                                              every skill and page, one line each
  log.md                                                append-only: each change and repair
```
Every change is a git commit with a message (the git command line, so any git tool reads it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from simulacra.errors import UserError
from simulacra.lab.front import (
    FrontMatterError,
    Meta,
    PageMeta,
    SkillMeta,
    parse_page,
    parse_skill,
    render,
)

MEMORY_PARTS = ("skills", "pages", "index.md", "log.md")
SEED = Path(__file__).parent / "seed"  # the shipped seed: a few skills and pages
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "simulacra lab",
    "GIT_AUTHOR_EMAIL": "lab@simulacra.invalid",
    "GIT_COMMITTER_NAME": "simulacra lab",
    "GIT_COMMITTER_EMAIL": "lab@simulacra.invalid",
}


class LibraryError(UserError):
    """A library folder that cannot be used (not a library, git failed)."""


@dataclass(frozen=True)
class Skill:
    meta: SkillMeta
    path: Path  # the skill's folder
    body: str

    @property
    def scripts(self) -> list[Path]:
        folder = self.path / "scripts"
        return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else []


@dataclass(frozen=True)
class Page:
    name: str
    meta: PageMeta
    path: Path
    body: str


class Library:
    """A library folder. `Library.create(root, seed)` makes one from a seed folder."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        if not self.root.exists():
            raise LibraryError(
                f"{root}: no library here (the folder does not exist); create one from the "
                f"seed with `simulacra lab learn --library {root}`"
            )
        if not (self.root / ".git").exists() or not (self.root / "skills").is_dir():
            raise LibraryError(
                f"{root}: not a library (no git repository with skills/); "
                "create one with `simulacra lab learn --library PATH` or Library.create"
            )

    @classmethod
    def create(cls, root: Path, seed: Path | None = None) -> Library:
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            raise LibraryError(f"{root}: folder is not empty; give a new or empty folder")
        if seed is not None:
            for part in ("skills", "pages"):
                if (seed / part).is_dir():
                    shutil.copytree(seed / part, root / part)
        for part in ("skills", "pages", "episodes"):
            (root / part).mkdir(exist_ok=True)
        (root / "episodes" / ".gitkeep").touch()
        (root / "log.md").write_text("# log\n\n", encoding="utf-8")
        _git(root, "init", "-q", "-b", "main")
        library = cls(root)
        library.write_index()
        library.append_log("library created" + (f" from the seed {seed.name}" if seed else ""))
        library.commit("library: created" + (" from the seed" if seed else ""))
        return library

    # -- reading

    def skills(self) -> list[Skill]:
        """Every skill whose SKILL.md parses; lint reports the others."""
        found = self._parsed("skills/*/SKILL.md", parse_skill)
        return [Skill(meta, path.parent, body) for path, meta, body in found]

    def pages(self) -> list[Page]:
        found = self._parsed("pages/*.md", parse_page)
        return [Page(path.stem, meta, path, body) for path, meta, body in found]

    def _parsed(
        self, pattern: str, parse: Callable[[str, str], tuple[Meta, str]]
    ) -> Iterator[tuple[Path, Meta, str]]:
        for path in sorted(self.root.glob(pattern)):
            try:
                meta, body = parse(path.read_text(encoding="utf-8"), self._rel(path))
            except FrontMatterError:
                continue
            yield path, meta, body

    def skill(self, name: str) -> Skill | None:
        return next((s for s in self.skills() if s.meta.name == name), None)

    def page(self, name: str) -> Page | None:
        return next((p for p in self.pages() if p.name == name), None)

    def names(self) -> set[str]:
        return {s.meta.name for s in self.skills()} | {p.name for p in self.pages()}

    def digest(self) -> str:
        """A hash of memory (skills, pages, index, log): equal before and after a test run."""
        sha = hashlib.sha256()
        for path in self._memory_files():
            sha.update(self._rel(path).encode() + b"\0" + path.read_bytes() + b"\0")
        return sha.hexdigest()

    def head(self) -> str:
        return _git(self.root, "rev-parse", "HEAD").strip()

    def history(self, limit: int = 1000) -> list[tuple[str, str]]:
        """(commit, message) pairs, newest first."""
        text = _git(self.root, "log", f"-{limit}", "--format=%h%x09%s")
        return [tuple(line.split("\t", 1)) for line in text.splitlines()]  # type: ignore[misc]

    def changes_since_lint(self) -> list[str]:
        """Artifacts changed by `memory: <change> <name>` commits since the last lint."""
        names: list[str] = []
        for _, message in self.history():
            if message.startswith("lint:"):
                break
            if message.startswith("memory: "):
                names.append(message.split()[-1])
        return list(dict.fromkeys(names))

    # -- writing (each followed by commit() from the caller, so one change is one commit)

    def write_skill(self, meta: SkillMeta, body: str, scripts: Mapping[str, str]) -> Path:
        folder = self.root / "skills" / meta.name
        (folder / "scripts").mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(render(meta, body), encoding="utf-8")
        for name, text in scripts.items():
            target = (folder / "scripts" / name).resolve()
            if folder.resolve() not in target.parents:
                raise LibraryError(f"skill {meta.name}: script path {name!r} leaves its folder")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        return folder

    def write_page(self, name: str, meta: PageMeta, body: str) -> Path:
        path = self.root / "pages" / f"{name}.md"
        path.write_text(render(meta, body), encoding="utf-8")
        return path

    def remove_skill(self, name: str) -> None:
        shutil.rmtree(self.root / "skills" / name)

    def remove_page(self, name: str) -> None:
        (self.root / "pages" / f"{name}.md").unlink()

    def append_log(self, line: str) -> None:
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with (self.root / "log.md").open("a", encoding="utf-8") as fh:
            fh.write(f"- {stamp} {line}\n")

    def write_index(self) -> None:
        lines = ["# index", "", "## skills", ""]
        lines += [f"- [[{s.meta.name}]]: {s.meta.description}" for s in self.skills()]
        lines += ["", "## pages", ""]
        lines += [f"- [[{p.name}]]: {p.meta.title}. {p.meta.summary}" for p in self.pages()]
        (self.root / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")

    def commit(self, message: str) -> str | None:
        """Commit everything that changed; None when nothing did."""
        _git(self.root, "add", "-A")
        if not _git(self.root, "status", "--porcelain").strip():
            return None
        _git(self.root, "commit", "-q", "-m", message)
        return self.head()

    def discard_uncommitted(self) -> None:
        """Drop what a killed run left half-written, back to the last commit."""
        _git(self.root, "reset", "-q", "--hard", "HEAD")
        _git(self.root, "clean", "-q", "-fd")

    def _memory_files(self) -> Iterator[Path]:
        for part in MEMORY_PARTS:
            path = self.root / part
            if path.is_file():
                yield path
            elif path.is_dir():
                yield from sorted(p for p in path.rglob("*") if p.is_file())

    def _rel(self, path: Path) -> str:
        return str(path.relative_to(self.root))


def _git(root: Path, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "-c", "safe.directory=*", *args],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **_GIT_ENV},
        )
    except FileNotFoundError as exc:
        raise LibraryError("git is not installed; the library keeps its history in git") from exc
    except subprocess.CalledProcessError as exc:
        raise LibraryError(f"git {' '.join(args)} failed in {root}: {exc.stderr.strip()}") from exc
    return done.stdout
