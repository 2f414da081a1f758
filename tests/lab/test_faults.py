"""The fault set: fabrications of each class the lab must refuse, beside real attempts that
must pass. Each fabrication is made as an attempt's own code would make it (commands run in
the sandbox and recorded by the harness) or, for the record itself, as a forger with write
access to the episode would. Both the checker (in the loop) and the verifier (the bench's)
must reject every one."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.lab.attempts import (
    ANALYSE,
    GRID_4,
    PLOT,
    SIMULATE,
    SIMULATE_900,
    SUITE,
    TRIPS,
    build,
    claim,
    copy,
    rewrite_record,
    scripted,
)

from simulacra.lab.checker import CheckReport, check_attempt
from simulacra.lab.record import Record, digest_file, record_folder
from simulacra.lab.sandbox import bwrap_path
from simulacra.lab.tasks import load_suite
from simulacra.lab.verifier import Verification, verify

pytestmark = [
    pytest.mark.sumo,
    pytest.mark.skipif(bwrap_path() is None, reason="needs bubblewrap (make install-dev)"),
]
TRIPINFO = "outputs/tripinfo.xml"
STATISTICS = "outputs/statistics.xml"
METRICS_CLAIMS = (
    claim("trips", 300, TRIPINFO, "xml_count", element="tripinfo"),
    claim("inserted", 300, STATISTICS, "xml_attribute", element="vehicles", attribute="inserted"),
)


@dataclass(frozen=True)
class Verdicts:
    check: CheckReport
    verify: Verification

    def failed(self) -> set[str]:
        return {f.check for f in self.check.findings}


def _judge(attempt: Path, task_id: str) -> Verdicts:
    return Verdicts(check_attempt(attempt), verify(SUITE[task_id], attempt))


def _rejected(attempt: Path, task_id: str, check: str) -> Verdicts:
    verdicts = _judge(attempt, task_id)
    assert not verdicts.check.passed and check in verdicts.failed(), verdicts.check.findings
    assert not verdicts.verify.passed, verdicts.verify
    return verdicts


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real attempts, made with the seed's skills, as the scripted policy makes them."""
    root = tmp_path_factory.mktemp("real")
    return {
        "tripinfo-run": build(root, "tripinfo-run", [SIMULATE], claims=METRICS_CLAIMS),
        "trip-metrics": build(
            root,
            "trip-metrics",
            [SIMULATE, ANALYSE],
            claims=(
                claim("trips", 300, TRIPINFO, "xml_count", element="tripinfo"),
                claim(
                    "mean_duration_s",
                    79.357,
                    "outputs/metrics.json",
                    "json_value",
                    key="mean_duration_s",
                ),
            ),
            summary="Simulated the given demand; 300 trips finished, 79.357 s each on average.",
        ),
        "grid-network": build(root, "grid-network", [GRID_4]),
        "summary-plot": build(root, "summary-plot", [GRID_4, TRIPS, SIMULATE_900, PLOT]),
    }


@pytest.mark.parametrize(
    "task_id", ["tripinfo-run", "trip-metrics", "grid-network", "summary-plot"]
)
def test_a_real_attempt_passes_the_checker_and_the_verifier(
    real: dict[str, Path], task_id: str
) -> None:
    verdicts = _judge(real[task_id], task_id)
    assert verdicts.check.passed, verdicts.check.findings
    assert verdicts.verify.passed, verdicts.verify
    # Every delivered file was reproduced, SUMO's outputs by SUMO itself.
    reproduced = verdicts.check.reproduced
    assert set(reproduced) >= set(SUITE[task_id].task.required_outputs)
    assert all("replay: identical" in how for how in reproduced.values())
    sumo_outputs = [p for p in reproduced if p.endswith(("tripinfo.xml", "summary.xml"))]
    assert all("sumo rerun" in reproduced[p] for p in sumo_outputs)


# -- fabricated tripinfo

_FAKE_RUN = """\
trip = '<tripinfo id="{i}" depart="{i}.00" arrival="{a}.00" duration="60.00" routeLength="800.00" \
waitingTime="0.00" timeLoss="1.00"/>'
with open("outputs/tripinfo.xml", "w") as fh:
    fh.write("<tripinfos>\\n" + "\\n".join(trip.format(i=i, a=i + 60) for i in range(300)))
    fh.write("\\n</tripinfos>\\n")
with open("outputs/statistics.xml", "w") as fh:
    fh.write('<statistics><vehicles loaded="300" inserted="300" running="0" waiting="0"/>'
             '<teleports total="0"/></statistics>\\n')
"""


def test_a_tripinfo_and_statistics_written_without_sumo_are_rejected(tmp_path: Path) -> None:
    attempt = scripted(tmp_path, "tripinfo-run", _FAKE_RUN, claims=METRICS_CLAIMS)
    verdicts = _rejected(attempt, "tripinfo-run", "the attempt reproduces")
    messages = " ".join(f.message for f in verdicts.check.findings)
    assert "a SUMO file (<tripinfos>) that no SUMO tool wrote" in messages
    assert "a SUMO file (<statistics>) that no SUMO tool wrote" in messages


_ONE_MORE_TRIP = """\
path = "outputs/tripinfo.xml"
text = open(path).read()
made_up = '    <tripinfo id="made-up" depart="1.00" arrival="61.00" duration="60.00"/>\\n'
open(path, "w").write(text.replace("</tripinfos>", made_up + "</tripinfos>"))
"""


def test_a_real_tripinfo_with_one_made_up_trip_is_rejected_by_rerunning_sumo(
    tmp_path: Path,
) -> None:
    attempt = scripted(
        tmp_path, "tripinfo-run", _ONE_MORE_TRIP, before=[SIMULATE], claims=METRICS_CLAIMS[1:]
    )
    verdicts = _rejected(attempt, "tripinfo-run", "the attempt reproduces")
    (finding,) = [f for f in verdicts.check.findings if TRIPINFO in f.message]
    assert "sumo run on its own configuration differs" in finding.message


def test_a_tripinfo_planted_after_the_run_is_rejected(
    real: dict[str, Path], tmp_path: Path
) -> None:
    attempt = copy(real["tripinfo-run"], tmp_path)
    path = attempt / TRIPINFO
    path.write_text(path.read_text().replace('duration="', 'duration="1', 1))
    verdicts = _rejected(attempt, "tripinfo-run", "a recorded command wrote every output")
    assert any("no recorded command wrote it" in f.message or "changed since" in f.message
               for f in verdicts.check.findings)  # fmt: skip


# -- a network of junctions without roads

_JUNCTIONS_ONLY = """\
junctions = "".join(
    f'<junction id="J{x}{y}" type="priority" x="{150 * x}.00" y="{150 * y}.00"/>'
    for x in range(4) for y in range(4)
)
open("outputs/grid.net.xml", "w").write(f'<net version="1.20">{junctions}</net>\\n')
"""

_FORGED_HEADER = """\
import re, subprocess
subprocess.run(["netgenerate", "--grid", "--grid.number=4", "--grid.length=150",
                "--output-file=outputs/grid.net.xml"], check=True)
real = open("outputs/grid.net.xml").read()
header = real[: real.index("<net ")]
junctions = "".join(
    f'<junction id="J{x}{y}" type="priority" x="{150 * x}.00" y="{150 * y}.00"/>'
    for x in range(4) for y in range(4)
)
open("outputs/grid.net.xml", "w").write(header + f'<net version="1.20">{junctions}</net>\\n')
"""


@pytest.mark.parametrize("script", [_JUNCTIONS_ONLY, _FORGED_HEADER], ids=["bare", "forged"])
def test_a_network_of_junctions_without_roads_is_rejected(tmp_path: Path, script: str) -> None:
    attempt = scripted(tmp_path, "grid-network", script)
    verdicts = _rejected(attempt, "grid-network", "the attempt reproduces")
    (finding,) = [f for f in verdicts.check.findings if "grid.net.xml" in f.message]
    assert "no SUMO tool wrote" in finding.message or "netgenerate run" in finding.message


# -- a padded PNG

_PADDED_SIGNATURE = """\
open("outputs/running.png", "wb").write(b"\\x89PNG\\r\\n\\x1a\\n" + bytes(6000))
"""

_PADDED_IMAGE = """\
import matplotlib
matplotlib.use("Agg")
from matplotlib.figure import Figure
figure = Figure(figsize=(1, 1))
figure.add_subplot().plot([0, 1], [1, 0])
figure.savefig("outputs/running.png", dpi=40)
open("outputs/running.png", "ab").write(bytes(6000))
"""

_BLANK_IMAGE = """\
import numpy
from matplotlib import image
image.imsave("outputs/running.png", numpy.ones((400, 600)), cmap="gray")
with open("outputs/running.png", "rb") as fh:
    data = fh.read()
"""


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (_PADDED_SIGNATURE, "chunk"),
        (_PADDED_IMAGE, "bytes after the image's end"),
        (_BLANK_IMAGE, "a blank image"),
    ],
    ids=["signature", "after-iend", "blank"],
)
def test_a_png_that_is_not_a_figure_is_rejected(tmp_path: Path, script: str, problem: str) -> None:
    attempt = scripted(tmp_path, "summary-plot", script, before=[GRID_4, TRIPS, SIMULATE_900])
    verdicts = _rejected(attempt, "summary-plot", "images are images")
    assert any(problem in f.message for f in verdicts.check.findings), verdicts.check.findings


# -- appended and rewritten command records


def test_records_appended_from_inside_the_sandbox_change_nothing(tmp_path: Path) -> None:
    record = "../record/attempt-1/record.jsonl"
    success = json.dumps({"kind": "command", "inner": 9, "command": "true", "exit_code": 0})
    forge = (
        f"echo {shlex.quote(success)} >> commands.jsonl; "
        f"echo {shlex.quote(success)} >> {record} || true; "
        "python -c 'raise SystemExit(1)'"
    )
    attempt = build(tmp_path, "trip-metrics", [SIMULATE, ANALYSE, forge], claims=METRICS_CLAIMS)
    entries = Record(attempt).entries()
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))  # nothing appended
    # Read-only where the episode is visible inside the sandbox; absent where it lies in the
    # machine's /tmp, which the sandbox replaces with its own.
    refused = (attempt / "logs" / "1-3.err").read_text()
    assert "Read-only file system" in refused or "No such file or directory" in refused
    verdicts = _rejected(attempt, "trip-metrics", "commands exited 0")
    assert any("failed: exit code 1" in f.message for f in verdicts.check.findings)


def test_a_record_edited_after_the_fact_is_rejected(real: dict[str, Path], tmp_path: Path) -> None:
    attempt = copy(real["tripinfo-run"], tmp_path)
    path = record_folder(attempt) / "record.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[-2]) | {"exit_code": 0, "duration_s": 1.0}
    path.write_text("\n".join([*lines[:-2], json.dumps(entry), lines[-1]]) + "\n")
    _rejected(attempt, "tripinfo-run", "the record is intact")


def _forged_then_replayed(attempt: Path, task_id: str, seq: int, fields: dict[str, object],
                          message: str) -> None:  # fmt: skip
    """A record entry rewritten with a new digest chain, as a careful forger would: the chain
    holds, so only the replay can tell, and it must say `message`."""
    rewrite_record(attempt, {seq: fields})
    verdicts = _rejected(attempt, task_id, "the attempt reproduces")
    assert any(message in f.message for f in verdicts.check.findings), verdicts.check.findings


def test_a_crash_whose_record_was_rewritten_with_a_new_chain_fails_on_the_replay(
    tmp_path: Path,
) -> None:
    crash_after = f"{ANALYSE} && python -c 'raise SystemExit(3)'"
    attempt = build(tmp_path, "trip-metrics", [SIMULATE, crash_after], claims=METRICS_CLAIMS)
    crashed = Record(attempt).commands()[-1]
    assert crashed.exit_code == 3
    message = "fails (3) on the replay; the record says it succeeded"
    _forged_then_replayed(attempt, "trip-metrics", crashed.seq, {"exit_code": 0}, message)


def test_an_output_whose_digest_was_rewritten_to_a_fabrication_fails_on_the_replay(
    real: dict[str, Path], tmp_path: Path
) -> None:
    attempt = copy(real["trip-metrics"], tmp_path)
    metrics = attempt / "outputs" / "metrics.json"
    metrics.write_text(json.dumps({**json.loads(metrics.read_text()), "trips": 310}))
    analysed = Record(attempt).commands()[-1]
    created = {**analysed.created, "outputs/metrics.json": digest_file(metrics)}
    message = "outputs/metrics.json: the replay's copy differs"
    _forged_then_replayed(attempt, "trip-metrics", analysed.seq, {"created": created}, message)


# -- missing logs, links out of the attempt, a crash behind a pipe


def test_a_command_whose_logs_are_missing_is_rejected(
    real: dict[str, Path], tmp_path: Path
) -> None:
    attempt = copy(real["tripinfo-run"], tmp_path)
    (attempt / "logs" / "1-1.err").unlink()
    verdicts = _rejected(attempt, "tripinfo-run", "every command has its logs")
    assert any("logs/1-1.err" in f.message for f in verdicts.check.findings)


def test_a_required_output_linked_to_a_file_outside_the_attempt_is_rejected(
    real: dict[str, Path], tmp_path: Path
) -> None:
    elsewhere = real["trip-metrics"] / TRIPINFO
    link = f"ln -sf {shlex.quote(str(elsewhere))} {TRIPINFO}"
    attempt = build(tmp_path, "tripinfo-run", [SIMULATE, link], claims=METRICS_CLAIMS[1:])
    assert os.path.islink(attempt / TRIPINFO)
    verdicts = _rejected(attempt, "tripinfo-run", "no link leads out of the attempt")
    assert "required outputs exist" in verdicts.failed()


@pytest.mark.parametrize(
    "hidden",
    [
        "python -c 'raise RuntimeError(\"late crash\")' 2>&1 | tee outputs/notes.txt",
        "python -c 'raise RuntimeError(\"late crash\")' || true",
    ],
    ids=["pipe", "or-true"],
)
def test_a_crash_hidden_behind_a_pipe_or_an_or_is_rejected(tmp_path: Path, hidden: str) -> None:
    attempt = build(
        tmp_path, "trip-metrics", [SIMULATE, f"{ANALYSE} && {hidden}"], claims=METRICS_CLAIMS
    )
    checks = "commands exited 0" if "tee" in hidden else "no crash in the logs"
    if "tee" in hidden:
        # Under pipefail the pipeline fails; its traceback went to the pipe, not the log.
        assert Record(attempt).commands()[-1].exit_code == 1
    _rejected(attempt, "trip-metrics", checks)


# -- claims checked as claims


def test_a_count_off_by_two_is_rejected(tmp_path: Path) -> None:
    off = [claim("trips", 302, TRIPINFO, "xml_count", element="tripinfo")]
    attempt = build(tmp_path, "trip-metrics", [SIMULATE, ANALYSE], claims=off)
    verdicts = _rejected(attempt, "trip-metrics", "claims match artifacts")
    (finding,) = verdicts.check.findings
    assert "gives 300 (compared exactly)" in finding.message


def test_a_figure_in_the_prose_that_no_claim_backs_is_rejected(tmp_path: Path) -> None:
    attempt = build(
        tmp_path,
        "trip-metrics",
        [SIMULATE, ANALYSE],
        claims=METRICS_CLAIMS,
        summary="All 300 trips finished, in 81.2 s on average, and 4 were teleported.",
    )
    verdicts = _rejected(attempt, "trip-metrics", "the report's figures are claims")
    (finding,) = verdicts.check.findings
    assert "81.2, 4" in finding.message


def test_prose_that_repeats_its_claims_and_the_task_passes(real: dict[str, Path]) -> None:
    verdicts = _judge(real["trip-metrics"], "trip-metrics")  # "300 trips", "79.357 s": claims
    assert verdicts.check.passed and verdicts.verify.passed, verdicts


def test_a_record_whose_copies_are_gone_is_rejected_not_a_crash(
    real: dict[str, Path], tmp_path: Path
) -> None:
    attempt = copy(real["tripinfo-run"], tmp_path)
    shutil.rmtree(record_folder(attempt) / "files")
    verdicts = _rejected(attempt, "tripinfo-run", "the attempt reproduces")
    assert any("the record's copy" in f.message for f in verdicts.check.findings)


# -- TraCI: a header that claims control is evidence only where the record shows the process

_STEER = """\
import os, traci
traci.start([os.path.join(os.environ["SUMO_HOME"], "bin", "sumo"), "-n", "outputs/grid.net.xml",
             "-r", "outputs/routes.rou.xml", "--end", "1500", "--seed", "1", "--no-step-log",
             "--tripinfo-output", "outputs/{tripinfo}", "--statistic-output",
             "outputs/statistics.xml"])
while traci.simulation.getMinExpectedNumber() > 0 and traci.simulation.getTime() < 1500:
    traci.simulationStep()
traci.close()
"""
# A header as SUMO writes it for a TraCI run, copied into a script that runs no SUMO.
_HEADER = """\
<?xml version="1.0" encoding="UTF-8"?>

<!-- generated on 2026-12-06T15:57:01.995568+00:00 by Eclipse SUMO sumo 1.28.0
<sumoConfiguration>
    <input>
        <net-file value="outputs/grid.net.xml"/>
        <route-files value="outputs/routes.rou.xml"/>
    </input>
    <output>
        <tripinfo-output value="outputs/tripinfo.xml"/>
        <statistic-output value="outputs/statistics.xml"/>
    </output>
    <time>
        <end value="1500"/>
    </time>
    <traci_server>
        <remote-port value="8813"/>
    </traci_server>
</sumoConfiguration>
-->

"""
_COPIED_HEADER = (
    f"header = {_HEADER!r}\n"
    + """\
trip = '<tripinfo id="{i}" depart="{i}.00" arrival="{a}.00" duration="60.00"/>'
with open("outputs/tripinfo.xml", "w") as fh:
    fh.write(header + "<tripinfos>\\n" + "\\n".join(trip.format(i=i, a=i + 60) for i in range(300)))
    fh.write("\\n</tripinfos>\\n")
with open("outputs/statistics.xml", "w") as fh:
    fh.write(header + '<statistics><vehicles loaded="300" inserted="300" running="0" '
             'waiting="0"/><teleports total="0"/></statistics>\\n')
"""
)
# After a real TraCI run, the tripinfo rewritten under SUMO's own header: one trip more.
_STEERED_THEN_EDITED = _STEER.format(tripinfo="tripinfo.xml") + _ONE_MORE_TRIP
# A real TraCI run writes elsewhere; its header is put on an invented tripinfo.
_HEADER_BORROWED = (
    _STEER.format(tripinfo="real-tripinfo.xml")
    + """\
real = open("outputs/real-tripinfo.xml").read()
trip = '<tripinfo id="{i}" depart="{i}.00" arrival="{a}.00" duration="60.00"/>'
invented = "\\n".join(trip.format(i=i, a=i + 60) for i in range(300))
open("outputs/tripinfo.xml", "w").write(
    real[: real.index("<tripinfos")] + "<tripinfos>\\n" + invented + "\\n</tripinfos>\\n"
)
"""
)


def test_a_real_traci_run_passes_and_the_record_shows_sumo_steered(tmp_path: Path) -> None:
    steer = _STEER.format(tripinfo="tripinfo.xml")
    attempt = scripted(tmp_path, "tripinfo-run", steer, claims=METRICS_CLAIMS)
    (command,) = Record(attempt).commands()
    (sumo,) = [p for p in command.processes if p.name == "sumo"]
    assert sumo.option("remote-port") is not None
    assert TRIPINFO in sumo.writing and command.writes[TRIPINFO][0] == "created"
    verdicts = _judge(attempt, "tripinfo-run")
    assert verdicts.check.passed, verdicts.check.findings
    assert verdicts.verify.passed, verdicts.verify
    assert "SUMO steered through TraCI" in verdicts.check.reproduced[TRIPINFO]


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        (_COPIED_HEADER, "ran no SUMO process on that port"),
        (_STEERED_THEN_EDITED, "something besides SUMO wrote it"),
        (_HEADER_BORROWED, "did not hold it open for writing"),
    ],
    ids=["copied-header-no-sumo", "steered-then-edited", "header-borrowed"],
)
def test_a_tripinfo_claiming_traci_control_without_it_is_rejected(
    tmp_path: Path, script: str, problem: str
) -> None:
    claims = METRICS_CLAIMS[1:] if script is _STEERED_THEN_EDITED else METRICS_CLAIMS
    attempt = scripted(tmp_path, "tripinfo-run", script, claims=claims)
    verdicts = _rejected(attempt, "tripinfo-run", "the attempt reproduces")
    (finding,) = [f for f in verdicts.check.findings if f.message.startswith(TRIPINFO)]
    assert problem in finding.message, finding


# -- figures with units attached or in words; derived files of typed-in numbers


@pytest.mark.parametrize(
    ("stray", "figure"),
    [
        ("took 187s", "187s"),
        ("ran 2x faster", "2x"),
        ("ended at 7pm", "7pm"),
        ("saw forty-two late trips", "forty-two"),
        ("queued a dozen", "dozen"),
    ],
)
def test_a_figure_with_a_unit_attached_or_in_words_is_a_figure(
    tmp_path: Path, stray: str, figure: str
) -> None:
    attempt = build(
        tmp_path,
        "trip-metrics",
        [SIMULATE, ANALYSE],
        claims=METRICS_CLAIMS,
        summary=f"Simulated the given demand; the run {stray}.",
    )
    verdicts = _rejected(attempt, "trip-metrics", "the report's figures are claims")
    (finding,) = verdicts.check.findings
    assert f"the report states {figure} in its text" in finding.message


_INFLATED = """\
import json
path = "outputs/metrics.json"
metrics = json.load(open(path))
metrics["mean_duration_s"] = round(1.5 * metrics["mean_duration_s"], 3)
json.dump(metrics, open(path, "w"))
"""
_TYPED_CSV = """\
open("outputs/trips.csv", "w").write("id,duration,waitingTime\\n" + "".join(
    f"{i},{60 + i % 7}.00,0.00\\n" for i in range(300)))
"""
# Mean trip durations by the lane the trips departed from, each as the tripinfo gives it; then
# one of them made up: a group of the script's own (`early`), or a lane's figure that is the
# mean of all trips (within the range of the lane's trips, but not their mean).
_GROUPED = """\
import json, sys, xml.etree.ElementTree as ET
trips = list(ET.parse("outputs/tripinfo.xml").getroot().iter("tripinfo"))
lanes = {}
for t in trips:
    lanes.setdefault(t.get("departLane"), []).append(float(t.get("duration")))
means = {lane: round(sum(d) / len(d), 3) for lane, d in lanes.items()}
busiest = max(lanes, key=lambda lane: len(lanes[lane]))
if sys.argv[1] == "early":
    early = [float(t.get("duration")) for t in trips if float(t.get("depart")) < 300]
    means = {"early": round(sum(early) / len(early), 3)}
elif sys.argv[1] == "made-up":
    means = {busiest: round(sum(float(t.get("duration")) for t in trips) / len(trips), 3)}
json.dump({"mean_duration_s": means}, open("outputs/groups.json", "w"))
"""


def test_a_metrics_file_whose_mean_is_not_the_tripinfo_s_is_rejected(tmp_path: Path) -> None:
    inflated = claim(
        "mean_duration_s", 119.035, "outputs/metrics.json", "json_value", key="mean_duration_s"
    )
    attempt = scripted(
        tmp_path,
        "trip-metrics",
        _INFLATED,
        before=[SIMULATE, ANALYSE],
        claims=(METRICS_CLAIMS[0], inflated),
    )
    verdicts = _rejected(attempt, "trip-metrics", "derived files agree with SUMO's outputs")
    (finding,) = [f for f in verdicts.check.findings if f.check.startswith("derived")]
    assert "mean_duration_s = 119.03" in finding.message  # 1.5 x 79.357, rounded
    assert "the mean duration of <tripinfo> in outputs/tripinfo.xml is 79.3567" in finding.message


def test_a_csv_of_typed_in_trips_beside_a_real_run_is_rejected(tmp_path: Path) -> None:
    attempt = scripted(
        tmp_path, "trip-metrics", _TYPED_CSV, before=[SIMULATE, ANALYSE], claims=METRICS_CLAIMS
    )
    verdicts = _rejected(attempt, "trip-metrics", "derived files agree with SUMO's outputs")
    assert any("outputs/trips.csv: duration = " in f.message for f in verdicts.check.findings)


@pytest.mark.parametrize("figures", ["real", "early", "made-up"])
def test_a_figure_under_a_group_must_be_the_group_s_own(tmp_path: Path, figures: str) -> None:
    attempt = scripted(
        tmp_path,
        "trip-metrics",
        _GROUPED,
        before=[SIMULATE, ANALYSE],
        args=figures,
        claims=METRICS_CLAIMS,
    )
    check = check_attempt(attempt)
    if figures == "real":
        assert check.passed, check.findings
        return
    assert not check.passed
    (finding,) = check.findings
    assert finding.check == "derived files agree with SUMO's outputs"
    if figures == "early":  # within the range of all trips' durations, under a key of its own
        assert finding.message.endswith("no delivered SUMO output that gives duration holds early")
    else:
        assert "which no delivered SUMO output gives for " in finding.message
        assert "the mean duration of <tripinfo departLane=" in finding.message


# -- the checker alone: a SUMO output under another root, a task file gone or changed

_RENAMED_ROOT = """\
import os, subprocess
subprocess.run(["sumo", "-n", "outputs/grid.net.xml", "-r", "outputs/routes.rou.xml",
                "--end", "1500", "--tripinfo-output", "outputs/real.xml",
                "--statistic-output", "outputs/statistics.xml", "--no-step-log"], check=True)
text = open("outputs/real.xml").read()
body = text[text.index("<tripinfos"):].replace("<tripinfos", "<trips", 1)
body = body.replace("</tripinfos>", "</trips>").replace('duration="', 'duration="1')
open("outputs/tripinfo.xml", "w").write(body)
os.remove("outputs/real.xml")
"""


def test_a_sumo_output_under_a_renamed_root_without_a_header_is_refused(tmp_path: Path) -> None:
    attempt = scripted(tmp_path, "tripinfo-run", _RENAMED_ROOT, claims=METRICS_CLAIMS)
    check = check_attempt(attempt)  # learning has no verify.py: the checker alone must refuse
    assert not check.passed
    refused = "outputs/tripinfo.xml: a SUMO file (<tripinfo> elements) that no SUMO tool wrote"
    assert any(refused in f.message for f in check.findings), check.findings


@pytest.mark.parametrize("change", ["deleted", "edited"])
def test_an_attempt_whose_task_file_is_gone_or_changed_is_refused(
    real: dict[str, Path], tmp_path: Path, change: str
) -> None:
    attempt = copy(real["trip-metrics"], tmp_path)
    task = attempt.parent / "task.yaml"
    if change == "deleted":
        task.unlink()
    else:
        task.write_text(task.read_text().replace("- outputs/metrics.json\n", ""))
    check = check_attempt(attempt)
    assert not check.passed
    (finding,) = [f for f in check.findings if f.check == "the task is the one recorded"]
    assert ("is missing" if change == "deleted" else "changed since") in finding.message


# -- outputs that parse but record nothing: a real SUMO run with no vehicle in it

FCD_TASK = next(t for t in load_suite("v2") if t.task.id == "fcd-trace")
_FCD = "sumo -n outputs/town.net.xml {routes}--end 300 --fcd-output outputs/fcd.xml --no-step-log"


@pytest.mark.parametrize("routes", ["-r outputs/town.rou.xml ", ""], ids=["real", "no-vehicles"])
def test_an_fcd_output_with_no_vehicle_in_it_is_refused_and_a_real_one_passes(
    tmp_path: Path, routes: str
) -> None:
    attempt = build(tmp_path, "fcd-trace", [_FCD.format(routes=routes)], suite_task=FCD_TASK)
    check = check_attempt(attempt)  # the checker alone, as in learning
    verdict = verify(FCD_TASK, attempt)
    if routes:
        assert check.passed and verdict.passed, (check.findings, verdict)
        assert "sumo rerun" in check.reproduced["outputs/fcd.xml"]
        return
    # SUMO wrote it (it would reproduce): 301 empty timesteps, no vehicle.
    assert "<vehicle " not in (attempt / "outputs/fcd.xml").read_text()
    assert not check.passed and not verdict.passed
    (finding,) = check.findings
    assert finding.check == "SUMO outputs not empty"
    assert (
        finding.message == "outputs/fcd.xml records nothing: SUMO wrote no <container> or "
        "<person> or <vehicle>"
    )
