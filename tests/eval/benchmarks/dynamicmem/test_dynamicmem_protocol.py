"""The DynamicMem protocol via the runner and directly: ingest, snapshots, queries, answers, scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memsuite.baselines.bm25 import BM25Memory
from memsuite.eval.benchmarks.dynamicmem.protocol import DynamicMemBenchmark
from memsuite.eval.registry import definition, get_benchmark
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import LLMFailure, LLMResult

OPTIONS = {"users": 1, "activity": 0.2}


@pytest.fixture(scope="module")
def bench() -> DynamicMemBenchmark:
    return DynamicMemBenchmark(**OPTIONS)


def _variant(**options: Any) -> DynamicMemBenchmark:
    """The test benchmark with other options."""
    return DynamicMemBenchmark(**OPTIONS, **options)


class ScriptedLLM:
    """Answers ``phase="answer"`` calls from a queue (dicts or LLMFailure) and judge calls with a callable."""

    def __init__(self, replies: list[Any], judge: Any = None) -> None:
        self.replies, self.judge, self.calls = list(replies), judge, []

    def chat_json(self, messages, *, phase, **kwargs):
        self.calls.append((phase, messages))
        reply = self.replies.pop(0) if phase == "answer" else self.judge(messages)
        if isinstance(reply, LLMFailure):
            return LLMResult(failure=reply)
        return LLMResult(text=json.dumps(reply), data=reply, prompt_tokens=10, completion_tokens=5)


def _oracle_replies(user) -> list[dict[str, Any]]:
    """The gold answers, in the order the protocol asks (keys sorted, then service items)."""
    replies = []
    for cp in user.checkpoints:
        for key in cp.completion_keys():
            cite = [{"app_log_id": cp.gold_evidence_ids(key)[-1], "evidence_content": "gold"}]
            replies.append({"user_state": {key: cp.gold_value(key)}, "evidence": {key: cite}})
        for key in sorted(cp.service):
            item = cp.service[key][0]
            replies.append(
                {"answer": item.reference, "evidence": [{"app_log_id": item.gold_evidence_ids[0]}]}
            )
    return replies


def test_runner_retrieval_only_bm25_and_dense_find_the_evidence(tmp_path):
    # A small user; questions at C1 and C5 only (memory is still built and saved through C1..C5).
    options = {"users": 1, "activity": 0.1, "checkpoints": [1, 5]}
    config = config_from_dict(
        {"benchmark": "dynamicmem", "systems": ["bm25", "dense"], "name": "dm", "benchmark_options": options}
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    assert folder.header["status"] == "complete"
    assert {(u.system, u.unit_id, u.status) for u in folder.units()} == {
        ("bm25", "001_user_001", "done"),
        ("dense", "001_user_001", "done"),
    }
    rows = folder.rows()
    assert {r.metadata["checkpoint"] for r in rows} == {"C1", "C5"}
    assert all(r.answer is None and not r.verdicts for r in rows)
    summary = folder.summary
    for system in ("bm25", "dense"):
        scores = summary[system]["scores"]
        assert scores["checkpoints"] == ["C1", "C5"]
        assert "state_completion" not in scores["curves"]  # no answer model: evidence metrics only
        recall = scores["curves"]["evidence_recall"]
        assert min(recall) > 0.1, (system, recall)
        assert min(scores["curves"]["service_evidence_recall"]) > 0.0, system
        assert scores["overall"]["evidence_precision"] > 0.1
        work = tmp_path / "run" / "work" / system / "001_user_001"
        assert sorted(p.name for p in work.iterdir() if p.is_dir()) == ["C1", "C2", "C3", "C4", "C5"]
        prediction = json.loads((work / "prediction.json").read_text())
        assert [p["checkpoint_id"] for p in prediction["predictions"]] == [
            "cal_quarterly_001",
            "cal_quarterly_005",
        ]
        first = prediction["predictions"][0]
        assert set(first) == {"checkpoint_id", "metadata", "snapshot_state", "evidence", "rq3_apply_answers"}
        assert all(e["app_log_id"] and e["evidence_content"] for ev in first["evidence"].values() for e in ev)


def test_memory_holds_exactly_the_visible_events_and_queries_do_not_change_it(bench, tmp_path):
    user = bench.user("001_user_001")
    system = BM25Memory()
    rows = list(bench.run_unit(system, "001_user_001", definition("dynamicmem").context(workdir=tmp_path)))
    assert len(rows) == sum(len(cp.completion_keys()) + len(cp.service) for cp in user.checkpoints)
    namespace = user.user_id
    for cp in user.checkpoints:
        saved = BM25Memory.load(tmp_path / cp.label)
        ids = [json.loads(r.text)["app_log_id"] for r in saved.records(namespace=namespace)]
        assert ids == [log.app_log_id for log in user.visible_logs(cp)]
    # C5 was saved before its questions were asked; the live memory after them is the same.
    assert BM25Memory.load(tmp_path / "C5").snapshot(namespace=namespace) == system.snapshot(
        namespace=namespace
    )


def test_a_system_that_writes_on_search_fails_the_unit(bench, tmp_path):
    class Scribbler(BM25Memory):
        def _search(self, query, *, k, namespace):
            hits = super()._search(query, k=k, namespace=namespace)
            self.store([f"asked: {query}"], namespace=namespace)
            return hits

    with pytest.raises(RuntimeError, match="queries must not mutate memory"):
        list(bench.run_unit(Scribbler(), "001_user_001", definition("dynamicmem").context(workdir=tmp_path)))


def test_gold_answers_score_one_everywhere(bench, tmp_path):
    user = bench.user("001_user_001")
    llm = ScriptedLLM(_oracle_replies(user))
    rows = list(
        bench.run_unit(
            BM25Memory(), "001_user_001", definition("dynamicmem").context(answer_llm=llm, workdir=tmp_path)
        )
    )
    assert not llm.replies and all(phase == "answer" for phase, _ in llm.calls)
    summary = bench.summarize(rows).to_json()  # as summary.json holds it
    for metric in (
        "state_completion",
        "state_completion_by_key",
        "personalized_service",
        "exact_match",
        "value_f1",
    ):
        assert summary["curves"][metric] == pytest.approx([1.0] * 5), metric
    assert min(summary["curves"]["answer_evidence_precision"]) == 1.0
    prediction = json.loads((tmp_path / "prediction_C5.json").read_text())
    last = user.checkpoints[-1]
    assert prediction["snapshot_state"] == {k: last.gold_value(k) for k in last.completion_keys()}
    items = prediction["rq3_apply_answers"]
    assert all(
        set(node["items"][0]) == {"qa_id", "answer", "evidence"} for k, node in items.items() if "habits" in k
    )
    assert all("output" in node["items"][0] for k, node in items.items() if "habits" not in k)


def test_failed_answers_are_recorded_and_left_out_not_scored_zero(bench, tmp_path):
    # Was: a failed answer scored 0. A failed call is never a wrong answer: the verdict is None with
    # the failure kind, and the row is left out of the scores (counted in n_failed).
    user = bench.user("001_user_001")
    replies = _oracle_replies(user)
    replies[0] = LLMFailure("context_length", "prompt too long", 400)
    rows = list(
        bench.run_unit(
            BM25Memory(), "001_user_001", definition("dynamicmem").context(answer_llm=ScriptedLLM(replies))
        )
    )
    first = rows[0]
    assert first.answer is None and first.metadata["answer_failure"]["kind"] == "context_length"
    assert first.metadata["prediction"] is None
    assert first.verdicts["rule"]["correct"] is None and first.verdicts["rule"]["failure"] == "context_length"
    summary = bench.summarize(rows).to_json()  # as summary.json holds it
    assert summary["counts"]["answer_failures"] == 1 and summary["counts"]["n_failed"] == 1
    assert summary["n_failed"][0] == 1 and sum(summary["n_failed"]) == 1
    # Every other answer is the oracle's: with the failed row left out, the first checkpoint stays perfect.
    assert summary["curves"]["state_completion"][0] == pytest.approx(1.0)
    assert summary["curves"]["exact_match"][0] == pytest.approx(1.0)


def test_llm_judge_verdicts_sit_beside_the_rule_judge(bench):
    user = bench.user("001_user_001")

    def judge(messages):
        fields = json.loads(messages[1]["content"])["fields_to_judge"]
        return {
            "field_judgments": [
                {"field_path": f["field_path"], "core_correct": True, "detail_quality": 1} for f in fields
            ]
        }

    llm = ScriptedLLM(_oracle_replies(user), judge=judge)
    rows = list(
        bench.run_unit(
            BM25Memory(),
            "001_user_001",
            definition("dynamicmem").context(answer_llm=llm, judges=("rule", "llm")),
        )
    )
    assert all(r.verdicts["llm"]["score"] == pytest.approx(0.9) for r in rows)
    summary = bench.summarize(rows).to_json()  # as summary.json holds it
    assert summary["llm_judge"]["curves"]["state_completion"] == pytest.approx([0.9] * 5)
    assert summary["curves"]["state_completion"] == pytest.approx([1.0] * 5)


def test_build_only_then_predict_from_prebuilt_matches_build_then_predict(bench, tmp_path):
    built = _variant(memory_action="build_only")
    assert (
        list(built.run_unit(BM25Memory(), "001_user_001", definition("dynamicmem").context(workdir=tmp_path)))
        == []
    )
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["C1", "C2", "C3", "C4", "C5"]
    predicted = _variant(memory_action="predict_from_prebuilt", checkpoints=[2, "C5"])
    rows = list(
        predicted.run_unit(BM25Memory(), "001_user_001", definition("dynamicmem").context(workdir=tmp_path))
    )
    assert {r.metadata["checkpoint"] for r in rows} == {"C2", "C5"}
    reference = {
        r.question_id: r.metadata["retrieved_app_log_ids"]
        for r in bench.run_unit(BM25Memory(), "001_user_001", definition("dynamicmem").context())
    }
    assert all(reference[r.question_id] == r.metadata["retrieved_app_log_ids"] for r in rows)
    with pytest.raises(ConfigError, match="no prebuilt store"):
        list(
            predicted.run_unit(
                BM25Memory(), "001_user_001", definition("dynamicmem").context(workdir=tmp_path / "empty")
            )
        )


def test_session_ingest_wraps_each_day_as_a_dialogue(bench):
    rows = list(
        _variant(ingest="session", checkpoints=[1]).run_unit(
            BM25Memory(), "001_user_001", definition("dynamicmem").context()
        )
    )
    assert rows and all(r.metadata["checkpoint"] == "C1" for r in rows)
    assert "User: {" in rows[0].context and "Assistant: [ingested]" in rows[0].context
    assert any(r.metadata["retrieved_app_log_ids"] for r in rows)  # ids are read back from the chunk text


def test_options_are_validated(tmp_path):
    with pytest.raises(ConfigError, match="exactly one of"):
        get_benchmark("dynamicmem")
    with pytest.raises(ConfigError, match="'memory_action' must be one of"):
        get_benchmark("dynamicmem", users=1, memory_action="predict")
    with pytest.raises(ConfigError, match="checkpoint 'last' is not a number"):
        get_benchmark("dynamicmem", users=1, checkpoints=["last"])
    with pytest.raises(ConfigError, match="bad benchmark_options"):
        get_benchmark("dynamicmem", users=1, top_n=3)
    assert get_benchmark("dynamicmem", users=3).units() == ["001_user_001", "002_user_002", "003_user_003"]


def test_data_folders_give_the_same_user_as_generation(bench, tmp_path):
    from memsuite.eval.benchmarks.dynamicmem.generator import generate_users, write_users

    write_users(generate_users(1, activity=0.2), tmp_path)
    on_disk = DynamicMemBenchmark(data=str(tmp_path))
    assert on_disk.units() == ["001_user_001"]
    a, b = on_disk.user("001_user_001"), bench.user("001_user_001")
    assert a.app_logs == b.app_logs and [c.expected_state for c in a.checkpoints] == [
        c.expected_state for c in b.checkpoints
    ]
    assert isinstance(a.source, Path)
