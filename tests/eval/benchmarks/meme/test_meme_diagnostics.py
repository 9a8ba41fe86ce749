"""Failure-stage attribution: every stage outcome for every task type on hand-built rows, then a real
dense run at k=1 through the runner (snapshots from the run folder), and the aggregation."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memsuite.eval.analysis.diagnostics import OUTCOMES, format_stage_table
from memsuite.eval.benchmarks.meme.diagnostics import attribute, attribute_rows, load_snapshots, stage_table
from memsuite.eval.benchmarks.meme.judges.rule import judge_rule
from memsuite.eval.benchmarks.meme.protocol import evidence_verdict
from memsuite.eval.benchmarks.meme.schema import DELETION_GOLD, Question, abs_gold
from memsuite.eval.protocol import Row
from memsuite.eval.run.config import config_from_dict
from memsuite.eval.run.folder import RunFolder
from memsuite.eval.run.runner import run


@dataclass(frozen=True)
class Case:
    """One task's texts: what memory holds when first told, what it holds at question time (right
    and wrong), and a context that has or lacks what the question needs."""

    question: Question
    intro: str
    good_now: str
    bad_now: str
    good_ctx: str
    bad_ctx: str
    good_answer: str
    bad_answer: str
    names: tuple[str, ...] = ()


SCHEDULE = "Mon-Fri 08:20-16:35"
CASES = {
    "ER": Case(
        Question(
            "ER",
            "What exactly is my Wi-Fi password?",
            "pewter-Gannet-2423!",
            ("wifi",),
            ["pewter-Gannet-2423!"],
        ),
        intro="User: my Wi-Fi password is pewter-Gannet-2423!",
        good_now="User: my Wi-Fi password is pewter-Gannet-2423!",
        bad_now="User: my Wi-Fi password is pewter-gannet",
        good_ctx="[Session] User: my Wi-Fi password is pewter-Gannet-2423!",
        bad_ctx="[Session] User: my car is Dunmore Glide",
        good_answer="pewter-Gannet-2423!",
        bad_answer="pewter-Gannet",
    ),
    "Agg": Case(
        Question(
            "Agg",
            "What are my employer, neighbourhood and spot?",
            "Tessaly Foods, Fennel Quarter, bay C-17",
            ("employer", "neighbourhood", "spot"),
            ["Tessaly Foods", "Fennel Quarter", "bay C-17"],
        ),
        intro="Employer: Tessaly Foods\nNeighbourhood: Fennel Quarter\nParking spot: bay C-17",
        good_now="Employer: Tessaly Foods\nNeighbourhood: Fennel Quarter\nParking spot: bay C-17",
        bad_now="Employer: Tessaly Foods\nNeighbourhood: Fennel Quarter\nParking spot: bay D-4",
        good_ctx="Tessaly Foods; Fennel Quarter; bay C-17",
        bad_ctx="Tessaly Foods",
        good_answer="Tessaly Foods, Fennel Quarter, bay C-17",
        bad_answer="Tessaly Foods, Fennel Quarter",
    ),
    "Tr": Case(
        Question(
            "Tr",
            "What has my vet clinic been over time?",
            "Whiskerwell Clinic, Furrowby Veterinary, Pawsmere Vet",
            ("vet_clinic",),
            ["Whiskerwell Clinic", "Furrowby Veterinary", "Pawsmere Vet"],
        ),
        intro="Vet: Whiskerwell Clinic, then Furrowby Veterinary, then Pawsmere Vet",
        good_now="Vet: Whiskerwell Clinic, then Furrowby Veterinary, then Pawsmere Vet",
        bad_now="Vet: Pawsmere Vet",  # a history overwritten by the last value
        good_ctx="Whiskerwell Clinic -> Furrowby Veterinary -> Pawsmere Vet",
        bad_ctx="Pawsmere Vet",
        good_answer="Whiskerwell Clinic, Furrowby Veterinary, Pawsmere Vet",
        bad_answer="Pawsmere Vet, Whiskerwell Clinic, Furrowby Veterinary",
    ),
    "Cas": Case(
        Question(
            "Cas",
            "What is my mechanic now?",
            "Gearwell Garage",
            ("mechanic",),
            ["Torque and Tally", "Gearwell Garage"],
        ),
        intro="My mechanic depends on my car; if my car changes, my mechanic will be Gearwell Garage.",
        good_now="My mechanic is Gearwell Garage (because car changed).",
        bad_now="My mechanic is Torque and Tally.",  # the rule was lost when the car changed
        good_ctx="My mechanic is Gearwell Garage.",
        bad_ctx="My car is Kestrel Compact 4.",
        good_answer="Gearwell Garage",
        bad_answer="Torque and Tally",
    ),
    "Abs": Case(
        Question(
            "Abs",
            "What is my car insurer now?",
            abs_gold("Safelane Insurance", "my car"),
            ("car_insurer",),
            ["Safelane Insurance"],
        ),
        intro="My car insurer is Safelane Insurance.",
        good_now="My car insurer is Safelane Insurance.\nMy car insurer depends on my car.",
        bad_now="My car insurer is Safelane Insurance.\nMy car is Kestrel Compact 4.",
        good_ctx="My car insurer is Safelane Insurance. [uncertain: car changed; car insurer depends on it]",
        bad_ctx="My car insurer is Safelane Insurance.",
        good_answer="Uncertain: it was Safelane Insurance but your car changed.",
        bad_answer="Safelane Insurance",
        names=("car insurer",),
    ),
    "Del": Case(
        Question("Del", "What is my work schedule?", DELETION_GOLD, ("work_schedule",), [SCHEDULE]),
        intro=f"My work schedule is {SCHEDULE}.",
        good_now="My employer is Tessaly Foods.",
        bad_now=f"My work schedule is {SCHEDULE}.",
        good_ctx="My employer is Tessaly Foods.",
        bad_ctx=f"My work schedule is {SCHEDULE}.",
        good_answer="I don't have that information.",
        bad_answer=SCHEDULE,
    ),
}


def make_row(case: Case, snapshots_after_q: int, context: str, answer: str | None, *, phase="after") -> Row:
    """A row as the MEME protocol writes it (evidence and rule verdicts from the real functions)."""
    q = case.question
    # names as the protocol passes them: the stated dependency is scoped to sentences naming the entity.
    verdicts = {"evidence": evidence_verdict(q, phase, context, names=case.names)}
    if answer is not None:
        verdicts["rule"] = judge_rule(
            q.task, answer, q.gold, phase=phase, values=q.values, old_value=q.old_value
        ).to_dict()
    first = {v: 0 for v in (*q.values, q.gold) if v != DELETION_GOLD}
    return Row(
        system="sys",
        benchmark="meme",
        unit_id="ep",
        question_id=f"{phase}-{q.task}",
        question=q.question,
        gold=q.gold,
        context=context,
        answer=answer,
        verdicts=verdicts,
        metadata={
            "task": q.task,
            "phase": phase,
            "entities": list(q.entities),
            "values": list(q.values),
            "old_value": q.old_value,
            "snapshot_index": snapshots_after_q,
            "value_sessions": first,
            "names": list(case.names),
        },
    )


def scenario(case: Case, outcome: str) -> tuple[Row, list[str]]:
    """Artefacts whose first failing stage should be ``outcome``."""
    if outcome == "encoded":  # never stored: no snapshot ever holds the value
        snapshots = ["(nothing yet)", "User: hello" if case.question.task != "Del" else case.good_now]
        return make_row(case, 1, case.bad_ctx, case.bad_answer), snapshots
    if outcome == "maintained":  # stored, then overwritten (or, for Del, kept) wrongly
        return make_row(case, 1, case.good_ctx, case.good_answer), [case.intro, case.bad_now]
    if outcome == "retrieved":  # held at question time, but the context lacks it
        return make_row(case, 1, case.bad_ctx, case.good_answer), [case.intro, case.good_now]
    if outcome == "answered":  # the context has it, the answer is wrong
        return make_row(case, 1, case.good_ctx, case.bad_answer), [case.intro, case.good_now]
    return make_row(case, 1, case.good_ctx, case.good_answer), [case.intro, case.good_now]


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("task", list(CASES))
def test_first_failing_stage_per_task(task, outcome):
    row, snapshots = scenario(CASES[task], outcome)
    result = attribute(row, snapshots)
    assert result.first_failure == outcome, (result, result.reasons)
    assert result.answer_judge == "rule"
    stages = ("encoded", "maintained", "retrieved", "answered")
    # Every stage before the failing one passed and was decided.
    for stage in stages[: stages.index(outcome) if outcome in stages else 4]:
        assert getattr(result, stage) is True, (stage, result.reasons)


def test_value_seen_only_before_its_session_is_not_encoded():
    case = CASES["ER"]
    row = make_row(case, 2, case.good_ctx, case.good_answer)
    row.metadata["value_sessions"] = {case.question.gold: 1}
    # In memory at session 0 (e.g. a leftover of another episode), gone from session 1 on.
    result = attribute(row, [case.intro, "User: nothing", "User: nothing"])
    assert result.encoded is False and result.first_failure == "encoded"


def test_before_questions_use_the_expected_value():
    q = Question("Del", "What is my work schedule?", SCHEDULE, ("work_schedule",), [SCHEDULE])
    case = Case(q, f"My work schedule is {SCHEDULE}.", f"My work schedule is {SCHEDULE}.", "", "", "", "", "")
    kept = attribute(make_row(case, 1, case.intro, SCHEDULE, phase="before"), [case.intro, case.intro])
    assert kept.first_failure == "none"
    lost = attribute(make_row(case, 1, case.intro, SCHEDULE, phase="before"), [case.intro, "gone"])
    assert lost.first_failure == "maintained"


def test_without_snapshots_or_answer_the_stages_are_undecided():
    case = CASES["Agg"]
    result = attribute(make_row(case, 1, case.good_ctx, None), None)
    assert (result.encoded, result.maintained, result.retrieved, result.answered) == (None, None, True, None)
    assert result.first_failure == "none" and result.answer_judge is None
    assert "no snapshot" in result.reasons["encoded"]


def test_llm_verdict_is_preferred_over_the_rule():
    case = CASES["Cas"]
    row = make_row(case, 1, case.good_ctx, case.good_answer)
    row.verdicts["llm"] = {"correct": False, "reason": "hedged", "judge": "llm"}
    result = attribute(row, [case.intro, case.good_now])
    assert result.answer_judge == "llm" and result.first_failure == "answered"


def test_stage_table_shares():
    attributions = [attribute(*scenario(CASES["Tr"], o)) for o in ("encoded", "encoded", "none", "retrieved")]
    [cell] = stage_table(attributions)
    assert (cell.system, cell.task, cell.n) == ("sys", "Tr", 4)
    assert cell.shares == {
        "encoded": 0.5,
        "maintained": 0.0,
        "retrieved": 0.25,
        "answered": 0.0,
        "none": 0.25,
    }
    assert stage_table(attributions, phase="before") == []
    assert "| sys | Tr | 4 | 0.50 | 0.00 | 0.25 | 0.00 | 0.25 | rule |" in format_stage_table([cell])


def test_dense_at_k1_fails_aggregation_at_retrieval(tmp_path, embedder):
    """A real run: generated episode, dense retrieval at k=1, snapshots read back from the run folder.

    Without filler each session is one chunk, so one chunk cannot hold the three Agg values (stated
    in sessions 1a, 1b, 1c) although memory holds them all.
    """
    config = config_from_dict(
        {
            "benchmark": "meme",
            "benchmark_options": {"episodes": 2, "filler": "none", "seed": 3},
            "systems": [{"name": "dense"}],
            "k": 1,
            "answer_llm": None,
        }
    )
    folder = run(config, out_dir=tmp_path / "run", show_progress=False)
    rows = RunFolder(folder.path).rows()
    assert load_snapshots(folder.path, "dense", rows[0].unit_id) is not None
    attributions = attribute_rows(rows, folder.path)
    assert len(attributions) == len(rows)
    agg = [a for a in attributions if a.task == "Agg"]
    assert agg and all(a.encoded and a.maintained and a.retrieved is False for a in agg)
    er = [a for a in attributions if a.task == "ER" and a.phase == "after"]
    assert er and all(a.encoded and a.maintained for a in er)
    # Dense keeps every chunk: the deleted value stays in memory.
    dels = [a for a in attributions if a.task == "Del" and a.phase == "after"]
    assert dels and all(a.encoded and a.maintained is False for a in dels)
    assert all(a.answered is None for a in attributions)
