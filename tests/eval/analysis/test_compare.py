"""Paired comparisons of two systems: hand-made verdicts with a known difference and McNemar p, and
the refusals (different questions, different benchmarks)."""

from __future__ import annotations

import pytest
from runfolders import write_run

from memsuite.eval.analysis.compare import compare, outcome_spec, sides
from memsuite.eval.benchmarks.meme.scoring import meme_scores
from memsuite.eval.cli.main import main
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition
from memsuite.eval.run.folder import load_runs
from memsuite.memory_systems.errors import ConfigError


def _row(system: str, episode: int, qid: int, correct: bool, task: str = "ER") -> Row:
    return Row(
        system, "meme", f"e{episode}", f"q{qid}", "q", "gold", "ctx",
        verdicts={"evidence": {"correct": correct}},
        metadata={"task": task, "phase": "after", "entities": [f"x{qid}"]},
    )  # fmt: skip


#: 15 ER questions over 5 episodes (3 each). A right / B wrong on 1, A wrong / B right on 6, both right
#: on 5, both wrong on 3: the McNemar case worked by hand in tests/eval/analysis/test_stats.py (p = 0.125).
PATTERN = [(True, False)] * 1 + [(False, True)] * 6 + [(True, True)] * 5 + [(False, False)] * 3


def _runs(tmp_path, pattern=PATTERN, drop_b: int | None = None):
    a = [_row("bm25", i // 3, i, x) for i, (x, _) in enumerate(pattern)]
    b = [_row("dense", i // 3, i, y) for i, (_, y) in enumerate(pattern) if i != drop_b]
    paths = []
    for name, rows in (("a", a), ("b", b)):
        scores = {"by_judge": {"evidence": meme_scores(rows, "evidence")}}
        paths.append(write_run(tmp_path / name, benchmark="meme", rows=rows, scores=scores))
    return load_runs(paths)


def test_difference_interval_and_mcnemar_on_hand_made_verdicts(tmp_path):
    run_a, run_b = _runs(tmp_path)
    a, b = sides(run_a, "bm25", run_b, "dense")
    (er, overall) = compare(outcome_spec(definition("meme")), a, b, "evidence")
    assert er.cell == "ER" and er.n == 15
    assert (er.rate_a, er.rate_b) == pytest.approx((6 / 15, 11 / 15))
    assert er.difference.value == pytest.approx(-5 / 15)
    assert er.difference.lo < er.difference.value < er.difference.hi
    assert (er.a_only, er.b_only, er.p_value) == (1, 6, pytest.approx(0.125))
    assert overall.cell == "overall" and overall.difference.value == pytest.approx(-5 / 15)


def test_cli_prints_the_table_and_says_when_a_difference_is_not_significant(tmp_path, capsys):
    _runs(tmp_path)
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert "| ER | 15 | 0.40 | 0.73 | -0.33 |" in out and "0.125" in out and "not significant" in out
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--csv"]) == 0
    assert capsys.readouterr().out.startswith("cell,n,a/bm25,b/dense,difference,95% lo,95% hi,McNemar p")


def test_a_clear_difference_is_read_as_one(tmp_path):
    pattern = [(True, False)] * 12 + [(True, True)] * 3
    run_a, run_b = _runs(tmp_path, pattern)
    er = compare(outcome_spec(definition("meme")), *sides(run_a, "bm25", run_b, "dense"), "evidence")[0]
    assert er.p_value == pytest.approx(2 / 4096) and er.difference.lo > 0


def test_different_question_sets_are_refused_saying_why(tmp_path, capsys):
    run_a, run_b = _runs(tmp_path, drop_b=4)
    expected = r"asked different questions -- 1 only in a/bm25, 0 only in b/dense \(e\.g\. e1/q4\)"
    with pytest.raises(ConfigError, match=expected):
        compare(outcome_spec(definition("meme")), *sides(run_a, "bm25", run_b, "dense"), "evidence")
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert "different questions" in capsys.readouterr().err
