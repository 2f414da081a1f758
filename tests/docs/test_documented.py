"""Every command and snippet in the README and docs/, checked as a reader would use it: run as
written in a folder with the shipped scenarios (on the scripted model where the docs say so),
served and stopped, or, where it needs what a test cannot have, parsed by the command line
with its scenario and model spec validated (`documented.CHECKS` says which and why). The
shipped scenarios' comments suggest only values that validate."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer

from simulacra.api.runs import overrides
from simulacra.cli import app
from simulacra.experiments import load_scenario
from simulacra.llm import check_spec

from .documented import (
    ROOT,
    Documented,
    check_of,
    documented,
    with_options,
    without_options,
)

ITEMS = documented()
SERVED = [item for item in ITEMS if check_of(item).how == "served"]
LOCAL = [item for item in ITEMS if check_of(item).how != "served"]
# What a placeholder stands for when no documented command has made one yet.
PREPARED = {
    "town": "simulacra run scenarios/town.yaml --model scripted --set agents.count=2 "
    "--set clock.duration=1h",
    "hazard": "simulacra run scenarios/hazard.yaml --model scripted --set clock.ticks=3",
    "town-2day": "simulacra run scenarios/town-2day.yaml --model scripted --set agents.count=4 "
    "--set clock.tick=60m",
}
# A run stopped part-way, for `run --resume`: Ctrl+C after six ticks.
STOPPED = """
import simulacra

def stop(progress):
    if progress.step == 6:
        raise KeyboardInterrupt

try:
    simulacra.run("scenarios/town.yaml", model="scripted", on_progress=stop,
                  set={"agents.count": 2, "clock.duration": "2h"})
except KeyboardInterrupt:
    pass
"""
_PLACEHOLDER = re.compile(r"runs/([a-z0-9]+(?:-[a-z0-9]+)*?)-(?:\.\.\.|A|B)(?=\s|$)")


class Workspace:
    """A reader's folder: the shipped scenarios, a `simulacra` command, the runs made so far."""

    def __init__(self, path: Path) -> None:
        self.path = path
        (path / "scenarios").symlink_to(ROOT / "scenarios")
        bin_dir = path / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "simulacra"
        shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m simulacra "$@"\n')
        shim.chmod(0o755)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(ROOT / "src"),
        }

    def shell(self, command: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", command],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self, command: str) -> subprocess.Popen[str]:
        """`command` started in a process group of its own, its output piped."""
        return subprocess.Popen(
            ["bash", "-c", command],
            cwd=self.path,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )

    def runs(self, name: str) -> list[Path]:
        """Run folders of scenario `name`, oldest first (town does not match town-2day)."""
        pattern = re.compile(rf"^{re.escape(name)}-\d{{8}}-\d{{6}}-[0-9a-f]+$")
        found = [p for p in (self.path / "runs").glob("*") if pattern.match(p.name)]
        return sorted(found, key=lambda p: p.name)

    def filled(self, command: str) -> str:
        """The command with each `runs/<name>-...` replaced by such a run (made if none is)."""
        stopped = command.startswith("simulacra run --resume")
        names = _PLACEHOLDER.findall(command)
        for name in dict.fromkeys(names):
            if stopped:
                (self.path / "stop.py").write_text(STOPPED)
                self._made(f"{shlex.quote(sys.executable)} stop.py")
            while len(self.runs(name)) < names.count(name) and name in PREPARED:
                self._made(PREPARED[name])

        def pick(found: re.Match[str]) -> str:
            runs = self.runs(found.group(1))
            run = runs[-2] if found.group(0).endswith("-A") else runs[-1]  # A, B: two of them
            return str(run.relative_to(self.path))

        return _PLACEHOLDER.sub(pick, command)

    def _made(self, command: str) -> None:
        done = self.shell(command)
        assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return Workspace(tmp_path_factory.mktemp("reader"))


def test_every_documented_command_and_snippet_is_checked() -> None:
    pages = {item.page for item in ITEMS}
    assert {"README.md", "docs/getting-started.md", "docs/served-model.md"} <= pages
    runs = [item for item in ITEMS if check_of(item).how in ("run", "serve", "served")]
    assert len(runs) >= 20, [item.name for item in runs]


@pytest.mark.parametrize("item", LOCAL, ids=[item.name for item in LOCAL])
def test_a_documented_command_works_as_written(item: Documented, workspace: Workspace) -> None:
    check = check_of(item)
    if check.how == "run":
        _run(item, workspace)
    elif check.how == "serve":
        _serve(workspace.filled(without_options(item.text)), workspace)
    elif check.how == "parse":
        for form in {without_options(item.text), with_options(item.text)}:
            _parse(form)
    elif check.how == "excerpt":
        _defined(item.text)
    elif check.how == "target":
        target = item.text.split()[1]
        assert re.search(rf"^{target}:", (ROOT / "Makefile").read_text(), re.M)
    else:
        assert check.how == "tool", check


def _defined(excerpt: str) -> None:
    """Each class, function and constant an excerpt defines (or, defining none, each class
    it uses) is defined so in the sources."""
    found = re.findall(r"^(?:class|def|async def) (\w+)|^([A-Z_][A-Z_0-9]*)\s*[:=]", excerpt, re.M)
    names = [a or b for a, b in found] or re.findall(r"\b([A-Z][a-z]+[A-Z]\w*)\b", excerpt)
    sources = "\n".join(p.read_text() for p in (ROOT / "src").rglob("*.py"))
    assert names, excerpt
    for name in names:
        pattern = rf"^\s*(?:class|def|async def) {name}\b|^\s*{name}\s*[:=]"
        assert re.search(pattern, sources, re.M), f"{name} is defined nowhere in src/"


def _run(item: Documented, workspace: Workspace) -> None:
    if item.python:
        script = workspace.path / f"snippet_{Path(item.page).stem}_{item.line}.py"
        script.write_text(item.text)
        done = workspace.shell(f"{shlex.quote(sys.executable)} {script.name}")
    else:
        done = workspace.shell(workspace.filled(without_options(item.text)))
    allowed = (0, 1) if item.text.startswith("simulacra diff ") else (0,)  # 1: they differ
    assert done.returncode in allowed, f"{item.name}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr


def _serve(command: str, workspace: Workspace) -> None:
    child = workspace.start(command)
    try:
        said = _until_ready(child)
        url = _url(said)
        with urllib.request.urlopen(url, timeout=30) as reply:
            assert reply.status == 200
        os.killpg(child.pid, signal.SIGINT)
        child.wait(timeout=60)
        assert child.returncode == 0, child.stderr.read() if child.stderr else ""
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()


def _until_ready(child: subprocess.Popen[str]) -> list[str]:
    said = []
    assert child.stdout is not None
    for line in child.stdout:
        said.append(line)
        if "press Ctrl+C to stop" in line:
            return said
    raise AssertionError(
        f"stopped before serving: {said} {child.stderr.read() if child.stderr else ''}"
    )


def _url(said: list[str]) -> str:
    text = "".join(said)
    viewer = re.search(r"viewer: (http://\S+)", text)
    if viewer:
        return viewer.group(1)
    served = re.search(r" at (http://127\.0\.0\.1:\d+/v1) ", text)
    assert served, text
    return served.group(1) + "/models"


def _parse(command: str) -> None:
    """Parse `command` as the command line would; validate its scenario and model spec."""
    words = shlex.split(command)[1:]
    group = typer.main.get_command(app)
    ctx = group.make_context("simulacra", words)
    leaf: click.Command = group
    while isinstance(leaf, click.Group):
        name, sub, rest = leaf.resolve_command(ctx, [*ctx.protected_args, *ctx.args])
        assert sub is not None and name is not None, command
        leaf, ctx = sub, sub.make_context(name, rest, parent=ctx)
    params = ctx.params
    if params.get("model"):
        check_spec(str(params["model"]))
    scenario = params.get("scenario")
    if isinstance(scenario, Path) and scenario.suffix == ".yaml":
        load_scenario(
            ROOT / scenario, overrides(params.get("set_"), params.get("model"), params.get("seed"))
        )


@pytest.mark.slow
def test_the_served_model_page_works_against_simulacra_serve(workspace: Workspace) -> None:
    page = (ROOT / "docs" / "served-model.md").read_text()
    assert "simulacra serve" in page.split("```", 2)[1]  # the page starts from it
    child = workspace.start("simulacra serve")
    try:
        url = re.search(r" at (http://127\.0\.0\.1:\d+)/v1 ", "".join(_until_ready(child)))
        assert url and SERVED
        for item in SERVED:
            text = item.text.replace("http://127.0.0.1:8080", url.group(1))  # if 8080 was busy
            _run(Documented(item.page, item.line, text, item.python), workspace)
    finally:
        os.killpg(child.pid, signal.SIGINT)
        child.wait(timeout=60)


def _comments(path: Path) -> Iterator[tuple[str, str]]:
    """Each comment of a scenario file with the field path of the line it stands on."""
    stack: list[tuple[int, str]] = []
    for line in path.read_text().splitlines():
        field = re.match(r"^(\s*)([A-Za-z_]\w*):", line)
        if field:
            depth = len(field.group(1))
            stack = [(d, k) for d, k in stack if d < depth] + [(depth, field.group(2))]
        if "#" in line:
            yield ".".join(k for _, k in stack) if field else "", line.split("#", 1)[1]


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
def test_a_scenario_s_comments_suggest_only_values_that_validate(path: Path) -> None:
    suggested: list[list[str]] = []  # each comment's settings, validated together
    for field, comment in _comments(path):
        sets = [s.strip("`'\",;:") for s in re.findall(r"--set (\S+=\S+)", comment)]
        model = re.search(r'--model "([^"]+)"', comment)
        if model:
            spec = model.group(1).replace("<url>", "http://127.0.0.1:8000/v1")
            sets.append(f"model.spec={spec.replace('<name>', 'a-model')}")
        suggested += [sets] if sets else []
        alternative = re.match(r"\s*or (\w+)\b", comment)
        if field and alternative:
            suggested.append([f"{field}={alternative.group(1)}"])
        named = re.match(r"\s*ablation\b.*?\bor ([\w, ]+)", comment)
        if named:
            suggested += [[f"ablation={a.strip()}"] for a in named.group(1).split(",") if a.strip()]
    for overrides_ in suggested:
        load_scenario(path, overrides_)
