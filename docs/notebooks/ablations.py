# %% [markdown]
# # Comparing ablations with intervals
#
# The commute study's memory ablation: **A1** (weekly plan only), **B1** (plus daily
# reflection and re-planning) and **Full** (plus the weekly abstraction), each run with
# several seeds. `simulacra.sweep` runs every variant x replicate (on local processes, or
# Ray); `Sweep.table()` is one row per run and `Sweep.summary()` each figure's mean with its
# 95% Student-t interval. The **scripted** commuters make the differences mechanical: the
# figures check the pipeline, not a model.

# %%
import tempfile

import matplotlib.pyplot as plt

import simulacra

sweep = simulacra.sweep(
    "scenarios/commute.yaml",
    model="scripted",
    set={
        "agents.mix": {"student": 4, "factory_worker": 4, "elderly_resident": 4},
        "clock.ticks": 10,
        "world.city.taxi_strikes.0.days": [6, 7, 8],
        "memory.embedder": "hashing",
        "output.report": False,
        "sweep.replicates": 3,
    },
    workers=2,
    root=tempfile.mkdtemp(prefix="simulacra-sweeps-"),
)
table = sweep.table()
table[["variant", "replicate", "seed", "on_time", "late", "calls_per_agent_tick"]]

# %%
summary = sweep.summary()
summary[summary["figure"].isin(["late", "calls_per_agent_tick"])]

# %%
figure, axes = plt.subplots(1, 2, figsize=(9, 3))
for ax, name in zip(axes, ["late", "calls_per_agent_tick"], strict=True):
    rows = summary[summary["figure"] == name]
    ax.errorbar(
        rows["variant"],
        rows["mean"],
        yerr=[rows["mean"] - rows["low"], rows["high"] - rows["mean"]],
        fmt="o",
        capsize=4,
    )
    ax.set_title(f"{name} (mean, 95% interval)")
plt.show()

# %% [markdown]
# ## SQL over every run
#
# `Sweep.sql` queries every run's tables with DuckDB, from Parquet files written beside the
# sweep (`simulacra export SWEEP --to parquet` writes the same), so a sweep too large for
# memory can still be summarised. Model calls per purpose and variant:

# %%
sweep.sql("""
    SELECT variant, purpose, count(*) AS calls, round(avg(latency_s) * 1000, 3) AS mean_ms
    FROM calls GROUP BY variant, purpose ORDER BY variant, purpose
""")
