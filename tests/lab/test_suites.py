"""The suites are held out: no practice task is a suite task or a variant of one, v2 shares
nothing with the seed or the practice, every file a verifier reads and every key it needs is
named by its task, and real work (reference solutions) verifies."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest
from tests.lab.attempts import build
from tests.lab.references import REFERENCES

from simulacra.lab.library import SEED, Library
from simulacra.lab.sandbox import bwrap_path
from simulacra.lab.scripted.practice import PRACTICE
from simulacra.lab.tasks import Category, SuiteTask, load_suite
from simulacra.lab.verifier import verify

SUITES = {name: load_suite(name) for name in ("v1", "v2")}
TASKS = {t.task.id: t for tasks in SUITES.values() for t in tasks}
PRACTISED = [
    (template.format(**inputs), set(outputs)) for _, _, template, inputs, outputs in PRACTICE
]
# What makes each v2 task new: words its text uses that no seed skill, page or practice task does.
V2_MARKERS = {
    "plain-network": "netconvert",
    "od-trips": "od2trips",
    "fcd-trace": "floating car data",
    "induction-loops": "induction loop",
    "actuated-signals": "actuated",
    "vehicle-mix": "vehicle types",
    "emission-totals": "emissions",
    "edge-closure": "netconvert",
    "rerouting": "rerouting device",
    "route-sampler": "routesampler",
    "flow-calibration": "induction loop",
    "signal-comparison": "actuated",
}


def _masked(text: str) -> str:
    """A task's text with its numbers masked: two texts equal so are parameter variants."""
    return re.sub(r"\d+(?:\.\d+)?", "#", text.lower())


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Library:
    return Library.create(tmp_path_factory.mktemp("seed") / "library", SEED)


def _text(library: Library) -> str:
    parts = [s.meta.text() + s.body for s in library.skills()]
    parts += [p.meta.text() + p.body for p in library.pages()]
    for skill in library.skills():
        parts += [script.read_text() for script in skill.scripts]
    return "\n".join(parts).lower()


def test_each_suite_has_twelve_tasks_three_per_tier_over_all_six_workflow_areas() -> None:
    for tasks in SUITES.values():
        assert len(tasks) == 12
        assert Counter(t.task.tier for t in tasks) == {1: 3, 2: 3, 3: 3, 4: 3}
        assert {t.task.category for t in tasks} == set(Category)
    assert set(Counter(t.task.category for t in SUITES["v2"]).values()) == {2}


def test_no_practice_task_is_a_suite_task_or_a_variant_of_one() -> None:
    for text, outputs in PRACTISED:
        for task in TASKS.values():
            required = set(task.task.required_outputs)
            # A practice task that delivers a suite task's outputs, or part of them, practises it.
            assert not outputs <= required and not required <= outputs, (text, task.task.id)
            assert _masked(text) != _masked(task.task.text), (text, task.task.id)


def test_no_catalogue_task_delivers_a_suite_output() -> None:
    # The curriculum's tasks on the installed SUMO's tools deliver a tool's help
    # (outputs/<tool>.help.txt) or one output made with it (outputs/practice-<tool>.xml).
    outputs = {o for task in TASKS.values() for o in task.task.required_outputs}
    assert not [o for o in outputs if o.endswith(".help.txt") or "/practice-" in o]


def test_no_v2_task_is_named_or_varied_by_the_seed_the_practice_or_v1(seed: Library) -> None:
    known = {o for s in seed.skills() for o in s.meta.outputs}
    known |= {o for _, outputs in PRACTISED for o in outputs}
    known |= {o for t in SUITES["v1"] for o in t.task.required_outputs}
    corpus = _text(seed) + "\n".join(text for text, _ in PRACTISED).lower()
    assert set(V2_MARKERS) == {t.task.id for t in SUITES["v2"]}
    for task in SUITES["v2"]:
        assert not set(task.task.required_outputs) & known, task.task.id
        marker = V2_MARKERS[task.task.id]
        assert marker in task.task.text.lower() and marker not in corpus, (task.task.id, marker)


def _reads(tree: ast.Module) -> tuple[set[str], dict[str, set[str]], list[str]]:
    """The files a verify program names, the keys each verdict.json call declares, and the
    keys it reads from those objects without declaring them."""
    # A part of an f-string path is not a path: the outputs it makes are checked instead.
    formatted = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    paths = {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and n.value.startswith("outputs/")
        and id(n) not in formatted
    }
    declared: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr == "json"
        ):
            keys = {a.value for a in node.value.args[1:] if isinstance(a, ast.Constant)}
            for target in node.targets:
                if isinstance(target, ast.Name):
                    declared[target.id] = {str(k) for k in keys}
    undeclared = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            name, key = node.value.id, node.slice
            known = declared.get(name)
            if known is not None and isinstance(key, ast.Constant) and key.value not in known:
                undeclared.append(str(key.value))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in declared
        ):
            undeclared.append(f"{node.func.value.id}.get")
    return paths, declared, undeclared


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_file_a_verifier_reads_and_every_key_it_needs_is_named_by_its_task(
    task_id: str,
) -> None:
    suite_task = TASKS[task_id]
    task = suite_task.task
    tree = ast.parse((suite_task.folder / "verify.py").read_text())
    paths, declared, undeclared = _reads(tree)
    given = {f"outputs/{Path(f).name}" for f in task.files}
    for path in paths:
        assert path in task.required_outputs or path in given, (task_id, path)
    for path in task.required_outputs:
        assert path in task.text or "<C>" in task.text, (task_id, path)
    for keys in declared.values():
        for key in keys:
            assert f'"{key}"' in task.text, (task_id, key)
    assert not undeclared, (task_id, undeclared)


@pytest.mark.parametrize("task_id", sorted(REFERENCES))
@pytest.mark.sumo
@pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)")
def test_a_reference_solution_verifies(tmp_path: Path, task_id: str) -> None:
    suite_task: SuiteTask = TASKS[task_id]
    reference = REFERENCES[task_id]
    attempt = build(
        tmp_path, task_id, reference.commands, scripts=reference.scripts, suite_task=suite_task
    )
    verdict = verify(suite_task, attempt)
    assert verdict.passed, verdict
    failed = [c for c in verdict.checks if not c["passed"]]
    assert not failed and len(verdict.checks) > 2


def test_every_task_the_seed_cannot_do_has_a_reference() -> None:
    unsolved_by_seed = {"scaled-demand", "calibrate-insertions", "congestion-hotspots"}
    assert set(REFERENCES) == unsolved_by_seed | {t.task.id for t in SUITES["v2"]}
