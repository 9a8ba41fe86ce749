"""``memsuite rejudge`` on a BEAM run with answers: its rows judged again by the rule judge."""

from __future__ import annotations

import json

from beam_data import chat, question, write_conversation

from memsuite.eval.cli.main import main
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.runner import run


def test_a_beam_run_with_answers_is_rejudged_by_the_rule_judge(tmp_path, replay_llm):
    pairs = [("My cat is called Tofu.", "A fine name."), ("I moved to Lyon in May.", "Noted.")]
    questions = {
        "information_extraction": [
            question("What is my cat called?", [0], rubric=["LLM response should state: Tofu"]),
            question("Where did I move?", [2], rubric=["LLM response should state: Lyon"]),
        ]
    }
    write_conversation(tmp_path / "chats" / "100K" / "1", chat(pairs, per_batch=1), questions)

    def answer(messages):
        return "Your cat is called Tofu." if "cat" in messages[-1]["content"] else "You moved to Berlin."

    llm = replay_llm({"other": [answer] * 3})  # the endpoint's preflight check, then two answers
    endpoint = {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None}
    config = config_from_dict(
        {
            "benchmark": "beam",
            "systems": ["bm25"],
            "k": 2,
            "judges": [],
            "answer_llm": endpoint,
            "benchmark_options": {"data": str(tmp_path / "chats")},
        }
    )
    source = run(config, out_dir=tmp_path / "run", cache_dir=None, show_progress=False)
    assert all(r.answer for r in source.rows()) and not any("rule" in r.verdicts for r in source.rows())

    out = tmp_path / "rejudged"
    argv = ["rejudge", str(tmp_path / "run"), "--benchmark", "beam", "--judges", "rule", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    rows = {r["question_id"]: r for r in map(json.loads, (out / "rows.jsonl").read_text().splitlines())}
    verdicts = {qid: row["verdicts"]["rule"]["correct"] for qid, row in rows.items()}
    assert verdicts == {"information_extraction:0": True, "information_extraction:1": False}
    assert all(row["verdicts"]["retrieval"] for row in rows.values())  # the run's own verdicts are kept
