"""The toy's judges: the capital is in what the memory returned (found); the answer is it (exact)."""

from memsuite.eval.answer import Judge
from memsuite.eval.registry import register_judge

register_judge("toy", "found")(
    Judge(lambda inp: {"correct": inp.case.lower() in inp.context.lower()}, needs_answer=False)
)
register_judge("toy", "exact")(Judge(lambda inp: {"correct": inp.answer.text.strip() == inp.case}))
