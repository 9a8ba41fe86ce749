"""The LoCoMo protocol on the real dev file: bm25 over turn documents, the reference rows, a
retrieval-only run through the runner."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from memsuite.baselines.bm25 import BM25Memory
from memsuite.eval.benchmarks.locomo.protocol import LocomoBenchmark, default_data_path, to_session
from memsuite.eval.registry import definition
from memsuite.eval.report.document import build_report, report_markdown
from memsuite.eval.report.runs import data_source
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import load_runs
from memsuite.eval.run.runner import run
from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.records import Session, Turn
from memsuite.memory_systems.registry import get_system

DEV = Path("locomo") / "locomo.dev.json"


def _raw(shared_data: Path, sample_id: str) -> dict:
    return next(c for c in json.loads((shared_data / DEV).read_text()) if c["sample_id"] == sample_id)


def _hand_documents(item: dict) -> list[tuple[str, str]]:
    """(dia_id, document) per turn, built straight from the JSON in LoCoMo's RAG format."""
    conversation = item["conversation"]
    numbers = sorted(
        int(k.split("_")[1]) for k in conversation if k.count("_") == 1 and k.startswith("session_")
    )
    out = []
    for n in numbers:
        date = conversation[f"session_{n}_date_time"]
        for turn in conversation[f"session_{n}"]:
            text = f'({date}) {turn["speaker"]} said, "{turn["text"]}"'
            if turn.get("blip_caption"):
                text += f"\n[shares {turn['blip_caption']}]"
            out.append((turn["dia_id"], text))
    return out


@pytest.mark.shared_data("locomo")
def test_bm25_recall_on_one_conversation_matches_a_hand_computation(shared_data):
    benchmark = LocomoBenchmark(shared_data / DEV, conversations=["conv-30"])
    system = get_system("bm25")
    rows = list(benchmark.run_unit(system, "conv-30", definition("locomo").context(k=5, judges=())))
    item = _raw(shared_data, "conv-30")
    documents = _hand_documents(item)
    # One stored document per turn, in LoCoMo's RAG format, each carrying its dia_id.
    records = system.records(namespace="conv-30")
    assert [(r.metadata["dia_id"], r.text) for r in records] == documents
    # By hand: a fresh bm25 over the same documents, top 5 per question, share of evidence found.
    reference = BM25Memory()
    reference.store([d for _, d in documents], namespace="x", metadata=[{"dia_id": i} for i, _ in documents])
    recalls = []
    for row, qa in zip(rows, item["qa"], strict=True):
        top = [h.metadata["dia_id"] for h in reference.search(qa["question"], k=5, namespace="x")]
        assert row.metadata["retrieved_dia_ids"] == top
        if qa["evidence"]:
            recalls.append(sum(e in top for e in qa["evidence"]) / len(qa["evidence"]))
    rows_recall = [
        r.verdicts["evidence"]["recall"] for r in rows if r.verdicts["evidence"].get("recall") is not None
    ]
    assert rows_recall == pytest.approx(recalls)  # conv-30 has no malformed evidence id
    assert len(rows) == len(item["qa"]) and all(r.answer is None for r in rows)
    summary = benchmark.summarize(rows).judge("evidence").values
    everything = summary["overall_with_adversarial"]
    assert everything["mean"] == pytest.approx(sum(recalls) / len(recalls)) and everything["n"] == len(
        recalls
    )
    assert 0 < everything["mean"] < 1


@pytest.mark.shared_data("locomo")
def test_reference_rows_full_context_and_gold_evidence(shared_data):
    benchmark = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"], max_questions=20)
    ctx = definition("locomo").context(k=5, judges=())
    gold_rows = list(benchmark.run_unit(get_system("gold_evidence"), "conv-26", ctx))
    full_rows = list(benchmark.run_unit(get_system("full_context"), "conv-26", ctx))
    for row in gold_rows:
        assert row.metadata["retrieved_dia_ids"] == sorted(
            row.metadata["evidence"], key=lambda i: tuple(int(x) for x in i[1:].split(":"))
        )
        if row.metadata["evidence"]:
            assert row.verdicts["evidence"]["recall"] == 1.0
    assert all(len(r.metadata["retrieved_dia_ids"]) == 419 for r in full_rows)  # every turn of conv-26
    # Cut to a small window, full_context drops the oldest turns first.
    small = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"], max_questions=1)
    (row,) = small.run_unit(get_system("full_context"), "conv-26", replace(ctx, context_tokens=300))
    assert (
        row.metadata["context_truncated"]
        and row.metadata["retrieved_dia_ids"][-1] == small.conversations["conv-26"].turns[-1].dia_id
    )
    assert "D1:1" not in row.metadata["retrieved_dia_ids"]


@pytest.mark.shared_data("locomo")
def test_retrieval_only_run_through_the_runner(shared_data, tmp_path):
    config = config_from_dict(
        {
            "benchmark": "locomo",
            "systems": ["bm25"],
            "judges": [],
            "k": 3,
            "benchmark_options": {
                "data": str(shared_data / DEV),
                "conversations": ["conv-41"],
                "max_questions": 8,
            },
        }
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    rows = list(folder.rows())
    assert len(rows) == 8 and all(set(r.verdicts) == {"evidence"} for r in rows)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())["bm25"]["scores"]
    # The file's repaired ids lie in other conversations: the summary reports what ran.
    assert summary["evidence_repairs"]["repaired"] == 0 and summary["k"] == 3
    assert summary["source"]["path"] == str(shared_data / DEV)
    assert summary["by_judge"]["evidence"]["overall"]["n_failed"] == 0


@pytest.mark.shared_data("locomo")
def test_the_report_names_the_data_the_benchmark_chose_by_name_not_path(shared_data, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    options = {"conversations": ["conv-41"], "max_questions": 3}
    config = config_from_dict(
        {"benchmark": "locomo", "systems": ["bm25"], "judges": [], "k": 3, "benchmark_options": options}
    )
    run(config, out_dir=tmp_path / "run", show_progress=False)
    (info,) = load_runs([tmp_path / "run"])
    source = data_source(info)
    assert source.startswith(f"official: data=dev copy $MEMSUITE_SHARED_DATA/{DEV} (sha256 ")
    assert source.endswith("; conversations=[conv-41]; max_questions=3") and str(shared_data) not in source
    markdown = report_markdown(build_report([info]))
    assert "LoCoMo -- judge: evidence" in markdown and "n_failed" in markdown


@pytest.mark.shared_data("locomo")
def test_answer_judges_wait_for_an_answer_and_unknown_judges_fail(shared_data):
    benchmark = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"], max_questions=1)
    # No answer call, so no answer verdict (a config asking for one is refused when it is read).
    (row,) = benchmark.run_unit(get_system("bm25"), "conv-26", definition("locomo").context(judges=("f1",)))
    assert "f1" not in row.verdicts and "evidence" in row.verdicts
    with pytest.raises(ConfigError, match="unknown locomo judge 'exact_match'"):
        list(
            benchmark.run_unit(
                get_system("bm25"), "conv-26", definition("locomo").context(judges=("exact_match",))
            )
        )


@pytest.mark.shared_data("locomo")
def test_default_data_path_and_its_error(shared_data, monkeypatch, tmp_path):
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(shared_data))
    assert default_data_path() == shared_data / DEV
    monkeypatch.setenv("MEMSUITE_SHARED_DATA", str(tmp_path))  # no development copy there
    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "cache"))  # and nothing fetched
    with pytest.raises(ConfigError, match=r"memsuite data fetch locomo.*locomo10\.json"):
        default_data_path()


@pytest.mark.shared_data("locomo")
def test_the_benchmark_lays_out_the_documents(shared_data):
    plain = Session("s", "2023", (Turn("user", "hello"), Turn("assistant", "hi")))
    assert plain.documents is None and plain.per_turn_documents() is None
    system = BM25Memory()
    system.ingest_session(plain, namespace="n")  # no layout given: one document per turn
    assert [r.text for r in system.records(namespace="n")] == ["user: hello", "assistant: hi"]
    benchmark = LocomoBenchmark(shared_data / DEV, conversations=["conv-26"])
    session = to_session(benchmark.conversations["conv-26"], benchmark.conversations["conv-26"].sessions[0])
    documents = session.per_turn_documents()
    assert documents is not None and len(documents) == len(session.turns)
    assert documents[0].text.startswith("(1:56 pm on 8 May, 2023) Caroline said, ")
    assert documents[0].metadata["dia_id"] == "D1:1" and documents[0].turn == 0


@pytest.mark.shared_data("locomo")
def test_conversations_may_be_a_count_and_the_source_describes_what_ran(shared_data):
    first_two = LocomoBenchmark(shared_data / DEV, conversations=2)
    order = [c["sample_id"] for c in json.loads((shared_data / DEV).read_text())]
    assert first_two.units() == order[:2]
    with pytest.raises(ConfigError, match="a count must be 1 to 7"):
        LocomoBenchmark(shared_data / DEV, conversations=0)

    everything = LocomoBenchmark(shared_data / DEV)
    one = LocomoBenchmark(shared_data / DEV, conversations=["conv-30"])
    source = one.summarize([]).part("source")
    assert source["conversations"] == 1 and source["file_conversations"] == 7
    assert source["questions"] == len(_raw(shared_data, "conv-30")["qa"])
    repairs = one.summarize([]).part("evidence_repairs")
    assert {e["sample_id"] for e in repairs["entries"]} <= {"conv-30"}
    # The whole file's repairs are those of every conversation: none lost, none counted twice.
    per_conversation = [LocomoBenchmark(shared_data / DEV, conversations=[c]).repairs for c in order]
    assert sum(r.repaired for r in per_conversation) == everything.repairs.repaired
    assert sum(r.dropped for r in per_conversation) == everything.repairs.dropped
    assert sum(len(r.examples) for r in per_conversation) == len(everything.repairs.examples)
    capped = LocomoBenchmark(shared_data / DEV, conversations=["conv-41"], max_questions=3)
    assert capped.source["questions"] == 3
    assert all(e["question"] < 3 for e in capped.repairs.examples)


def test_a_count_of_conversations_passes_config_validation(fetched_catalogue):
    config = config_from_dict(
        {"benchmark": "locomo", "systems": ["bm25"], "judges": [], "benchmark_options": {"conversations": 2}}
    )
    assert config.benchmark_options["conversations"] == 2
