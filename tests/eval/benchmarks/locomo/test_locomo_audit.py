"""The audited answer key on the real dev file and the real audit: findings tied to questions, each
path of a finding through the judges and the summaries, and the refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memsuite.eval.answer import Answer, JudgeInput
from memsuite.eval.benchmarks.locomo.audit import audit_findings, read_findings
from memsuite.eval.benchmarks.locomo.judges import LocomoCase, _evidence_judge, _rule_judge
from memsuite.eval.benchmarks.locomo.loader import load_conversations
from memsuite.eval.benchmarks.locomo.protocol import LocomoBenchmark
from memsuite.eval.benchmarks.locomo.scoring import locomo_scores
from memsuite.eval.protocol import Row
from memsuite.memory_systems.errors import ConfigError, DatasetError

DEV = Path("locomo") / "locomo.dev.json"
AUDIT = Path("published") / "locomo" / "audit" / "errors.json"


@pytest.fixture(scope="module")
def dev(shared_data):
    conversations, _ = load_conversations(shared_data / DEV)
    return {c.sample_id: c for c in conversations}, audit_findings(shared_data / AUDIT, conversations)


def _judge(judge, finding, question, answer: str, dia_ids=()) -> dict:
    case = LocomoCase(question, tuple(dia_ids), True, None, finding)
    return judge(JudgeInput(case, Answer(answer, data=answer), ""))


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_findings_map_to_the_dev_questions_by_released_order(shared_data, dev):
    conversations, findings = dev
    raw = json.loads((shared_data / AUDIT).read_text())
    on_dev = [f for f in raw if int(f["question_id"].split("_")[1]) < 7]  # conv-26 ... conv-47
    assert len(findings) == len(on_dev) == 110
    # locomo_3_qa<i> is question i of conv-42, the fourth conversation of locomo10.json.
    entry = next(f for f in raw if f["question_id"].startswith("locomo_3_"))
    index = int(entry["question_id"].split("qa")[1])
    assert conversations["conv-42"].questions[index].question == entry["question"]
    assert findings[("conv-42", index)].error_type == entry["error_type"]


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_a_corrected_gold_is_judged_against_the_audits_answer(dev):
    conversations, findings = dev
    finding = findings[("conv-26", 2)]  # HALLUCINATION: "Psychology, counseling certification"
    question = conversations["conv-26"].questions[2]
    assert finding.changes_answer and finding.correct_answer == "Counseling or mental health"
    verdict = _judge(_rule_judge, finding, question, "mental health work")
    assert verdict["correct"] is False and verdict["audited"]["correct"] is True
    kept = _judge(_rule_judge, None, question, "mental health work")
    assert "audited" not in kept  # the original key alone: no finding on the case


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_an_ambiguous_gold_is_scored_apart(dev):
    conversations, findings = dev
    finding = findings[("conv-26", 43)]  # AMBIGUOUS: "abstract art"
    assert finding.ambiguous and not finding.changes_answer
    verdict = _judge(_rule_judge, finding, conversations["conv-26"].questions[43], "abstract art")
    assert verdict["correct"] is True and verdict["audited"] == {"correct": None, "ambiguous": True}


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_a_citation_only_finding_changes_retrieval_only(dev):
    conversations, findings = dev
    finding = findings[("conv-26", 1)]  # WRONG_CITATION: D1:12 cited, D1:14 holds the answer
    question = conversations["conv-26"].questions[1]
    assert not finding.changes_answer and finding.correct_evidence == ("D1:14",)
    answer = _judge(_rule_judge, finding, question, "2022")
    assert answer["correct"] is True and "audited" not in answer  # the gold stands
    evidence = _judge(_evidence_judge, finding, question, "", dia_ids=["D1:14", "D1:13"])
    assert evidence["recall"] == 0.0 and evidence["audited"]["recall"] == 1.0


def _row(question_id: str, category: int, verdict: dict, finding=None) -> Row:
    metadata = {"category": category, "k": 5, **({"audit": finding.to_metadata()} if finding else {})}
    return Row(
        "s", "locomo", "conv-26", question_id, "?", "g", "", verdicts={"rule": verdict}, metadata=metadata
    )


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_summaries_give_both_keys_the_flips_and_the_ceiling(dev):
    conversations, findings = dev
    q = conversations["conv-26"].questions
    corrected, ambiguous, citation = (
        findings[("conv-26", 2)],
        findings[("conv-26", 43)],
        findings[("conv-26", 1)],
    )
    rows = [
        _row(
            "q002",
            q[2].category,
            _judge(_rule_judge, corrected, q[2], "mental health work"),
            corrected,
        ),
        _row("q043", q[43].category, _judge(_rule_judge, ambiguous, q[43], "abstract art"), ambiguous),
        _row("q001", q[1].category, _judge(_rule_judge, citation, q[1], "2022"), citation),
        _row("q000", q[0].category, _judge(_rule_judge, None, q[0], "7 May 2023")),
    ]
    scores = locomo_scores(rows, answer_key="both")
    original, audited = scores["by_judge"]["rule"], scores["by_judge_audited"]["rule"]
    assert original["overall"] == {"n": 4, "mean": 0.75, "n_failed": 0, "undefined": 0}
    assert audited["overall"]["n"] == 3 and audited["overall"]["mean"] == 1.0  # the ambiguous one apart
    assert audited["ambiguous"] == {"n": 1, "mean": 1.0}
    assert audited["flips"] == {"to_right": 1, "to_wrong": 0, "n": 1}
    ceiling = scores["original_key_ceiling"]
    assert ceiling["overall"] == {"n": 4, "flagged": 2, "ceiling": 0.5}  # the citation finding is not counted
    assert "by_judge_audited" not in locomo_scores(rows, answer_key="original")


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_the_answer_key_and_its_refusals(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    default = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"])  # the shared dev file: its audit
    assert default.answer_key == "both" and default.source["audit_findings"] == 27
    copy = tmp_path / "locomo.json"
    copy.write_bytes((shared_data / DEV).read_bytes())
    assert LocomoBenchmark(copy).answer_key == "original"  # both, with no audit file: the original key
    with pytest.raises(ConfigError, match=r"benchmark_options\.audit"):
        LocomoBenchmark(copy, answer_key="audited")
    with pytest.raises(ConfigError, match="answer_key must be one of"):
        LocomoBenchmark(copy, answer_key="fixed", audit=shared_data / AUDIT)
    assert LocomoBenchmark(copy, answer_key="audited", audit=shared_data / AUDIT).answer_key == "audited"
    assert LocomoBenchmark(copy, answer_key="original", audit=shared_data / AUDIT).findings == {}


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_an_audit_of_another_release_or_a_malformed_one_is_refused(shared_data, tmp_path):
    raw = json.loads((shared_data / AUDIT).read_text())
    conversations, _ = load_conversations(shared_data / DEV)
    other = tmp_path / "other.json"
    other.write_text(json.dumps([{**raw[0], "question": "Where did Caroline move from?"}]))
    with pytest.raises(
        DatasetError, match=r"finding 0 \(locomo_0_qa1\): field 'question'.*different releases"
    ):
        audit_findings(other, conversations)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([raw[0], {**raw[1], "error_type": "TYPO"}]))
    with pytest.raises(DatasetError, match=r"bad\.json: finding 1 \(locomo_0_qa2\): field 'error_type'"):
        read_findings(bad)
    bad.write_text(json.dumps([{k: v for k, v in raw[0].items() if k != "correct_evidence"}]))
    with pytest.raises(DatasetError, match="field 'correct_evidence'"):
        read_findings(bad)


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_a_run_and_its_report_under_both_keys(shared_data, tmp_path, monkeypatch):
    from memsuite.eval.report.document import build_report, report_markdown
    from memsuite.eval.report.runs import load_runs
    from memsuite.eval.run.config import config_from_dict
    from memsuite.eval.run.runner import run

    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    options = {"data": str(shared_data / DEV), "conversations": ["conv-26"], "max_questions": 12}
    config = config_from_dict(
        {"benchmark": "locomo", "systems": ["bm25"], "judges": [], "k": 5, "benchmark_options": options}
    )
    run(config, out_dir=tmp_path / "run", show_progress=False)
    scores = json.loads((tmp_path / "run" / "summary.json").read_text())["bm25"]["scores"]
    assert scores["answer_key"] == "both" and scores["source"]["audit_findings"] == 4
    audited = scores["by_judge_audited"]["evidence"]
    assert (
        audited["ambiguous"]["n"] == 0
        and audited["overall"]["n"] == scores["by_judge"]["evidence"]["overall"]["n"]
    )
    # Questions 0-11 of conv-26: the audit flags the gold of 2 (HALLUCINATION) and 5 (TEMPORAL_ERROR); its
    # two WRONG_CITATION findings (1, 4) change retrieval only.
    assert scores["original_key_ceiling"]["overall"] == {"n": 12, "flagged": 2, "ceiling": 10 / 12}
    rows = {r["question_id"]: r for r in map(json.loads, (tmp_path / "run" / "rows.jsonl").open())}
    assert rows["q001"]["verdicts"]["evidence"]["audited"]["recall"] is not None
    assert "audited" not in rows["q000"]["verdicts"]["evidence"]
    (info,) = load_runs([tmp_path / "run"])
    markdown = report_markdown(build_report([info]))
    assert "LoCoMo -- judge: evidence, audited answer key" in markdown and "original-key ceiling" in markdown
