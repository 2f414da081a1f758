"""What every mind shares: the ablations of a generative mind's faculties, the context a mind
thinks in (its memory, model, event sink and seeds), and interviews. Each world's minds live
in their own folder: `mind/town/` (the generative agent and the routine agent), `mind/grid/`,
`mind/commuter/`, `mind/elfarol/`, `mind/embodied/`."""

from simulacra.core import InterviewAnswer
from simulacra.mind.ablation import Ablation
from simulacra.mind.context import call_seed
from simulacra.runlog import EventSink

__all__ = ["Ablation", "EventSink", "InterviewAnswer", "call_seed"]
