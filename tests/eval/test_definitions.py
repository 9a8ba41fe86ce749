"""Every registered benchmark's definition, built and every part it declares exercised on a small input
the test makes: the protocol through a run with answers (every judge applied), the summary, the report
renderer, the outcomes, the rejudge reader through ``memsuite rejudge``, the commands' argument
parsers, the oracle gold reader, the data option and the catalogue entries."""

from __future__ import annotations

import argparse
import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from memsuite.eval import registry
from memsuite.eval.data.catalogue import catalogue
from memsuite.eval.protocol import Scores
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.report.model import ReportOptions, Section
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import load_runs
from memsuite.eval.run.runner import run


def _beam(tmp: Path) -> dict[str, Any]:
    folder = tmp / "chats" / "100K" / "1"
    (folder / "probing_questions").mkdir(parents=True)
    turns = [
        [{"role": "user", "id": 0, "content": "My cat is called Tofu."}],
        [{"role": "assistant", "id": 1, "content": "Tofu is a fine name for a cat."}],
    ]
    (folder / "chat.json").write_text(json.dumps([{"batch_number": 1, "time_anchor": None, "turns": turns}]))
    asked = {"question": "What is my cat called?", "answer": "Tofu", "difficulty": "easy"}
    rubric = {"rubric": ["LLM response should state: Tofu"], "source_chat_ids": [0]}
    questions = {"information_extraction": [{**asked, **rubric}]}
    (folder / "probing_questions" / "probing_questions.json").write_text(json.dumps(questions))
    return {"data": str(tmp / "chats")}


def _lifebench(tmp: Path) -> dict[str, Any]:
    user = tmp / "lifebench" / "ann"
    (user / "phone_data").mkdir(parents=True)
    (user / "QA").mkdir()
    sms = {"type": "sms", "phone_id": 0, "datetime": "2025-01-05 09:00:00", "contactName": "Bo",
           "message_content": "My cat is called Tofu.", "message_type": "Receive"}  # fmt: skip
    (user / "phone_data" / "sms.json").write_text(json.dumps([sms]))
    asked = {"ask_time": "2025-01", "evidence": [{"type": "sms", "id": 0}]}
    questions = [
        {**asked, "question": "What is the cat called?", "answer": "Tofu",
         "question_type": "Information Extraction", "score_points": [{"description": "Tofu", "score": 1}]},
        {**asked, "question": "Which is the cat?", "answer": "A", "question_type": "Multi-hop reasoning",
         "options": [{"option": "A", "content": "Tofu"}, {"option": "B", "content": "Miso"}]},
        {**asked, "question": "What is my passport number?", "answer": "Unable to answer",
         "question_type": "Unanswerable", "evidence": [], "score_points": []},
    ]  # fmt: skip
    (user / "QA" / "QA_clean.json").write_text(json.dumps(questions))
    return {"data": str(tmp / "lifebench")}


def _locomo(tmp: Path) -> dict[str, Any]:
    conversation = {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1:00 pm on 1 May, 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat called Tofu."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "Lovely, I have a dog."},
        ],
    }
    qa = [{"question": "What did Ann adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 4}]
    path = tmp / "locomo.json"
    path.write_text(json.dumps([{"sample_id": "conv-x", "conversation": conversation, "qa": qa}]))
    return {"data": str(path)}


def _longmemeval(tmp: Path) -> dict[str, Any]:
    reply = {"role": "assistant", "content": "ok"}
    sessions = [
        [{"role": "user", "content": "I flew to Paris last week.", "has_answer": True}, reply],
        [{"role": "user", "content": "I like tea."}, reply],
    ]
    record = {
        "question_id": "q1",
        "question_type": "single-session-user",
        "question": "Where did I fly to?",
        "answer": "Paris",
        "question_date": "2023/05/30 (Tue) 10:00",
        "haystack_dates": ["2023/05/01 (Mon) 09:00", "2023/05/02 (Tue) 09:00"],
        "haystack_session_ids": ["answer_s0", "other_1"],
        "haystack_sessions": sessions,
        "answer_session_ids": ["answer_s0"],
    }
    path = tmp / "longmemeval.json"
    path.write_text(json.dumps([record]))
    return {"data": str(path)}


def _realtalk(tmp: Path) -> dict[str, Any]:
    def message(dia_id: str, speaker: str, text: str) -> dict[str, Any]:
        sent = {"date_time": "29.12.2023, 22:42:04", "img_file": "", "img_url": ""}
        return {"dia_id": dia_id, "speaker": speaker, "clean_text": text, **sent}

    chat = {
        "name": {"speaker_1": "Ann", "speaker_2": "Bo"},
        "session_1": [
            message("D1:1", "Ann", "I adopted a cat called Tofu."),
            message("D1:2", "Bo", "Lovely!"),
        ],
        "events_session_1": {},
        "qa": [
            {"question": "What is Ann's cat called?", "answer": "Tofu", "evidence": ["D1:1."], "category": 1}
        ],
    }
    folder = tmp / "realtalk"
    folder.mkdir()
    (folder / "Chat_1_Ann_Bo.json").write_text(json.dumps(chat))
    return {"data": str(folder)}


def _wmb(tmp: Path) -> dict[str, Any]:
    datasets = tmp / "wmb" / "datasets"
    datasets.mkdir(parents=True)
    turns = [(1, "user", "I always drink oat milk coffee before work."), (2, "assistant", "A good ritual.")]
    empty = {"category": "daily_life", "embedded_facts": [], "fact_type": None}
    lines = [{**empty, "turn_id": i, "speaker": s, "text": t} for i, s, t in turns]
    (datasets / "daily_life.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    base = {"category": "daily_life", "gold_answer": "gold", "points": 0.1, "false_penalty": 0.0}
    asked = {"text": "What coffee does the user drink?", "required_memories": ["User drinks oat milk coffee"]}
    probe = {
        "text": "What is your iguana called?",
        "required_memories": [],
        "points": 0.0,
        "false_penalty": 0.25,
    }
    questions = [
        {**base, **asked, "id": "daily_life.S1.001", "qtype": "S1Situational", "gold_turn_ids": [1]},
        {**base, **probe, "id": "daily_life.FM.001", "qtype": "FalseMemory", "gold_turn_ids": []},
    ]
    (datasets / "all_questions.json").write_text(json.dumps(questions))
    return {"data_dir": str(tmp / "wmb"), "categories": ["daily_life"]}


#: A small input per benchmark: its benchmark options, made in a folder. A benchmark added without one
#: fails the test below until it has one.
SMALL = {
    "beam": _beam,
    "dynamicmem": lambda tmp: {"users": 1, "months": 3, "activity": 0.2, "checkpoints": [1]},
    "lifebench": _lifebench,
    "locomo": _locomo,
    "longmemeval": _longmemeval,
    "meme": lambda tmp: {"episodes": 1, "filler": "none", "seed": 0},
    "realtalk": _realtalk,
    "wmb": _wmb,
}


def _reply(messages: list[dict[str, Any]]) -> Any:
    """One reply for every prompt: JSON the JSON-asking prompts can read, text the others judge."""
    return {"answer": "Tofu", "label": "CORRECT", "correct": True, "score": 1, "value": "Tofu"}


def _required(parser: argparse.ArgumentParser, tmp: Path) -> list[str]:
    """A value for each required option (a folder: the commands' required options are output paths)."""
    required = [a.option_strings[0] for a in parser._actions if a.required and a.option_strings]
    return [arg for option in required for arg in (option, str(tmp))]


#: The shipped benchmarks: tests declare benchmarks of their own, and those collected earlier are
#: declared by now.
SHIPPED = sorted(n for n, d in registry.declarations().items() if d.define.__module__.startswith("memsuite."))


@pytest.mark.parametrize("name", SHIPPED)
def test_every_part_of_every_definition_works_on_a_small_input(name, tmp_path, replay_llm):
    found = registry.definition(name)
    assert name in SMALL, f"add a small input for benchmark {name!r} to SMALL"
    options = SMALL[name](tmp_path)
    llm = replay_llm({"other": [_reply] * 500})
    endpoint = {"model": "replay", "base_url": llm.server.base_url, "api_key_env": None, "max_retries": 0}
    config = config_from_dict(
        {
            "benchmark": name,
            "systems": ["bm25"],
            "k": 3,
            "judges": sorted(found.judges),
            "answer_llm": endpoint,
            "benchmark_options": options,
        }
    )
    folder = run(config, out_dir=tmp_path / "run", cache_dir=None, show_progress=False)
    # Every unit done; a judge reply the scripted model got wrong is a counted judge failure, not an error.
    header = folder.header
    assert header["status"] in ("complete", "complete_with_errors") and header["errors"] == 0, header
    rows = folder.rows()
    assert rows and all(r.benchmark == name for r in rows)

    # Each judge judged at least one row itself (not a failed answer standing in for it).
    for judge in found.judges:
        judged = [r.verdicts[judge] for r in rows if judge in r.verdicts]
        assert any(v.get("failed_call") != "answer" for v in judged), (name, judge, judged[:1])

    # The scores its summarize returns are what the report reads back from summary.json.
    protocol = found.protocol(**options)
    scores = protocol.summarize(rows)
    assert isinstance(scores, Scores) and scores.layout == found.scores_layout
    (info,) = load_runs([tmp_path / "run"], layouts={name: found.scores_layout})
    assert info.scores("bm25") == scores
    if found.report is not None:
        assert isinstance(found.report([info], ReportOptions()), Section)
    if found.beside is not None:
        assert found.beside([info]) is None  # one benchmark's runs: nothing to set beside them
    if found.outcomes is not None:
        for judge in found.outcomes.judges:
            assert isinstance(found.outcomes.outcomes(rows, judge), list)

    if found.rejudge is not None:
        data = options.get(found.data.option) if found.data is not None else None
        questions = found.rejudge(Path(data) if data is not None else None)
        assert {(q.unit_id, q.question_id) for q in questions} >= {(r.unit_id, r.question_id) for r in rows}
        answer_judges = [j for j, spec in found.judges.items() if spec.needs_answer]
        again = rejudge(tmp_path / "run", benchmark=name, out_dir=tmp_path / "again", judges=answer_judges,
                        judge_llm=endpoint, show_progress=False)  # fmt: skip
        assert all(set(answer_judges) <= set(r.verdicts) for r in again.rows())
    for path_format in found.answer_formats.values():
        assert path_format.detect(tmp_path / "run") is False  # a run folder is none of the published formats

    for verb, command in found.commands.items():
        parser = argparse.ArgumentParser(prog=f"memsuite {verb} {name}")
        command.add_arguments(parser)
        assert callable(command.run) and parser.parse_args(_required(parser, tmp_path))
    if found.oracle_gold is not None:
        unit = protocol.units()[0]
        assert found.oracle_gold(protocol, unit).unit_id == unit
    if found.demo is not None:
        assert callable(found.demo)

    if found.data is not None:
        assert found.data.option in inspect.signature(found.protocol).parameters
        names = {entry.name for entry in found.catalogue}
        assert found.data.default is None or found.data.default in names
    for entry in found.catalogue:
        assert catalogue()[entry.name] is entry
        assert entry.files and all(entry.revision in f.url for f in entry.files), entry.name
