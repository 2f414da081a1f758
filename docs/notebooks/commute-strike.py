# %% [markdown]
# # The commute strike study
#
# Cognitive commuters in a corridor city with a bus line, a taxi fleet and footpaths, for
# 20 working days; on days 11 to 15 80% of the taxis strike. Each commuter plans its week,
# reflects on each day and re-plans; the builtin executor (SimPy) plays every trip. The
# study's population is 320 agents on a served model; this page runs 40 on the **scripted**
# commuters, whose choices follow fixed rules, to show the pipeline and the analysis.

# %%
import tempfile

import matplotlib.pyplot as plt
import pandas as pd

import simulacra

run = simulacra.run(
    "scenarios/commute.yaml",
    model="scripted",
    set={
        "agents.mix": {
            "student": 10,
            "administrative_worker": 10,
            "elderly_resident": 10,
            "factory_worker": 10,
        },
        "memory.embedder": "hashing",
        "output.root": tempfile.mkdtemp(prefix="simulacra-runs-"),
    },
)
run.summary()

# %% [markdown]
# The world's state after each day is a `world` event, at the day's end (the next morning);
# its `data` (a dict) carries the day's modal split and taxi wait, among the agents' positions.

# %%
days = run.events("world")
state = pd.json_normalize(days["data"].tolist()).drop(columns="step")
state = state.loc[:, ~state.columns.str.startswith("agents.")]
state.insert(0, "as of", days["t"].to_numpy())
state.dropna(how="all", axis=1).tail(12)

# %%
trips = run.events("action")
outcomes = pd.json_normalize(trips["data"].tolist())
share = pd.crosstab(outcomes["day"], outcomes["mode"], normalize="index")
figure, (wait, split) = plt.subplots(1, 2, figsize=(10, 3))
state.plot(x="day", y="taxi_wait_min", ax=wait, legend=False, marker=".", title="taxi wait (min)")
share.plot.area(ax=split, title="modal split")
for ax in (wait, split):
    ax.axvspan(10.5, 15.5, color="grey", alpha=0.2)  # the strike
    ax.set_xlabel("working day")
plt.show()

# %% [markdown]
# The scripted commuters choose from who they are (so the people of a profile spread over
# the modes), and when a strike day makes a taxi rider late, some give the taxi up for the
# bus and others leave earlier: the split moves during the strike, not all at once. The
# strike is never announced; with a served model the commuters reflect on yesterday's trip
# and re-plan, which is the study's question. Each trip's outcome, by mode:

# %%
outcomes.groupby("mode")[["wait_min", "in_vehicle_min", "lateness_min", "cost_eur"]].mean().round(1)
