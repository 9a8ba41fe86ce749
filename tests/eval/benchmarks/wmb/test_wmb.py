"""WMB-100K: loader on the real sample and on malformed files, judges, scores, calibration, protocol."""

from __future__ import annotations

import inspect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from runfolders import write_run

from memsuite.eval.benchmarks.wmb.calibration import calibrate, calibrate_run
from memsuite.eval.benchmarks.wmb.judges import (
    JudgeCallError,
    content_stems,
    judge_coverage,
    judge_false_memory,
    judge_llm,
    judge_prompt,
    parse_judge_reply,
)
from memsuite.eval.benchmarks.wmb.loader import (
    find_turn_file,
    gold_turns_loaded,
    load_documents,
    load_questions,
    load_turns,
    select_within_turns,
)
from memsuite.eval.benchmarks.wmb.protocol import WMBBenchmark, resolve_min_score
from memsuite.eval.benchmarks.wmb.schema import CATEGORIES, QTYPES, QUICK_CATEGORIES
from memsuite.eval.benchmarks.wmb.scoring import (
    FALSE_MEMORY,
    _merges,
    _qtype,
    _situational_verdict,
    grade,
    kept_hits,
    latency_percentiles,
    result_json,
    speed_penalty,
    wmb_scores,
)
from memsuite.eval.cli.main import main
from memsuite.eval.protocol import Row
from memsuite.eval.registry import definition, get_benchmark
from memsuite.eval.run.config import load_config
from memsuite.memory_systems.errors import ConfigError, DatasetError
from memsuite.memory_systems.registry import get_system


def rescore(row: Row, min_score: float | None) -> Row:
    """The row as it would be with another abstention cutoff, re-judged by the coverage judge.

    Memories are re-selected from the recorded hits (``metadata["hits"]``, taken before any cutoff);
    the "rule" verdict is recomputed, and other judges' verdicts are dropped (they would need new
    calls). Latency is unchanged: the search was the same.
    """
    hits = kept_hits(row.metadata.get("hits") or [], min_score, merge=_merges(row))
    memories = [hit["text"] for hit in hits]
    is_probe = _qtype(row) == FALSE_MEMORY
    verdict = judge_false_memory(memories) if is_probe else _situational_verdict(row, memories)
    metadata = {
        **row.metadata,
        "memories": memories,
        "min_score": min_score,
        "gold_turn_retrieved": _gold_flag(row, hits),
    }
    return replace(row, context="\n".join(memories), verdicts={"rule": verdict}, metadata=metadata)


def _gold_flag(row: Row, hits: Sequence[Mapping[str, Any]]) -> bool | None:
    if not row.metadata.get("gold_turn_ids"):
        return None
    return any(hit.get("gold") for hit in hits)


CONFIGS = Path(__file__).resolve().parents[4] / "configs"


# -- helpers ---------------------------------------------------------------------------------------
def _turn(turn_id: int, text: str, category: str = "daily_life", speaker: str = "user") -> dict:
    return {
        "turn_id": turn_id,
        "category": category,
        "speaker": speaker,
        "text": text,
        "embedded_facts": [],
        "fact_type": None,
    }


def _question(qid: str, qtype: str = "S1Situational", category: str = "daily_life", **fields) -> dict:
    probe = qtype == "FalseMemory"
    return {
        "id": qid,
        "category": category,
        "qtype": qtype,
        "text": fields.pop("text", "What does the user drink?"),
        "gold_answer": "gold",
        "required_memories": fields.pop("required_memories", [] if probe else ["User drinks coffee"]),
        "gold_turn_ids": fields.pop("gold_turn_ids", []),
        "points": 0.0 if probe else 0.1,
        "false_penalty": 0.25 if probe else 0.0,
        **fields,
    }


def _write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _row(
    qid: str,
    qtype: str = "S1Situational",
    *,
    correct: bool | None = None,
    memories: tuple[str, ...] = (),
    latency_ms: float = 0.0,
    gold_turn_ids: tuple[int, ...] = (),
    hits: list[dict] | None = None,
    required: tuple[str, ...] = ("User drinks coffee",),
) -> Row:
    """A row as the protocol writes it (only the fields scoring reads)."""
    if qtype == "FalseMemory":
        correct, required = not memories, ()
    return Row(
        "sys",
        "wmb",
        "daily_life",
        qid,
        "question?",
        "gold",
        "\n".join(memories),
        verdicts={"rule": {"correct": correct}},
        usage={"latency_ms": latency_ms},
        metadata={
            "qtype": qtype,
            "memories": list(memories),
            "required_memories": list(required),
            "gold_turn_ids": list(gold_turn_ids),
            "namespaces": ["daily_life"],
            "hits": hits if hits is not None else [],
            "gold_turn_retrieved": bool(hits and any(h["gold"] for h in hits)) if gold_turn_ids else None,
        },
    )


def _hit(text: str, score: float, gold: bool = False) -> dict:
    return {"text": text, "score": score, "namespace": "daily_life", "gold": gold}


# -- loader on the real sample ---------------------------------------------------------------------
@pytest.mark.shared_data("wmb100k")
def test_loader_reads_the_real_sample(shared_data: Path) -> None:
    folder = shared_data / "wmb100k"
    conversation = load_turns(folder / "daily_life.prefix.jsonl", category="daily_life")
    assert len(conversation.turns) == 2240
    assert [t.line for t in conversation.turns] == list(range(1, 2241))
    assert conversation.turns[0].memory_text.startswith("user: Hey, I've been struggling")
    assert sum(1 for t in conversation.turns if t.embedded_facts) > 0
    # The quirk, on the real file: turn ids restart in overlapping blocks.
    assert len(conversation.lines_of(101)) == 2
    assert len({t.turn_id for t in conversation.turns}) < len(conversation.turns)

    questions = load_questions(folder / "questions.sample.json")
    assert len(questions) == 441
    assert sum(q.is_part_a for q in questions) == 120
    assert {q.qtype for q in questions} == set(QTYPES)
    assert all(q.category2 for q in questions if q.qtype == "S3CrossCategory")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    assert tuple(meta["categories"]) == CATEGORIES

    # README of the sample: 90 of 100 S1 and 114 of 124 questions with gold turns lie in the prefix.
    runnable = select_within_turns(questions, {"daily_life": conversation})
    situational = [q for q in runnable if not q.is_false_memory]
    assert len(situational) == 114
    assert sum(q.qtype == "S1Situational" for q in situational) == 90
    assert all(q.category == "daily_life" and not q.is_part_a for q in runnable)
    assert sum(q.is_false_memory for q in runnable) == 20

    work = load_turns(folder / "work_career.sample.jsonl")
    assert work.category == "work_career" and len(work.turns) == 68


def test_duplicate_turn_ids_match_every_line_that_carries_them(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "daily_life.jsonl",
        [_turn(i, f"turn {i} at line {n}") for n, i in enumerate([1, 2, 3, 2, 3, 4], 1)],
    )
    conversation = load_turns(path)
    assert conversation.lines_of(2) == (2, 4)
    assert conversation.lines_of(3) == (3, 5)
    assert conversation.lines_of(9) == ()
    assert conversation.turn_at(4).text == "turn 2 at line 4"
    question = load_questions(
        _questions_file(tmp_path, [_question("daily_life.S1.001", gold_turn_ids=[3, 4])])
    )[0]
    assert gold_turns_loaded(question, conversation)
    prefix = load_turns(path, limit=3)
    assert len(prefix.turns) == 3 and not gold_turns_loaded(question, prefix)


def _questions_file(tmp_path: Path, records: list) -> Path:
    path = tmp_path / "all_questions.json"
    path.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return path


# -- malformed files -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bad_line", "field"),
    [
        ('{"turn_id": 3, "speaker": "user", "text": "hi"', None),  # not JSON
        ('{"category": "daily_life", "speaker": "user", "text": "hi"}', "turn_id"),
        ('{"turn_id": "3", "category": "daily_life", "speaker": "user", "text": "hi"}', "turn_id"),
        ('{"turn_id": true, "category": "daily_life", "speaker": "user", "text": "hi"}', "turn_id"),
        ('{"turn_id": 3, "category": "daily_life", "speaker": "user", "text": 7}', "text"),
        ('{"turn_id": 3, "category": "daily_life", "text": "hi"}', "speaker"),
        (
            '{"turn_id": 3, "speaker": "user", "text": "hi", "embedded_facts": "x"}',
            "embedded_facts",
        ),
        ('{"turn_id": 3, "category": "work_career", "speaker": "user", "text": "hi"}', "category"),
        ("[1, 2]", None),
    ],
)
def test_malformed_turn_names_file_line_and_field(tmp_path: Path, bad_line: str, field: str | None) -> None:
    path = tmp_path / "daily_life.jsonl"
    good = [json.dumps(_turn(1, "fine")), "", json.dumps(_turn(2, "fine too"))]
    path.write_text("\n".join([*good, bad_line]) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_turns(path, category="daily_life")
    message = str(caught.value)
    assert f"{path}:4:" in message  # physical line: the blank line counts
    if field:
        assert f"field '{field}'" in message


def test_malformed_questions_name_file_line_and_field(tmp_path: Path) -> None:
    records = [_question("daily_life.S1.001"), _question("daily_life.S1.002", qtype="S9Telepathy")]
    path = _questions_file(tmp_path, records)
    with pytest.raises(DatasetError) as caught:
        load_questions(path)
    second_record_line = path.read_text().splitlines().index("  {", 2) + 1
    assert f"{path}:{second_record_line}: field 'qtype'" in str(caught.value)

    path = _questions_file(tmp_path, [_question("a.S1.001"), _question("a.S1.001")])
    with pytest.raises(DatasetError, match=r"duplicate id 'a\.S1\.001'"):
        load_questions(path)
    path = _questions_file(tmp_path, [_question("a.S1.001", gold_turn_ids=[1, "2"])])
    with pytest.raises(DatasetError, match="field 'gold_turn_ids'"):
        load_questions(path)
    path.write_text('{"id": "x"}', encoding="utf-8")
    with pytest.raises(DatasetError, match="expected a JSON array"):
        load_questions(path)
    with pytest.raises(DatasetError, match="not found"):
        load_turns(tmp_path / "missing.jsonl")
    with pytest.raises(DatasetError, match="tried"):
        find_turn_file(tmp_path, "travel_places")


def test_part_a_documents_split_at_article_banners(tmp_path: Path) -> None:
    banner = "=" * 60
    path = tmp_path / "law.txt"
    path.write_text(
        f"\n{banner}\nContract\n{banner}\n\nA contract is...\n\n== History ==\nOld.\n"
        f"\n{banner}\nTort\n{banner}\n\nA tort is...\n",
        encoding="utf-8",
    )
    documents = load_documents(path)
    assert [(d.domain, d.title, d.index) for d in documents] == [("law", "Contract", 0), ("law", "Tort", 1)]
    assert documents[0].text == "A contract is...\n\n== History ==\nOld."


# -- the coverage judge ----------------------------------------------------------------------------
def test_coverage_judge_small_cases() -> None:
    paraphrase = "user: Honestly, yeah. It's way better than just a blaring alarm. Wakes you up more gently."
    # Stems prefe gentl alarm blari ones: 3 of 5 covered (alarms~alarm, gentle~gently, blaring).
    verdict = judge_coverage(["User prefers gentle alarms over blaring ones"], [paraphrase])
    assert verdict["correct"] and verdict["coverage"] == [0.6]
    # The label of an S2-S7 required memory is not content.
    assert judge_coverage(["turn_150: It's way better than just a blaring alarm."], [paraphrase])["correct"]
    # Numbers count: 7:15 does not cover 6:30.
    assert not judge_coverage(["User wakes at 6:30"], ["user: I wake at 7:15 every day"])["correct"]
    # Every required memory must be found.
    two = judge_coverage(["User drinks coffee", "User owns a parrot named Kiwi"], ["user: I drink coffee"])
    assert not two["correct"] and two["found"] == 1
    assert judge_coverage(["User drinks coffee"], []) == {
        "correct": False,
        "reason": "nothing returned",
        "coverage": [],
        "found": 0,
        "required": 1,
    }
    # The judge reads 3,000 characters, as the reference does.
    late = ["x" * 2990, "user: I drink coffee every morning"]
    assert not judge_coverage(["User drinks coffee"], late)["correct"]
    assert judge_coverage(["User drinks coffee"], late[1:])["correct"]
    assert "user" not in content_stems("User: the user said") and content_stems("at 6:30") == {"6", "30"}


def test_llm_judge_hook_quick_and_official() -> None:
    prompts: list[str] = []

    def says(reply):
        def judge(prompt: str):
            prompts.append(prompt)
            if isinstance(reply, Exception):
                raise reply
            return reply

        return judge

    memories = ["user: I drink coffee"]
    quick = judge_llm("What does the user drink?", ["User drinks coffee"], memories, [says("CORRECT")])
    assert quick["correct"] is True and quick["votes"] == [True]
    assert (
        "User drinks coffee" in prompts[0]
        and "user: I drink coffee" in prompts[0]
        and "gold" not in prompts[0]
    )
    majority = judge_llm(
        "q", ["r"], memories, [says("CORRECT"), says("WRONG."), says("correct")], official=True
    )
    assert majority["correct"] is True
    failed = judge_llm(
        "q", ["r"], memories, [says("CORRECT"), says(JudgeCallError("down")), says("WRONG")], official=True
    )
    assert failed["correct"] is None and failed["errors"] == ["JudgeCallError: down"]
    with pytest.raises(TypeError):  # a bug in a judge wrapper is not a failed vote
        judge_llm("q", ["r"], memories, [says(TypeError("bad wrapper"))])
    calls = len(prompts)
    assert judge_llm("q", ["r"], [], [says("CORRECT")])["correct"] is False and len(prompts) == calls
    with pytest.raises(ConfigError, match="three"):
        judge_llm("q", ["r"], memories, [says("CORRECT")], official=True)
    assert [parse_judge_reply(r) for r in ("CORRECT", "Incorrect", "wrong", "maybe", "", None, True)] == [
        True,
        False,
        False,
        None,
        None,
        None,
        True,
    ]
    prompt = judge_prompt("q", ["a", "b"], ["m" * 4000])
    assert "m" * 3000 in prompt and "m" * 3001 not in prompt and "Required Memories: a, b" in prompt


# -- scores ----------------------------------------------------------------------------------------
def test_a_failed_judge_call_is_left_out_and_counted_not_scored_wrong() -> None:
    rows = [
        _row("daily_life.S1.001", correct=True, memories=("m",)),
        _row("daily_life.S1.002", correct=False, memories=("m",)),
        _row("daily_life.S1.003", memories=("m",)),
    ]
    rows[2].verdicts["rule"] = {"correct": None, "failure": "timeout", "failed_call": "judge"}
    scores = wmb_scores(rows)
    assert scores["part_b"] == {"correct": 1, "total": 2, "score": 50.0, "n_failed": 1}
    assert scores["qtype_accuracy"]["S1Situational"]["n_failed"] == 1 and scores["judge_failures"] == 1


def test_scores_on_hand_worked_rows() -> None:
    rows = [
        _row("daily_life.S1.001", correct=True, memories=("m",), latency_ms=100.4),
        _row("daily_life.S1.002", correct=True, memories=("m",), latency_ms=350.0),
        _row("daily_life.S1.003", correct=True, memories=("m",), latency_ms=600.0),
        _row("daily_life.S1.004", correct=False, memories=("m",), latency_ms=1200.0),
        _row("daily_life.S2MultiMemory.001", "S2MultiMemory", correct=True, memories=("m",)),
        _row("daily_life.FM.001", "FalseMemory", memories=("oops",), latency_ms=301.0),
        _row("daily_life.FM.002", "FalseMemory", latency_ms=300.9),
    ]
    scores = wmb_scores(rows)
    assert scores["part_b"] == {"correct": 3, "total": 4, "score": 75.0, "n_failed": 0}
    assert scores["part_b_s1_s7"] == {"correct": 4, "total": 5, "score": 80.0, "n_failed": 0}
    assert scores["fm"] == {"probes": 2, "false_positives": 1, "penalty": 0.25}
    # 0 + 0.01 + 0.05 + 0.1 + 0 + 0.01 + 0 (300.9 ms is 300 whole ms: no penalty)
    assert scores["speed"]["penalty"] == pytest.approx(0.17)
    # whole ms sorted: 0 100 300 301 350 600 1200 -> [7 // 2] = 301, [int(6.65)] = 1200
    assert (scores["speed"]["p50_ms"], scores["speed"]["p95_ms"]) == (301, 1200)
    assert scores["total"] == pytest.approx(75 - 0.25 - 0.17)
    assert scores["total_s1_s7"] == pytest.approx(80 - 0.25 - 0.17)
    assert (scores["grade"], scores["grade_s1_s7"]) == ("Good", "Good")
    assert scores["qtype_accuracy"]["S1Situational"] == {
        "correct": 3,
        "total": 4,
        "accuracy_pct": 75.0,
        "n_failed": 0,
    }
    assert scores["qtype_accuracy"]["FalseMemory"] == {
        "correct": 1,
        "total": 2,
        "accuracy_pct": 50.0,
        "n_failed": 0,
    }
    assert scores["qtype_accuracy"]["S7ReasoningChain"]["accuracy_pct"] is None
    assert scores["part_a"] is None and scores["judge_failures"] == 0

    official = result_json(rows)
    assert list(official) == [
        "system_name",
        "wmb_version",
        "scoring_mode",
        "judges_used",
        "part_a",
        "part_b",
        "fm",
        "speed",
        "total",
        "s_accuracy",
    ]
    assert official["part_b"] == {"correct": 4, "total": 5, "score": 80.0}  # the script counts S1-S7
    assert official["total"] == 79.6 and official["speed"] == {"p50_ms": 301, "p95_ms": 1200, "penalty": 0.2}
    assert official["fm"] == {"probes": 2, "false_positives": 1, "penalty": 0.2}  # round(0.25, 1)
    assert official["s_accuracy"]["FalseMemory"] == {"correct": 1, "total": 2}


def test_totals_are_not_clamped_and_part_a_is_separate() -> None:
    rows = [_row("x.S1.001", correct=False, memories=("m",))] + [
        _row(f"x.FM.{i:03d}", "FalseMemory", memories=("m",)) for i in range(8)
    ]
    rows.append(_row("law.DOC.S1.001", correct=True, memories=("m",)))
    scores = wmb_scores(rows)
    assert scores["total"] == -2.0 and scores["grade"] == "Failing"
    assert scores["part_a"] == {"correct": 1, "total": 1, "score": 100.0, "n_failed": 0}
    assert scores["part_b"]["total"] == 1


@pytest.mark.parametrize(
    ("total", "expected"),
    [
        (100, "Exceptional"),
        (90, "Exceptional"),
        (89.99, "Excellent"),
        (70, "Good"),
        (60.5, "Fair"),
        (50, "Below Average"),
        (49.9, "Failing"),
        (-12, "Failing"),
        (None, None),
    ],
)
def test_grade_bands(total, expected) -> None:
    assert grade(total) == expected


def test_speed_penalty_bands_and_percentiles() -> None:
    assert [speed_penalty(ms) for ms in (0, 300, 300.99, 301, 500.5, 501, 1000, 1001)] == [
        0.0,
        0.0,
        0.0,
        0.01,
        0.01,
        0.05,
        0.05,
        0.1,
    ]
    assert latency_percentiles([]) == (None, None)
    assert latency_percentiles([5.9]) == (5, 5)
    assert latency_percentiles(range(1, 101)) == (51, 96)


# -- abstention calibration ------------------------------------------------------------------------
def test_rescore_and_calibrate_pick_the_cutoff_that_drops_false_positives(tmp_path, capsys) -> None:
    relevant = _hit("user: I drink coffee every morning", 5.0, gold=True)
    noise = _hit("user: the weather is nice", 1.0)
    rows = [
        _row(
            f"daily_life.S1.{i:03d}",
            correct=True,
            memories=(relevant["text"], noise["text"]),
            gold_turn_ids=(7,),
            hits=[relevant, noise],
        )
        for i in range(4)
    ] + [
        _row(f"daily_life.FM.{i:03d}", "FalseMemory", memories=(noise["text"],), hits=[noise])
        for i in range(4)
    ]
    cut = rescore(rows[0], 3.0)
    assert cut.metadata["memories"] == [relevant["text"]] and cut.verdicts["rule"]["correct"]
    assert cut.metadata["gold_turn_retrieved"] and cut.context == relevant["text"]
    assert rescore(rows[-1], 3.0).verdicts["rule"]["correct"] is True

    result = calibrate(rows, tune_fraction=1.0)
    assert result.threshold == 5.0 and result.test == ()
    curve = {p.threshold: p for p in result.tune}
    assert list(curve)[:3] == [None, 1.0, 5.0] and len(curve) == 4
    assert (curve[None].part_b, curve[None].fm_penalty, curve[None].total) == (100.0, 1.0, 99.0)
    assert (curve[5.0].part_b, curve[5.0].fm_penalty, curve[5.0].total) == (100.0, 0.0, 100.0)
    nothing = result.tune[-1]
    assert nothing.threshold > 5.0 and (nothing.part_b, nothing.total) == (0.0, 0.0)

    halves = calibrate(rows, tune_fraction=0.5)
    assert len(halves.tune_ids) == len(halves.test_ids) == 4
    assert not set(halves.tune_ids) & set(halves.test_ids)
    # A split estimates the whole set's FM penalty: its false-positive rate x all 4 probes x 0.25.
    held = halves.held_out
    assert held is not None and held.fm_probes == 2 and held.fm_penalty == 0.0
    assert {p.fm_penalty for p in halves.test if p.threshold is None} == {1.0}
    with pytest.raises(ConfigError):
        calibrate(rows, tune_fraction=0)

    # A run folder: the CLI writes every system's curves beside the rows and names the cutoff.
    run_dir = write_run(tmp_path / "wmb", benchmark="wmb", rows=rows, scores={})
    assert main(["calibrate", str(run_dir), "--tune-fraction", "1.0"]) == 0
    assert "min_score = 5.0" in capsys.readouterr().out
    written = json.loads((run_dir / "calibration.json").read_text())
    assert written["sys"]["threshold"] == 5.0 and written["sys"]["best"]["total"] == 100.0
    other = write_run(tmp_path / "meme", benchmark="meme", rows=rows, scores={})
    with pytest.raises(ConfigError, match="not a WMB-100K run"):
        calibrate_run(other)


# -- protocol --------------------------------------------------------------------------------------
def _tiny_release(tmp_path: Path) -> Path:
    """Two categories with an S1 question on a duplicated turn id, an S3 question and a probe."""
    datasets = tmp_path / "datasets"
    datasets.mkdir()
    _write_jsonl(
        datasets / "daily_life.jsonl",
        [
            _turn(1, "I always drink oat milk coffee before work."),
            _turn(2, "That sounds like a good ritual.", speaker="assistant"),
            _turn(1, "I always drink oat milk coffee before work."),  # overlapping block repeats id 1
            _turn(3, ""),  # empty turns are not stored
            _turn(4, "My sister Marnel visits every Sunday for brunch."),
        ],
    )
    _write_jsonl(
        datasets / "relationships.jsonl",
        [
            _turn(1, "Marnel and I bake bread together on Sundays.", category="relationships"),
            _turn(2, "My sister Marnel visits every Sunday for brunch.", category="relationships"),
        ],
    )
    questions = [
        _question(
            "daily_life.S1.001",
            text="What coffee does the user drink before work?",
            required_memories=["User drinks oat milk coffee"],
            gold_turn_ids=[1],
        ),
        _question(
            "daily_life_relationships.S3.001",
            "S3CrossCategory",
            category2="relationships",
            text="What does the user do with Marnel on Sundays?",
            required_memories=[
                "from daily_life: Marnel visits on Sundays",
                "from relationships: they bake bread together",
            ],
        ),
        _question("daily_life.FM.001", "FalseMemory", text="What is the name of your pet iguana?"),
        _question(
            "relationships.S1.001",
            category="relationships",
            gold_turn_ids=[1],
            required_memories=["User bakes bread with Marnel"],
        ),
    ]
    _questions_file(datasets, questions)
    return tmp_path


def test_protocol_ingests_partners_merges_s3_and_abstains(tmp_path: Path) -> None:
    root = _tiny_release(tmp_path)
    benchmark = get_benchmark("wmb", data_dir=str(root))
    assert isinstance(benchmark, WMBBenchmark)
    assert benchmark.units() == ["daily_life", "relationships"]
    system = get_system("bm25")
    ctx = definition("wmb").context(k=5, options={"min_score": {"bm25": 0.01}})  # drops zero-score hits
    rows = {row.question_id: row for row in benchmark.run_unit(system, "daily_life", ctx)}
    assert set(rows) == {"daily_life.S1.001", "daily_life_relationships.S3.001", "daily_life.FM.001"}
    # The unit ingested its S3 partner; empty turns were skipped.
    assert len(system.records(namespace="daily_life")) == 4
    assert len(system.records(namespace="relationships")) == 2

    s1 = rows["daily_life.S1.001"]
    assert s1.metadata["memories"][0] == "user: I always drink oat milk coffee before work."
    assert s1.metadata["gold_turn_retrieved"] is True
    gold_lines = {line for hit in s1.metadata["hits"] if hit["gold"] for line in hit["lines"]}
    assert gold_lines == {1, 3}  # gold id 1 matches both lines that carry it
    assert s1.verdicts["rule"]["correct"] is True
    assert s1.usage["search_calls"] == 1 and s1.usage["latency_ms"] > 0
    assert s1.context == "\n".join(s1.metadata["memories"]) and s1.answer is None

    s3 = rows["daily_life_relationships.S3.001"]
    assert s3.usage["search_calls"] == 2 and s3.metadata["namespaces"] == ["daily_life", "relationships"]
    assert {hit["namespace"] for hit in s3.metadata["hits"]} == {"daily_life", "relationships"}
    # The brunch turn is in both namespaces: found twice, returned once.
    brunch = "user: My sister Marnel visits every Sunday for brunch."
    assert [hit["text"] for hit in s3.metadata["hits"]].count(brunch) == 2
    assert s3.metadata["memories"].count(brunch) == 1
    assert "user: Marnel and I bake bread together on Sundays." in s3.metadata["memories"]
    assert s3.metadata["gold_turn_retrieved"] is None

    # BM25 finds no query word of the probe in the memories, so nothing is returned.
    probe = rows["daily_life.FM.001"]
    assert probe.metadata["memories"] == [] and probe.verdicts["rule"]["correct"] is True

    # A cutoff above every score returns nothing: situational questions fail, probes pass.
    strict = list(
        benchmark.run_unit(
            get_system("bm25"), "daily_life", definition("wmb").context(options={"min_score": 1e9})
        )
    )
    assert all(not row.metadata["memories"] for row in strict)
    assert [row.metadata["min_score"] for row in strict] == [1e9] * 3

    skip = WMBBenchmark(root, cross_category="skip")
    assert [q.id for q in skip.questions_of("daily_life")] == ["daily_life.S1.001", "daily_life.FM.001"]
    summary = benchmark.summarize(list(rows.values())).to_json()  # as summary.json holds it
    assert summary["judges"]["rule"]["part_b"]["correct"] == 1
    assert summary["result_json"]["part_b"]["total"] == 2


def test_protocol_options_fail_clearly(tmp_path: Path) -> None:
    root = _tiny_release(tmp_path)
    with pytest.raises(ConfigError, match="unknown category 'daily_lfe'"):
        WMBBenchmark(root, categories=["daily_lfe"])
    with pytest.raises(ConfigError, match="questions must be one of"):
        WMBBenchmark(root, questions="some")
    with pytest.raises(ConfigError, match="bad benchmark_options"):
        get_benchmark("wmb", data_dir=str(root), categoires=["daily_life"])
    with pytest.raises(ConfigError, match="judge callables"):
        list(
            WMBBenchmark(root).run_unit(
                get_system("bm25"), "daily_life", definition("wmb").context(judges=("rule", "llm"))
            )
        )
    assert resolve_min_score({"dense": 0.4, "default": 2}, "bm25") == 2.0
    assert resolve_min_score({"dense": 0.4}, "bm25") is None
    assert resolve_min_score(0.3, "dense") == 0.3
    with pytest.raises(ConfigError):
        resolve_min_score({"bm25": "high"}, "bm25")


def test_configs_are_valid_runs_of_the_benchmark() -> None:
    signature = inspect.signature(WMBBenchmark)
    for name, categories in (("wmb_quick", QUICK_CATEGORIES), ("wmb_full", CATEGORIES)):
        config = load_config(CONFIGS / f"{name}.yaml")
        assert config.benchmark == "wmb" and [s.name for s in config.systems] == ["bm25", "dense"]
        assert tuple(config.benchmark_options["categories"]) == categories
        signature.bind(**config.benchmark_options)  # every option is a constructor argument


@pytest.mark.shared_data("wmb100k")
def test_real_bm25_run_on_the_daily_life_sample(shared_data: Path) -> None:
    folder = shared_data / "wmb100k"
    benchmark = WMBBenchmark(
        folder,
        questions_file="questions.sample.json",
        turn_files={"daily_life": "daily_life.prefix.jsonl"},
        categories=["daily_life"],
        questions="gold_in_turns",
    )
    system = get_system("bm25")
    rows = list(benchmark.run_unit(system, "daily_life", definition("wmb").context(k=5)))
    assert len(rows) == 134  # 114 questions with gold turns in the prefix + 20 probes
    assert len(system.records(namespace="daily_life")) == 2240
    assert all(row.metadata["part"] == "B" and row.unit_id == "daily_life" for row in rows)
    scores = wmb_scores(rows)
    retrieval = scores["retrieval"]
    assert retrieval["questions_with_gold"] == 114
    # A real lexical run: bm25 at k=5 returns a gold turn for ~14% of these situational questions.
    assert retrieval["gold_turn_retrieved"] >= 10 and retrieval["rate_pct"] > 8
    assert scores["part_b"]["total"] == 90 and scores["part_b"]["correct"] > 0
    assert scores["fm"]["probes"] == 20
    assert scores["speed"]["searches"] == 134 and math.isfinite(scores["total"])
    assert all(row.usage["latency_ms"] > 0 for row in rows)


@pytest.mark.slow
@pytest.mark.shared_data("wmb100k")
def test_llm_judge_through_the_real_local_model(shared_data: Path, local_llm, monkeypatch) -> None:
    from memsuite.memory_systems.llm import LLMClient, local_config

    benchmark = WMBBenchmark(
        shared_data / "wmb100k",
        questions_file="questions.sample.json",
        turn_files={"daily_life": "daily_life.prefix.jsonl"},
        categories=["daily_life"],
        questions="gold_in_turns",
    )
    chosen = WMBBenchmark.questions_of(benchmark, "daily_life")[:4]
    monkeypatch.setattr(benchmark, "questions_of", lambda category: chosen)
    client = LLMClient(local_config(local_llm.base_url))
    rows = list(
        benchmark.run_unit(
            get_system("bm25"),
            "daily_life",
            definition("wmb").context(k=3, answer_llm=client, judges=("rule", "llm")),
        )
    )
    assert len(rows) == 4
    for row in rows:
        verdict = row.verdicts["llm"]
        # Wiring only: the 135M model's verdicts are not meaningful, but each is a vote or a recorded failure.
        assert verdict["correct"] in (True, False, None) and "votes" in verdict
    assert client.usage(phase="judge").llm_calls + client.usage(phase="judge").cache_hits >= 1


@pytest.mark.shared_data("wmb100k")
def test_the_shipped_sample_config_finds_its_data_like_every_config(shared_data, tmp_path, monkeypatch):
    from memsuite.eval.registry import get_benchmark
    from memsuite.eval.run.config import find_config, load_config

    monkeypatch.chdir(tmp_path)  # not beside the checkout: ../shared/data from here is nothing
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    config = load_config(find_config("wmb_sample"))
    benchmark = get_benchmark(config.benchmark, **config.benchmark_options)
    assert benchmark.data_dir == shared_data / "wmb100k" and benchmark.units() == ["daily_life"]
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(tmp_path))
    missing = r"wmb: benchmark_options.data_dir .*MEMSUITE_SHARED_DATA.*memsuite data fetch wmb100k"
    with pytest.raises(ConfigError, match=missing):
        get_benchmark(config.benchmark, **config.benchmark_options)
