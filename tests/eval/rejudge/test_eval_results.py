"""The LoCoMo audit's eval_results answer sets: read with every published judgment, malformed files
refused naming the place, and the leniency of each judge on answers declared wrong by construction."""

from __future__ import annotations

import json

import pytest

from memsuite.eval.benchmarks.locomo.answer_files import majority, read_eval_results
from memsuite.eval.registry import definition
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.rejudge.formats import detect
from memsuite.eval.report.agreement import leniency, render_agreement
from memsuite.eval.run.folder import load_runs
from memsuite.memory_systems.errors import ConfigError, DatasetError

LOCOMO = "locomo/locomo.dev.json"
AUDIT = "published/locomo/audit"


def _item(index: int, qa: dict, answer: str, judgments: tuple[bool, ...]) -> dict:
    return {
        "question_id": f"locomo_0_qa{index}",
        "question": qa["question"],
        "golden_answer": str(qa.get("answer")),
        "generated_answer": answer,
        "llm_judgments": {f"judgment_{k + 1}": j for k, j in enumerate(judgments)},
        "category": str(qa["category"]),
    }


def _file(shared_data, tmp_path, answers, name="answers.json"):
    """An eval_results file over the first conversation's first questions (category 5 skipped, as
    every published set skips it); ``answers`` maps a gold to (answer, judgments)."""
    qa = json.loads((shared_data / LOCOMO).read_text())[0]["qa"]
    items = [_item(i, q, *answers(str(q.get("answer")))) for i, q in enumerate(qa[:12]) if q["category"] != 5]
    path = tmp_path / name
    data = {"total_questions": len(items), "detailed_results": {"locomo_exp_user_0": items}}
    path.write_text(json.dumps(data))
    return path, items


@pytest.mark.shared_data("locomo", "locomo_audit")
def test_every_published_judgment_is_kept_and_the_majority_is_the_verdict(shared_data, tmp_path):
    path = shared_data / AUDIT / "fc_gpt-4o-mini-memos.json"
    assert detect(path, definition("locomo")) == "eval_results"
    answers = read_eval_results(path)
    raw = json.loads(path.read_text())["detailed_results"]
    assert len(answers) == sum(len(v) for v in raw.values())
    split = next(a for a in answers if len(set(a.published_judgments)) == 2)
    assert split.published_verdict is majority(split.published_judgments) is not None
    assert majority((True, False)) is None and majority((True, True, False)) is True
    rows = rejudge(path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "fc").rows()
    first = raw["locomo_exp_user_0"][0]
    row = next(r for r in rows if r.unit_id == "conv-26" and r.question_id == "q000")
    assert row.question == first["question"] and row.answer == first["generated_answer"]
    assert row.metadata["published_judgments"] == list(first["llm_judgments"].values())


def _user0(data):
    return data["detailed_results"]["locomo_exp_user_0"]


@pytest.mark.parametrize(
    ("breakage", "named"),
    [
        (lambda data: _user0(data)[1].pop("llm_judgments"), "missing field 'llm_judgments'"),
        (lambda data: data["detailed_results"].update(locomo_user_9=[]), "locomo_user_9"),
        (lambda data: _user0(data)[2].update(question_id="qa2"), "question_id"),
        (lambda data: _user0(data)[0]["llm_judgments"].update(judgment_2="x"), "llm_judgments.judgment_2"),
    ],
)
@pytest.mark.shared_data("locomo")
def test_a_malformed_file_is_refused_naming_the_place_and_field(shared_data, tmp_path, breakage, named):
    path, _ = _file(shared_data, tmp_path, lambda gold: (gold, (True, True, True)))
    data = json.loads(path.read_text())
    breakage(data)
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match=named) as caught:
        rejudge(path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "out")
    assert str(path) in str(caught.value)
    assert not (tmp_path / "out").exists()  # refused before any work


@pytest.mark.shared_data("locomo")
def test_an_id_naming_another_question_is_refused(shared_data, tmp_path):
    path, _ = _file(shared_data, tmp_path, lambda gold: (gold, (True, True, True)))
    data = json.loads(path.read_text())
    data["detailed_results"]["locomo_exp_user_0"][0]["question"] = "What colour is the sky?"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError, match="What colour is the sky"):
        rejudge(path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "out")


@pytest.mark.shared_data("locomo")
def test_leniency_on_a_small_known_wrong_file(shared_data, tmp_path):
    """Wrong answers of our own: a refusal-free vague one for every question. The published judge
    (majority of three) accepts the first four; the strict rule accepts none."""
    accepted = iter(range(100))

    def wrong(gold):
        judgments = (True, True, False) if next(accepted) < 4 else (False, False, True)
        return "Something related to that, at some point.", judgments

    path, items = _file(shared_data, tmp_path, wrong, name="vague.json")
    folder = rejudge(
        path, benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "vague", known_wrong=True
    )
    rows = folder.rows()
    assert all(r.metadata["known_wrong"] for r in rows)
    published = next(r for r in leniency(rows, "published") if r["group"] == "all")
    assert published["n"] == len(items) and published["accepted"] == 4
    assert published["leniency"] == pytest.approx(4 / len(items))
    rule = next(r for r in leniency(rows, "rule") if r["group"] == "all")
    assert rule["accepted"] == 0 and rule["leniency"] == 0.0
    section = render_agreement(load_runs([tmp_path / "vague"]), {"locomo": definition("locomo").judges})
    table = next(t for t in section.tables if t.name == "judge_leniency")
    assert set(table.column("judge")) == {"rule", "published"}
    accuracy = next(t for t in section.tables if t.name == "judge_accuracy")
    # The published judge's three calls per answer give its self-agreement (its own noise floor).
    index = accuracy.column("judge").index("published")
    assert accuracy.column("self_agreement")[index] == pytest.approx(1 / 3)


@pytest.mark.shared_data("locomo")
def test_a_fetched_answer_set_is_rejudged_by_its_catalogue_name(shared_data, tmp_path, monkeypatch):
    """The path a user never types: `memsuite rejudge locomo_audit_answers/<file>` reads the cached copy
    (placed here as `memsuite data fetch` would leave it); a name not fetched is refused with the fetch
    command before any folder is written."""
    from memsuite.eval.data import cache as data_cache
    from memsuite.eval.data.catalogue import get_dataset

    monkeypatch.setenv("MEMSUITE_DATA", str(tmp_path / "cache"))
    name = "fc-baseline/results/gpt-4o-mini-memos/eval_results.json"
    with pytest.raises(ConfigError, match="memsuite data fetch locomo_audit_answers"):
        rejudge(f"locomo_audit_answers/{name}", benchmark="locomo", data=shared_data / LOCOMO,
                out_dir=tmp_path / "nothing")  # fmt: skip
    assert not (tmp_path / "nothing").exists()
    entry = get_dataset("locomo_audit_answers")
    cached = data_cache.file_path(entry, entry.file(name))
    path, items = _file(shared_data, tmp_path, lambda gold: (gold, (True, True, True)))
    cached.parent.mkdir(parents=True)
    cached.write_bytes(path.read_bytes())
    folder = rejudge(
        f"locomo_audit_answers/{name}", benchmark="locomo", data=shared_data / LOCOMO, out_dir=tmp_path / "r"
    )
    assert len(folder.rows()) == len(items)
