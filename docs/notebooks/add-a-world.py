# %% [markdown]
# # Adding a world: El Farol
#
# [Add a world](../add-a-world.md) builds W. Brian Arthur's bar problem as a world of its
# own: every week each agent decides alone whether to go to the bar, which is enjoyable
# only while at most 60% go. The world is a folder of rules that knows nothing of language
# models; its mind is one model call a week; a binding joins them. Everything else (the
# engine, the log, sweeps, the viewer, these tables) came for free. The world's rules:

# %%
import inspect

from simulacra.worlds.elfarol import ElFarolWorld

print(inspect.getsource(ElFarolWorld.resolve))

# %% [markdown]
# Thirty weeks with 100 agents. On the **scripted** model each agent keeps a bag of three
# of Arthur's predictors and trusts the one that would have erred least (a fixture with
# Arthur's behaviour, not a model of people), so the run takes a second; with a language
# model each agent answers the same prompt instead.

# %%
import tempfile

import matplotlib.pyplot as plt

import simulacra

runs = tempfile.mkdtemp(prefix="simulacra-runs-")
run = simulacra.run("scenarios/elfarol.yaml", model="scripted", set={"output.root": runs})
run.summary()

# %%
weeks = run.events("world")
attendance = [d.get("attendance") for d in weeks["data"]]
weekly = weeks.assign(attendance=attendance).dropna(subset=["attendance"])
ax = weekly.plot(x="t", y="attendance", figsize=(8, 3), legend=False, marker=".")
ax.axhline(60, color="grey", linestyle="--")
ax.set_title("people at the bar each Thursday (the bar is crowded above 60)")
ax.set_xlabel("")
plt.show()

# %% [markdown]
# The same world under another threshold is one override away:

# %%
strict = simulacra.run(
    "scenarios/elfarol.yaml", model="scripted", set={"world.threshold": 0.4, "output.root": runs}
)
{
    "threshold 0.6": run.summary()["mean_attendance"],
    "threshold 0.4": strict.summary()["mean_attendance"],
}
