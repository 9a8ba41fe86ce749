"""memsuite rejudge: a real run folder judged again, and each published format read, matched and judged."""

from __future__ import annotations

import json

import pytest

from memsuite.eval.registry import definition
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.rejudge.formats import detect
from memsuite.eval.report.document import build_report, report_markdown
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import load_runs
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError, DatasetError

LOCOMO = "locomo/locomo.dev.json"
ZEP = "published/locomo/zep_locomo_grades.dev.json"
ORACLE = "longmemeval/longmemeval_oracle.dev.json"


def _answers(messages):
    """A scripted answer model: says the date for "When" questions, else declines."""
    prompt = messages[-1]["content"]
    return "On 8 May 2023." if "Question: When" in prompt else "Not mentioned in the conversation"


@pytest.mark.shared_data("locomo")
def test_rejudging_a_run_adds_only_the_new_verdicts_and_calls_nothing(
    shared_data, tmp_path, replay_llm, monkeypatch
):
    llm = replay_llm({"other": [_answers] * 50})
    config = config_from_dict(
        {
            "benchmark": "locomo",
            "systems": ["bm25"],
            "k": 3,
            "judges": ["f1"],
            "answer_llm": {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None},
            "benchmark_options": {
                "data": str(shared_data / LOCOMO),
                "conversations": ["conv-26"],
                "max_questions": 6,
            },
        }
    )
    source = run(config, out_dir=tmp_path / "run", cache_dir=None, show_progress=False)
    before = {(r.unit_id, r.question_id): r for r in source.rows()}
    sent = len(llm.calls)
    assert sent == 6 + 1 and all(r.answer for r in before.values())  # six answers and the preflight

    def forbidden(*args, **kwargs):
        raise AssertionError("rejudge built a memory system or called a model")

    # The guard: no memory system can be built and no LLM client can send a request.
    monkeypatch.setattr("memsuite.memory_systems.registry.get_factory", forbidden)
    monkeypatch.setattr("memsuite.memory_systems.llm.client.LLMClient.chat", forbidden)
    folder = rejudge(tmp_path / "run", benchmark="locomo", out_dir=tmp_path / "again", judges=["rule"])
    after = {(r.unit_id, r.question_id): r for r in folder.rows()}
    assert len(llm.calls) == sent and after.keys() == before.keys()
    for key, old in before.items():
        new = after[key]
        assert set(new.verdicts) == {*old.verdicts, "rule"}
        assert {k: v for k, v in new.verdicts.items() if k != "rule"} == old.verdicts
        assert {**new.to_dict(), "verdicts": None} == {**old.to_dict(), "verdicts": None}
        assert new.verdicts["rule"]["correct"] in (True, False, None)
    header = folder.header
    assert header["rejudge"]["format"] == "memsuite_run" and header["config"]["judges"] == ["f1", "rule"]
    (info,) = load_runs([tmp_path / "again"])
    markdown = report_markdown(build_report([info]))
    assert "Agreement between judges" in markdown and "| f1 | rule |" in markdown


@pytest.mark.shared_data("longmemeval", "longmemeval_published")
def test_a_published_longmemeval_file_round_trips(shared_data, tmp_path):
    path = sorted((shared_data / "published" / "longmemeval").glob("*oracle__2025*.jsonl"))[0]
    labels = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        labels[record["question_id"]] = record["autoeval_label"]["label"]
    folder = rejudge(path, benchmark="longmemeval", data=shared_data / ORACLE, out_dir=tmp_path / "lme")
    rows = folder.rows()
    assert len(rows) == len(labels) == 400
    for row in rows:
        assert row.metadata["published_verdict"] is labels[row.question_id]
        assert row.metadata["published_judge"] == "gpt-4o-mini-2024-07-18"
        assert row.metadata["question_type"] and row.gold is not None and "rule" in row.verdicts
    (info,) = load_runs([tmp_path / "lme"])
    markdown = report_markdown(build_report([info]))
    assert "| rule | published |" in markdown and "judge_disagreements.csv" in markdown
    # Rejudging again resumes: nothing left to do, the same rows.
    again = rejudge(path, benchmark="longmemeval", data=shared_data / ORACLE, out_dir=tmp_path / "lme")
    assert again.header["units"]["already_done"] == 400 and len(again.rows()) == 400


@pytest.mark.shared_data("locomo", "locomo_zep_grades")
def test_zeps_locomo_layout_matches_by_text_and_category(shared_data, tmp_path):
    zep = shared_data / ZEP
    folder = rejudge(zep, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "zep")
    rows = folder.rows()
    grades = json.loads((shared_data / ZEP).read_text())
    assert len(rows) == sum(len(v) for v in grades.values())
    first = grades["locomo_experiment_user_0"][0]
    row = next(r for r in rows if r.unit_id == "conv-26" and r.question == first["question"])
    assert row.answer == first["answer"] and row.metadata["published_verdict"] is first["grade"]
    assert row.metadata["category"] == first["category"] and row.gold == first["golden_answer"]


@pytest.mark.shared_data("locomo")
def test_mem0s_locomo_output_is_read(shared_data, tmp_path):
    """mem0's evals.py layout: {conversation index: [{question, answer (gold), response, category,
    bleu_score, f1_score, llm_score}]}; here with real dev questions and answers of our own."""
    items = json.loads((shared_data / LOCOMO).read_text())[1]["qa"][:4]
    scored = [
        {
            "question": q["question"],
            "answer": str(q.get("answer")),
            "response": f"I think: {q.get('answer')}",
            "category": str(q["category"]),
            "bleu_score": 0.5,
            "f1_score": 0.5,
            "llm_score": 1,
        }
        for q in items
        if q["category"] != 5
    ]
    path = tmp_path / "mem0_eval.json"
    path.write_text(json.dumps({"1": scored}))
    assert detect(path, definition("locomo")) == "mem0_locomo"
    rows = rejudge(path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "mem0").rows()
    assert [r.question for r in rows] == [s["question"] for s in scored]
    assert all(r.unit_id == "conv-30" and r.metadata["published_verdict"] is True for r in rows)
    assert all(r.verdicts["rule"]["correct"] is True for r in rows)


@pytest.mark.shared_data("locomo", "locomo_zep_grades")
def test_unmatched_and_ambiguous_answers_are_listed_before_any_judging(shared_data, tmp_path):
    grades = json.loads((shared_data / ZEP).read_text())
    real = grades["locomo_experiment_user_0"][0]
    broken = {
        "locomo_experiment_user_0": [
            {**real, "question": "Which moon did Caroline visit?"},
            {**real, "category": 4},
            real,
            real,
        ]
    }
    path = tmp_path / "zep.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(DatasetError) as error:
        rejudge(path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "out")
    message = str(error.value)
    assert message.startswith("3 answers cannot be matched")
    assert "user_0[0]: no question with text 'Which moon" in message
    assert "user_0[1]: no question" in message and "category 4" in message
    assert "user_0[3]: more answers than questions" in message
    assert not (tmp_path / "out").exists()


@pytest.mark.shared_data("locomo", "locomo_zep_grades", "longmemeval")
def test_bad_input_is_refused_naming_the_place(shared_data, tmp_path):
    bad = tmp_path / "hyp.jsonl"
    bad.write_text('{"question_id": "x", "hypothesis": "a"}\n{"question_id": "y"}\n')
    with pytest.raises(DatasetError, match=r"hyp.jsonl:2: missing field 'hypothesis'"):
        rejudge(bad, benchmark="longmemeval", data=shared_data / ORACLE, out_dir=tmp_path / "o")
    with pytest.raises(ConfigError, match="judges retrieval, not answers"):
        rejudge(bad, benchmark="longmemeval", out_dir=tmp_path / "o", judges=["retrieval"])
    with pytest.raises(ConfigError, match="give --judge-llm"):
        zep = shared_data / ZEP
        rejudge(zep, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "o", judges=["llm"])
    with pytest.raises(ConfigError, match="not an answer file of a known locomo format"):
        rejudge(bad, benchmark="locomo", out_dir=tmp_path / "o", show_progress=False)


@pytest.mark.shared_data("locomo", "locomo_zep_grades")
def test_llm_judge_repeats_record_every_call(shared_data, tmp_path, replay_llm):
    grades = json.loads((shared_data / ZEP).read_text())
    path = tmp_path / "zep.json"
    path.write_text(json.dumps({"locomo_experiment_user_0": grades["locomo_experiment_user_0"][:2]}))
    llm = replay_llm({"other": [{"label": "CORRECT"}, {"label": "WRONG"}, {"label": "CORRECT"}] * 2})
    spec = {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None, "max_retries": 0}
    folder = rejudge(
        path,
        benchmark="locomo",
        data=shared_data / LOCOMO,
        out_dir=tmp_path / "rep",
        judges=["rule", "llm"],
        judge_repeats=3,
        judge_llm=spec,
        show_progress=False,
    )
    rows = folder.rows()
    assert len(llm.calls) == 6
    assert [r.verdicts["llm"]["repeats"] for r in rows] == [[True, False, True]] * 2
    assert all(r.verdicts["llm"]["correct"] is True for r in rows)
    (info,) = load_runs([tmp_path / "rep"])
    markdown = report_markdown(build_report([info]))
    assert "| llm | 2 | 1.000 | 0 | 0 | 3 | 0.667 | 0.471 | 0.333 |" in markdown


@pytest.mark.shared_data("longmemeval", "longmemeval_published")
def test_the_command_line(shared_data, tmp_path, capsys):
    from memsuite.eval.cli.main import main

    path = sorted((shared_data / "published" / "longmemeval").glob("*bc_only*.jsonl"))[0]
    out = tmp_path / "cli"
    argv = ["rejudge", str(path), "--benchmark", "longmemeval", "--data", str(shared_data / ORACLE)]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    assert "rejudge complete" in capsys.readouterr().out
    assert main(["report", str(out), "--no-plots"]) == 0
    markdown = (out / "report" / "report.md").read_text()
    assert "rule judge accuracy" in markdown and "Agreement between judges" in markdown
    assert "recall_all@5 per question type" not in markdown  # no ranking in published answers
    assert main(["rejudge", str(path), "--benchmark", "locomo", "--out", str(tmp_path / "x"), "--quiet"]) == 2
