"""The composite practice tasks of the scripted curriculum: (stage, tier, text, inputs,
required outputs). None is a suite task or a variant of one: no practice task's required
outputs equal, hold or are held by a suite task's, and no text matches one
(tests/lab/test_suites.py checks)."""

from simulacra.lab.tasks import Category

PRACTICE: tuple[tuple[Category, int, str, dict[str, str], list[str]], ...] = (
    (Category.simulation, 1,
     "Build a {grid} x {grid} grid with {length} m blocks, make random trips every {period} s "
     "until {end} s (seed {seed}), simulate them and deliver the run's statistics and summary.",
     {"grid": "5", "length": "120", "lanes": "1", "lights": "no", "period": "4", "end": "800",
      "seed": "11"}, ["outputs/statistics.xml", "outputs/summary.xml"]),
    (Category.signals, 2,
     "On a signalised {grid} x {grid} grid with {length} m blocks, run every light on a {cycle} s "
     "cycle and simulate random trips every {period} s until {end} s (seed {seed}); deliver the "
     "program and the run's statistics.",
     {"grid": "3", "length": "180", "lanes": "1", "lights": "yes", "cycle": "75", "period": "3",
      "end": "900", "seed": "12"}, ["outputs/tls.add.xml", "outputs/statistics.xml"]),
    (Category.demand, 2,
     "Make random trips every {period} s until {end} s (seed {seed}) on a new {grid} x {grid} "
     "grid of {length} m blocks, drive them in SUMO, and keep the trip information and the "
     "summary of the run.",
     {"grid": "4", "length": "160", "lanes": "1", "lights": "no", "period": "2", "end": "700",
      "seed": "13"}, ["outputs/tripinfo.xml", "outputs/summary.xml"]),
    (Category.analysis, 3,
     "Drive random trips (every {period} s until {end} s, seed {seed}) through a {grid} x {grid} "
     "grid of {length} m blocks; summarise the trips and plot the vehicles running.",
     {"grid": "3", "length": "220", "lanes": "1", "lights": "no", "period": "3", "end": "1000",
      "seed": "14"}, ["outputs/metrics.json", "outputs/running.png"]),
    (Category.analysis, 3,
     "Summarise the trips of a run on a {grid} x {grid} grid ({length} m, trips every {period} s "
     "until {end} s, seed {seed}) and keep the run's step summary.",
     {"grid": "4", "length": "140", "lanes": "1", "lights": "no", "period": "2.5", "end": "1100",
      "seed": "15"}, ["outputs/metrics.json", "outputs/summary.xml"]),
    (Category.signals, 3,
     "On a signalised {grid} x {grid} grid of {length} m blocks with trips every {period} s until "
     "{end} s (seed {seed}), compare cycles of {cycles} s and plot the vehicles running.",
     {"grid": "3", "length": "200", "lanes": "1", "lights": "yes", "cycles": "45,75",
      "period": "3", "end": "1200", "seed": "16"},
     ["outputs/comparison.json", "outputs/running.png"]),
)  # fmt: skip
