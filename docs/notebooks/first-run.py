# %% [markdown]
# # A first run and its report
#
# A run of the town of Generative Agents from Python: three agents, one morning, on the
# **scripted** model, a deterministic stand-in that answers in microseconds so that this
# page runs anywhere (its answers say so; they test the pipeline, not a language model:
# see [Using a served model](../served-model.md) for studies). Paths are relative to the
# repository's root; the runs go to a scratch folder.

# %%
import tempfile

import matplotlib.pyplot as plt

import simulacra

runs = tempfile.mkdtemp(prefix="simulacra-runs-")
run = simulacra.run(
    "scenarios/town.yaml",
    model="scripted",
    set={
        "agents.count": 3,
        "clock.duration": "3h",
        "memory.embedder": "hashing",  # the test embedder: no model files to load
        "interviews.times": ["08:00", "09:30"],
        "world.attendance": None,
        "output.root": runs,
    },
)
run

# %% [markdown]
# The same run from the command line is
# `simulacra run scenarios/town.yaml --model scripted --set agents.count=3 ...`; it prints
# the run directory, which `simulacra.open_run(path)` opens again later.
#
# Every table is read from the run's event log (`events.jsonl`). What happened, by kind:

# %%
events = run.events()
events["kind"].value_counts()

# %% [markdown]
# Simulated time is a datetime column, so pandas resamples it. Model calls per simulated
# half hour, by what they were for:

# %%
calls = run.calls()
per_slot = calls.groupby([calls["t"].dt.floor("30min"), "purpose"]).size().unstack(fill_value=0)
per_slot

# %%
ax = per_slot.plot.bar(stacked=True, figsize=(8, 3), rot=0, title="model calls per half hour")
ax.set_xticklabels([t.strftime("%H:%M") for t in per_slot.index])
ax.set_xlabel("simulated time")
plt.show()

# %% [markdown]
# The headline figures (also in `metrics.json`) and the interviews' awareness over time:

# %%
run.summary()

# %%
run.metrics().query("name == 'aware'")[["t", "value", "agents"]]

# %% [markdown]
# ## The report and the viewer
#
# The run wrote `report.html` (the diffusion of news, each agent's day as a timeline,
# conversations, the model budget) and `viewer.html` (the replay). Open them in a browser,
# or serve them: `simulacra view RUN` (add `--live` to follow a run while it is written).

# %%
print(run.report.name, run.report.stat().st_size // 1024, "KiB")
print(run.viewer.name, run.viewer.stat().st_size // 1024, "KiB")

# %% [markdown]
# Ask an agent something; it answers from a copy of its memory and names what it used:

# %%
answer = run.interview("marta_okafor", "What are you doing this morning?")
print(answer.answer)
run.memories().set_index("id").loc[list(answer.memory_ids), ["kind", "text"]]
