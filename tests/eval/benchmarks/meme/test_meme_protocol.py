"""The MEME protocol through the runner, on a small hand-made episode in the released layout."""

from __future__ import annotations

import gzip
import json

import pytest

from memsuite.eval.benchmarks.meme.protocol import answer_messages, cut_context, evidence_verdict
from memsuite.eval.benchmarks.meme.schema import Question
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import load_run
from memsuite.eval.run.runner import run
from memsuite.memory_systems.tokens import count_tokens


def truncate_tokens(text: str, max_tokens: int | None) -> tuple[str, bool]:
    """``text`` cut to its first ``max_tokens`` cl100k tokens (retrieved context is best-first)."""
    cut, truncated, _ = cut_context(text, max_tokens)
    return cut, truncated


ERROR_LOG = "FATAL qv-7 quorum lost\n  at shard brindle-3 (epoch 4471)"


def _session(i: int, *turns: str, kind: str = "evidence") -> dict:
    roles = ["user", "assistant"]
    return {
        "session_id": f"s{i}",
        "type": kind,
        "timestamp": f"2023/03/0{i + 1} (Wed) 09:00",
        "conversation": [{"role": roles[j % 2], "content": t} for j, t in enumerate(turns)],
    }


EPISODE = {
    "episode_id": "sw_001",
    "domain": "software_project",
    "sessions": [
        _session(0, f"Our staging cluster crashed with this log:\n{ERROR_LOG}", "Noted the crash log."),
        _session(
            1,
            "The deploy tool is Zunderbuild. The CI runner depends on the deploy tool; if the deploy "
            "tool changes, the CI runner will be Corvex.",
            "Understood: the CI runner follows the deploy tool.",
        ),
        _session(2, "My locker code at the office is 8812.", "Got it, 8812."),
        _session(3, "What is a good name for a cat?", "Pelmet is a fine name.", kind="filler"),
        _session(
            4,
            "We switched the deploy tool from Zunderbuild to Plinthwork today.",
            "Deploy tool is now Plinthwork.",
            "Also, please forget my locker code.",
            "Done, I forgot it.",
        ),
        _session(5, "Any tips for sourdough?", "Feed the starter daily.", kind="filler"),
    ],
    "before_questions": {
        "timestamp": "2023/03/04 (Sat) 10:00",
        "position_after_session": 3,
        "questions": [
            {
                "task_type": "ER",
                "entity": ["crash_log"],
                "entity_values": [ERROR_LOG],
                "question": "What exact log did the staging crash print?",
                "expected_answer": ERROR_LOG,
            },
            {
                "task_type": "Del",
                "entity": ["locker_code"],
                "entity_values": ["8812"],
                "question": "What is my office locker code?",
                "expected_answer": "8812",
            },
            {
                "task_type": "Cas",
                "entity": ["ci_runner"],
                "entity_values": ["Zunderbuild"],
                "question": "Which deploy tool do we use?",
                "expected_answer": "Zunderbuild",
            },
        ],
    },
    "after_questions": {
        "timestamp": "2023/03/07 (Tue) 10:00",
        "position_after_session": 5,
        "questions": [
            {
                "task_type": "ER",
                "entity": ["crash_log"],
                "entity_values": [ERROR_LOG],
                "question": "What exact log did the staging crash print?",
                "expected_answer": ERROR_LOG,
            },
            {
                "task_type": "Del",
                "entity": ["locker_code"],
                "entity_values": ["8812"],
                "question": "What is my office locker code?",
                "gold_answer": "No — explicitly removed",
            },
            {
                "task_type": "Cascade-D (1-hop)",
                "entity": ["ci_runner"],
                "entity_values": ["Zunderbuild", "Corvex"],
                "question": "What is the CI runner now?",
                "expected_answer": "Corvex",
            },
        ],
    },
}


@pytest.fixture
def episode_file(tmp_path):
    path = tmp_path / "episodes.json"
    path.write_text(json.dumps([EPISODE]))
    return path


def _config(episode_file, **extra):
    return config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25", "dense"],
            "name": "meme_test",
            "k": 2,
            "benchmark_options": {"data": str(episode_file)},
            **extra,
        }
    )


def test_retrieval_only_run_rows_evidence_and_snapshots(episode_file, tmp_path):
    folder = run(_config(episode_file), out_dir=tmp_path / "run", show_progress=False)
    rows = folder.rows()
    assert len(rows) == 12 and {r.system for r in rows} == {"bm25", "dense"}
    by_id = {(r.system, r.question_id): r for r in rows}
    er = by_id[("bm25", "after-00-ER")]
    assert er.answer is None and er.verdicts["evidence"]["correct"] is True and ERROR_LOG in er.context
    # Del after the change: the retrieved deletion request is the evidence (the value is there too).
    deletion = by_id[("bm25", "after-01-Del")]
    assert "please forget my locker code" in deletion.context and "8812" in deletion.context
    assert deletion.verdicts["evidence"] == {
        "correct": True,
        "reason": "deletion request retrieved",
        "judge": "evidence",
    }
    assert by_id[("bm25", "before-01-Del")].metadata["phase"] == "before"
    assert by_id[("bm25", "after-02-Cas")].metadata["values"] == ["Zunderbuild", "Corvex"]
    # One snapshot per session, in order, each holding what was ingested so far.
    with gzip.open(tmp_path / "run" / "work" / "bm25" / "sw_001" / "snapshots.jsonl.gz", "rt") as fh:
        snapshots = [json.loads(line) for line in fh]
    assert [s["index"] for s in snapshots] == list(range(6))
    assert "Plinthwork" not in snapshots[3]["snapshot"] and "Plinthwork" in snapshots[4]["snapshot"]
    summary = folder.summary["bm25"]["scores"]
    assert summary["source"]["kind"] == "official"
    assert summary["by_judge"]["evidence"]["tasks"]["ER"] == 1.0


def test_evidence_rules_and_prompt():
    q = Question(task="Agg", question="q", gold="a, b", entity_values=["alpha", "beta"])
    assert evidence_verdict(q, "after", "alpha and beta")["correct"] is True
    assert evidence_verdict(q, "after", "only alpha")["correct"] is False
    messages = answer_messages("CTX", "What?", "2023/03/07")
    assert "CTX" in messages[1]["content"] and "only the value" in messages[1]["content"]
    text, cut = truncate_tokens("word " * 500, 50)
    assert cut and len(text.split()) <= 51


def _embedded_endpoint(local_llm) -> dict:
    """The session's embedded server addressed as an endpoint, with the time budgets ``answer_llm: local``
    gives it (memory_systems/llm/spec.py): on a busy 2-core CPU one request can wait minutes in its queue."""
    return {
        "model": local_llm.model,
        "base_url": local_llm.base_url,
        "api_key_env": None,
        "wiring_only": True,
        "timeout_s": 300,
        "deadline_s": 660,
        "preflight_timeout_s": 60,
    }


@pytest.mark.slow
def test_answers_with_the_real_local_model(episode_file, tmp_path, local_llm):
    config = _config(
        episode_file,
        answer_llm=_embedded_endpoint(local_llm),
        systems=["bm25"],
        judges=["rule"],
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    rows = folder.rows()
    assert len(rows) == 6
    assert all(isinstance(r.answer, str) for r in rows)
    assert all("rule" in r.verdicts and r.verdicts["rule"]["correct"] in (True, False) for r in rows)
    header = folder.header
    assert header["wiring_only"] is True and header["answer_llm"]["model"] == local_llm.model
    usage = folder.summary["bm25"]["usage"]
    assert usage["llm_calls"] + usage["cache_hits"] >= 6


@pytest.mark.slow
def test_generated_episode_end_to_end_with_bm25_and_the_real_local_model(tmp_path, local_llm):
    """A generated episode through the whole protocol, answered by the embedded model, then resumed."""
    config = config_from_dict(
        {
            "benchmark": "meme",
            "systems": ["bm25"],
            "k": 1,
            "answer_llm": _embedded_endpoint(local_llm),
            "judges": ["rule"],
            # Short contexts and answers keep the 2-core CPU model at a few seconds per question.
            "context_tokens": 256,
            "benchmark_options": {"episodes": 1, "filler": "none", "seed": 2, "answer_max_tokens": 16},
        }
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    rows = folder.rows()
    phases = {r.metadata["phase"] for r in rows}
    assert phases == {"before", "after"} and len(rows) >= 8
    assert all(isinstance(r.answer, str) and r.verdicts["rule"]["correct"] in (True, False) for r in rows)
    assert all(r.verdicts["evidence"]["correct"] in (True, False) for r in rows)
    assert folder.summary["bm25"]["usage"]["llm_calls"] >= len(rows)
    again = run(config, out_dir=tmp_path / "run", show_progress=False)  # finished: nothing is redone
    assert len(again.rows()) == len(rows)


# -- failed LLM calls (eval/answer.py): never a wrong answer ---------------------------------------


def _dead_endpoint() -> dict:
    """An answer_llm spec whose port refuses connections (bound, then released).

    The run-level guards (the preflight request, the circuit breaker) are off: these tests are about
    what each failed call leaves in the rows.
    """
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return {
        "model": "dead-model",
        "base_url": f"http://127.0.0.1:{port}/v1",
        "api_key_env": None,
        "max_retries": 0,
        "timeout_s": 2,
        "preflight_timeout_s": 0,
        "max_consecutive_failures": 0,
    }


def _run_cli(tmp_path, config: dict, capsys) -> tuple[int, list[str]]:
    import yaml

    from memsuite.eval.cli.main import main

    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    code = main(["run", str(path), "--out", str(tmp_path / "run"), "--quiet", "--no-cache"])
    return code, capsys.readouterr().out.splitlines()


def test_dead_answer_endpoint_gives_null_verdicts_left_out_of_rates(episode_file, tmp_path, capsys):
    """Was: a failed answer became "" and the rule judge scored it wrong, in a run reported complete."""
    dead = _dead_endpoint()
    config = {
        "benchmark": "meme",
        "systems": ["bm25"],
        "k": 2,
        "answer_llm": dead,
        "judges": ["rule"],
        "benchmark_options": {"data": str(episode_file)},
    }
    code, out = _run_cli(tmp_path, config, capsys)
    assert code == 1
    assert out[0] == (
        f"run complete_with_errors: {tmp_path / 'run'} "
        "(0 failed units, 6 failed answer calls, 0 failed judge calls)"
    )
    folder = load_run(tmp_path / "run")
    rows = folder.rows()
    assert len(rows) == 6
    for row in rows:
        assert row.answer is None and row.usage["answer_failure"].startswith("connection")
        assert row.verdicts["rule"] == {
            "correct": None,
            "failure": "connection",
            "failed_call": "answer",
            "reason": row.verdicts["rule"]["reason"],
        }
        assert "failure" not in row.verdicts["evidence"]  # judges the memory, not the answer
    summary = folder.summary["bm25"]
    rule = summary["scores"]["by_judge"]["rule"]
    assert rule["tasks"]["ER"] is None and rule["Overall"] is None  # not 0.0: nothing was answered
    assert rule["n"] == dict.fromkeys(("ER", "Agg", "Tr", "Del", "Cas", "Abs"), 0)
    assert rule["n_failed"] == {"ER": 1, "Agg": 0, "Tr": 0, "Del": 1, "Cas": 1, "Abs": 0}
    assert rule["rows_failed"] == 6
    assert summary["failed_calls"] == {"answer": 6, "judge": 0}
    header = folder.header
    assert header["status"] == "complete_with_errors" and header["failed_calls"] == {"answer": 6, "judge": 0}


def test_dead_answer_endpoint_stops_after_the_first_unit(episode_file, tmp_path, capsys):
    second = json.loads(json.dumps(EPISODE)) | {"episode_id": "sw_002"}
    episode_file.write_text(json.dumps([EPISODE, second]))
    dead = _dead_endpoint()
    config = {
        "benchmark": "meme",
        "systems": ["bm25", "dense"],
        "k": 2,
        "answer_llm": dead,
        "benchmark_options": {"data": str(episode_file)},
    }
    code, out = _run_cli(tmp_path, config, capsys)
    assert code == 1
    assert out[0].startswith("run stopped: ") and "6 failed answer calls" in out[0]
    assert out[1].startswith("stopped: all 6 answer calls of the first finished unit (bm25 sw_001) failed")
    assert f"base_url={dead['base_url']}" in out[1] and "model=dead-model" in out[1]
    folder = load_run(tmp_path / "run")
    assert [(u.system, u.unit_id) for u in folder.units()] == [("bm25", "sw_001")]
    assert folder.header["status"] == "stopped"


def test_failed_judge_calls_are_null_verdicts_and_fail_the_run(episode_file, tmp_path, capsys):
    from fakes import ReplayServer

    server = ReplayServer({"other": ["Corvex"] * 6})  # the answers; the judge endpoint is dead
    try:
        config = {
            "benchmark": "meme",
            "systems": ["bm25"],
            "k": 2,
            # No preflight request: it would take one of the six scripted answers.
            "answer_llm": {
                "model": "replay",
                "base_url": server.base_url,
                "api_key_env": None,
                "preflight_timeout_s": 0,
            },
            "judge_llm": _dead_endpoint(),
            "judges": ["rule", "llm"],
            "benchmark_options": {"data": str(episode_file)},
        }
        code, out = _run_cli(tmp_path, config, capsys)
    finally:
        server.close()
    assert code == 1 and out[0].endswith("(0 failed units, 0 failed answer calls, 6 failed judge calls)")
    folder = load_run(tmp_path / "run")
    for row in folder.rows():
        assert row.answer == "Corvex" and row.verdicts["rule"]["correct"] in (True, False)
        llm = row.verdicts["llm"]
        assert llm["correct"] is None and llm["failure"] == "connection" and llm["failed_call"] == "judge"
        assert row.usage["judge_failures"] == 1
    scores = folder.summary["bm25"]["scores"]["by_judge"]
    assert scores["llm"]["rows_failed"] == 6 and scores["llm"]["Overall"] is None
    assert scores["rule"]["rows_failed"] == 0 and scores["rule"]["n"]["Cas"] == 1
    header = folder.header
    assert header["judge_llm_is_answer_llm"] is False and header["judge_llm"]["model"] == "dead-model"


def test_the_context_budget_cuts_before_the_evidence_judge_and_the_row_records_it(episode_file, tmp_path):
    options = {"data": str(episode_file)}
    config = _config(episode_file, systems=["bm25"], benchmark_options=options, context_tokens=5)
    rows = {r.question_id: r for r in run(config, out_dir=tmp_path / "run", show_progress=False).rows()}
    er = rows["after-00-ER"]
    # The memory returned the crash log; the 5-token budget drops it before the evidence judge sees it.
    assert ERROR_LOG not in er.context and er.verdicts["evidence"]["correct"] is False
    assert er.metadata["context_cut"] is True and count_tokens(er.context) <= 5
    assert er.metadata["context_tokens"] == count_tokens(er.context)
    # Six sessions' chunks at k=2: the memory holds more than k items after the change.
    assert er.metadata["context_is_whole_memory"] is False and er.metadata["memory_items"] > 2
    uncut = {
        r.question_id: r
        for r in run(
            _config(episode_file, systems=["bm25"]), out_dir=tmp_path / "u", show_progress=False
        ).rows()
    }["after-00-ER"]
    assert ERROR_LOG in uncut.context and uncut.verdicts["evidence"]["correct"] is True
    assert uncut.metadata["context_cut"] is False
