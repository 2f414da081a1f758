"""`simulacra view FORK --live`: the live viewer of a fork shows its family and replays its
whole history, its parent's steps before the fork point included (its own log has none);
`simulacra view PARENT` shows the children forked since its pages were built."""

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.engine.test_conformance import SCENARIOS, SHIPPED, small

from simulacra import Run
from simulacra.experiments import fork, load_scenario, run
from simulacra.report import build_outputs, serve_run


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, str]]:
    name = SHIPPED["town"]
    root = tmp_path_factory.mktemp("live")
    parent = run(load_scenario(SCENARIOS / f"{name}.yaml", small(name, root)), progress=False)
    build_outputs(parent.path)  # before the fork: its pages know of no child yet
    (child,) = fork(parent.path, at="07:40", progress=False)
    server, url = serve_run(child.path, live=True)
    yield parent.path, child.path, url
    server.shutdown()
    server.server_close()


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url) as answer:
        return bytes(answer.read())


def test_the_live_viewer_of_a_fork_shows_its_parent_and_fork_point(
    served: tuple[Path, Path, str],
) -> None:
    parent, _, url = served
    page = _get(url).decode("utf-8")
    assert '<nav id="family"' in page and parent.name in page
    assert 'label="fork point"' in page and "fork point: step 4" in page


def test_the_live_replay_of_a_fork_opens_with_its_parents_steps(
    served: tuple[Path, Path, str],
) -> None:
    _, child, url = served
    live = json.loads(_get(url.rsplit("/", 1)[0] + "/replay.json"))
    built = build_outputs(child)["viewer"].read_text(encoding="utf-8")
    start = built.index('id="replay-data">') + len('id="replay-data">')
    whole = json.loads(built[start : built.index("</script>", start)])
    assert [f["step"] for f in live["frames"]] == [f["step"] for f in whole["frames"]]
    assert live["frames"][0]["step"] == 0  # from the start, not from the fork point


def test_viewing_a_parent_builds_its_pages_again_to_list_a_child_made_since(
    served: tuple[Path, Path, str],
) -> None:
    parent, child, _ = served
    assert child.name not in (parent / "viewer.html").read_text(encoding="utf-8")
    server, url = serve_run(parent)
    try:
        assert child.name in _get(url).decode("utf-8")
        assert child.name in _get(url.rsplit("/", 1)[0] + "/report.html").decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()


def test_a_parent_opened_by_a_relative_path_is_the_childs_parent(
    served: tuple[Path, Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parent, child, _ = served
    monkeypatch.chdir(parent.parent)
    assert Run(child).parent == Run(parent.name)
    assert Run(Path("..") / parent.parent.name / child.name) in Run(parent.name).children()
