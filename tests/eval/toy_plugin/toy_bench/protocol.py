"""The toy protocol: store one fact per unit among the others, then ask for it."""

from __future__ import annotations

from memsuite.eval.answer import judge
from memsuite.eval.protocol import Row, Scores
from toy_bench.data import CAPITALS


class ToyBenchmark:
    def __init__(self, countries: int = len(CAPITALS)) -> None:
        self._countries = list(CAPITALS)[:countries]

    def units(self) -> list[str]:
        return self._countries

    def run_unit(self, system, unit_id, ctx):
        system.store([f"The capital of {c} is {CAPITALS[c]}." for c in CAPITALS], namespace=unit_id)
        question = f"What is the capital of {unit_id}?"
        result = system.retrieve(question, k=1, namespace=unit_id)
        usage: dict = {}
        verdicts = judge(ctx, CAPITALS[unit_id], None, result.context, usage)
        yield Row(
            system.name, ctx.benchmark, unit_id, "q", question, CAPITALS[unit_id], result.context,
            verdicts=verdicts, metadata={"category": "capitals"},
        )  # fmt: skip

    def summarize(self, rows):
        found = [r.verdicts["found"]["correct"] for r in rows if "found" in r.verdicts]
        return Scores(extras={"found": sum(found) / len(found) if found else None, "questions": len(rows)})
