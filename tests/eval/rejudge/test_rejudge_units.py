"""A rejudge writes its folder through the run's unit loop: a unit that raises is an error record, and
SIGINT or SIGTERM leaves an ``interrupted`` folder and one resume line, each as in a run; a rerun resumes
to the rows of an uninterrupted rejudge."""

from __future__ import annotations

import json
import os
import signal

import pytest

from memsuite.eval.cli.main import main
from memsuite.eval.rejudge import command
from memsuite.eval.rejudge.command import rejudge
from memsuite.eval.run import stopping

LOCOMO = "locomo/locomo.dev.json"
#: The two units of the source file below, in the order they are judged.
FIRST, SECOND = "conv-26", "conv-30"


@pytest.fixture
def source(shared_data, tmp_path):
    """mem0's LoCoMo layout: three questions of each of the first two dev conversations (two units)."""
    conversations = json.loads((shared_data / LOCOMO).read_text())[:2]
    scored = {
        str(index): [
            {
                "question": q["question"],
                "answer": str(q.get("answer")),
                "response": f"I think: {q.get('answer')}",
                "category": str(q["category"]),
                "llm_score": 1,
            }
            for q in conversation["qa"]
            if q["category"] != 5
        ][:3]
        for index, conversation in enumerate(conversations)
    }
    path = tmp_path / "mem0_eval.json"
    path.write_text(json.dumps(scored))
    return path


def _rejudge(shared_data, source, out):
    return rejudge(source, benchmark="locomo", data=shared_data / LOCOMO, out_dir=out, show_progress=False)


def _on_second_unit(monkeypatch, action) -> None:
    """Call ``action`` when the second unit's first row is judged."""
    judge_row = command._judge_row

    def judging(answer, question, ctx, **kwargs):
        if question.unit_id == SECOND:
            action()
        return judge_row(answer, question, ctx, **kwargs)

    monkeypatch.setattr(command, "_judge_row", judging)


@pytest.fixture
def signals_handled():
    """SIGINT and SIGTERM as a terminal's process has them (a background shell may ignore SIGINT)."""
    previous = {signum: signal.getsignal(signum) for signum in stopping.STOP_SIGNALS}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


@pytest.mark.shared_data("locomo")
def test_a_unit_that_raises_is_an_error_record_and_a_rerun_redoes_it(
    shared_data, source, tmp_path, monkeypatch
):
    reference = _rejudge(shared_data, source, tmp_path / "reference")

    def fail() -> None:
        raise RuntimeError("injected failure")

    with monkeypatch.context() as patch:
        _on_second_unit(patch, fail)
        folder = _rejudge(shared_data, source, tmp_path / "out")
    header = folder.header
    assert header["status"] == "complete_with_errors" and header["errors"] == 1
    units = {unit.unit_id: unit for unit in folder.units()}
    assert units[FIRST].status == "done" and units[FIRST].rows == 3
    assert units[SECOND].status == "error" and units[SECOND].rows == 0
    assert units[SECOND].error == "RuntimeError: injected failure"
    assert [row.unit_id for row in folder.rows()] == [FIRST] * 3
    (summary,) = folder.summary.values()
    assert summary["units"] == {"done": 1, "error": 1}

    again = _rejudge(shared_data, source, tmp_path / "out")  # an error record is redone on resume
    assert again.header["status"] == "complete" and again.header["errors"] == 0
    assert again.header["units"] == {"total": 2, "already_done": 1}
    assert (tmp_path / "out" / "rows.jsonl").read_bytes() == (reference.path / "rows.jsonl").read_bytes()
    assert (tmp_path / "out" / "summary.json").read_bytes() == (reference.path / "summary.json").read_bytes()


@pytest.mark.shared_data("locomo")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_leaves_an_interrupted_rejudge_that_a_rerun_resumes(
    shared_data, source, tmp_path, monkeypatch, capsys, signals_handled, signum
):
    reference = _rejudge(shared_data, source, tmp_path / "reference")
    out = tmp_path / "out"
    argv = ["rejudge", str(source), "--benchmark", "locomo", "--data", str(shared_data / LOCOMO)]
    argv += ["--out", str(out), "--quiet"]

    with monkeypatch.context() as patch:
        _on_second_unit(patch, lambda: os.kill(os.getpid(), signum))
        patch.setattr(stopping, "leave_units_in_flight", lambda code: None)  # pytest's threads stay
        assert main(argv) == 128 + signum
    name = signal.Signals(signum).name
    (line,) = capsys.readouterr().out.splitlines()
    assert line == (
        f"rejudge interrupted by {name}: {out} holds 1 of 2 units done;"
        f" resume with: memsuite {' '.join(argv)}"
    )
    header = json.loads((out / "run.json").read_text())
    assert header["status"] == "interrupted" and header["signal"] == name
    assert header["units"] == {"total": 2, "already_done": 0, "done_after_stop": 1}
    written = [json.loads(line) for line in (out / "rows.jsonl").read_text().splitlines()]
    assert [row["unit_id"] for row in written] == [FIRST] * 3
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handlers are given back

    assert main(argv) == 0
    printed = capsys.readouterr()
    assert printed.out.startswith(f"rejudge complete: {out} (6 rows")
    assert f"resuming {out}: 1 of 2 units already done, 1 to run" in printed.err
    header = json.loads((out / "run.json").read_text())
    assert header["status"] == "complete" and header["units"] == {"total": 2, "already_done": 1}
    assert (out / "rows.jsonl").read_bytes() == (reference.path / "rows.jsonl").read_bytes()
    assert (out / "summary.json").read_bytes() == (reference.path / "summary.json").read_bytes()
