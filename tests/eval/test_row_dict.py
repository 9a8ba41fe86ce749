"""A row as plain data: the same as ``dataclasses.asdict``, every container a copy."""

from __future__ import annotations

import dataclasses

from memsuite.eval.protocol import Row


@dataclasses.dataclass(frozen=True)
class _Span:
    start: int
    ids: tuple[str, ...]


def test_to_dict_is_asdict_and_copies_every_container():
    ranking = [f"d{i}" for i in range(5)]
    row = Row(
        "bm25",
        "beam",
        "100K/1",
        "q1",
        "When?",
        {"items": ["a", ("b", 2)]},
        "ctx",
        verdicts={"retrieval": {"metrics": {"recall_all@1": 1.0}, "correct": True}},
        usage={"retrieve_ms": 1.5},
        metadata={"ranking": ranking, "span": _Span(3, ("x",)), "pair": (1, [2]), "none": None},
    )
    found = row.to_dict()
    assert found == dataclasses.asdict(row)
    assert found["metadata"]["span"] == {"start": 3, "ids": ("x",)}
    found["metadata"]["ranking"].append("new")
    found["metadata"]["pair"][1].append(3)
    assert row.metadata["ranking"] == ranking[:5] and len(ranking) == 5
    assert row.metadata["pair"] == (1, [2])
