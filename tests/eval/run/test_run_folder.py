"""The run folder: per-unit files appear whole or not at all, and a run killed anywhere resumes to the
same rows as an uninterrupted one -- none duplicated, none lost."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from meme_configs import bm25_meme_config

from memsuite.eval.protocol import Row
from memsuite.eval.run.folder import WRITE_DELAY_ENV, RunFolder, UnitRecord, config_changes, load_run

REPO = Path(__file__).resolve().parents[3]


def _row(unit: str, question: str, system: str = "bm25", context: str = "ctx") -> Row:
    verdicts = {"rule": {"correct": True}}
    return Row(system, "tiny", unit, question, f"q {question}", "gold", context, verdicts=verdicts)


def _exported(folder: Path) -> list[Row]:
    return [Row.from_dict(json.loads(line)) for line in (folder / "rows.jsonl").read_text().splitlines()]


def _done(unit: str, rows: int, system: str = "bm25") -> UnitRecord:
    return UnitRecord(system, unit, "done", rows=rows, wall_s=0.1)


def test_a_unit_file_holds_its_rows_and_record_and_a_retry_replaces_an_error(tmp_path):
    folder = RunFolder(tmp_path)
    folder.prepare()
    folder.append_unit(UnitRecord("bm25", "ep/1", "error", error="boom"), [])
    folder.append_unit(_done("ep2", 2), [_row("ep2", "a"), _row("ep2", "b")])
    folder.append_unit(_done("ep10", 1), [_row("ep10", "a")])
    assert folder.done_units() == {("bm25", "ep2"), ("bm25", "ep10")}
    assert [(r.unit_id, r.question_id) for r in folder.rows()] == [("ep2", "a"), ("ep2", "b"), ("ep10", "a")]
    folder.append_unit(_done("ep/1", 1), [_row("ep/1", "a")])  # the retry succeeds
    statuses = [(u.unit_id, u.status) for u in folder.units()]
    assert statuses == [("ep2", "done"), ("ep10", "done"), ("ep/1", "done")]  # natural order
    assert folder.unit_path("bm25", "ep/1").name == "ep%2F1.jsonl"
    folder.write_all_rows()
    assert _exported(tmp_path) == folder.rows()


def test_a_half_written_or_inconsistent_unit_file_is_never_read(tmp_path):
    folder = RunFolder(tmp_path)
    folder.prepare()
    folder.append_unit(_done("u1", 1), [_row("u1", "a")])
    good = folder.unit_path("bm25", "u1")
    # What a kill leaves: a temp file (never read), a file cut mid-row, a file whose trailer miscounts.
    (good.parent / ".u2.jsonl.x1.tmp").write_text(json.dumps(_row("u2", "a").to_dict()) + "\n")
    torn = good.read_text()
    (good.parent / "u3.jsonl").write_text(torn.replace("u1", "u3")[: len(torn) // 2])
    lines = good.read_text().replace("u1", "u4").splitlines()
    (good.parent / "u4.jsonl").write_text("\n".join(lines[-1:]) + "\n")  # trailer says 1 row, file has 0
    (good.parent / "u5.jsonl").write_text(good.read_text().replace("u1", "u5") * 2)  # a record mid-file
    assert folder.done_units() == {("bm25", "u1")}
    assert [r.unit_id for r in folder.rows()] == ["u1"]
    folder.prepare()  # a resume drops the temp file
    assert not list(good.parent.glob(".*.tmp"))


def test_a_version_1_folder_is_read_without_torn_lines_orphans_or_duplicates_and_converted(tmp_path):
    # What the appending writer could leave: a unit's rows appended twice (killed before its record,
    # then redone), rows of a unit killed before its record, and a torn last line.
    rows = [_row("u1", "a"), _row("u1", "b"), _row("u1", "a"), _row("u1", "b"), _row("u2", "a")]
    text = "".join(json.dumps(r.to_dict()) + "\n" for r in rows)
    (tmp_path / "rows.jsonl").write_text(text + json.dumps(_row("u3", "a").to_dict())[:40])
    units = [_done("u1", 2).__dict__, UnitRecord("bm25", "u2", "error", error="x").__dict__]
    (tmp_path / "units.jsonl").write_text("".join(json.dumps(u) + "\n" for u in units) + '{"system": "bm')
    folder = RunFolder(tmp_path)
    expected = [("u1", "a"), ("u1", "b")]
    assert [(r.unit_id, r.question_id) for r in folder.rows()] == expected
    assert [(u.unit_id, u.status) for u in folder.units()] == [("u1", "done"), ("u2", "error")]
    folder.prepare()  # a resume converts it to per-unit files
    assert folder.unit_path("bm25", "u1").exists() and folder.unit_path("bm25", "u2").exists()
    assert [(r.unit_id, r.question_id) for r in folder.rows()] == expected
    assert folder.done_units() == {("bm25", "u1")}


def test_config_changes_name_key_paths():
    old = {"k": 5, "systems": ["bm25", {"name": "dense", "args": {"k": 1}}], "benchmark_options": {"a": 1}}
    new = {"k": 3, "systems": ["bm25", {"name": "dense", "args": {"k": 2}}], "benchmark_options": {"b": 1}}
    assert config_changes(old, new) == [
        {"key": "benchmark_options.a", "old": 1, "new": "<absent>"},
        {"key": "benchmark_options.b", "old": "<absent>", "new": 1},
        {"key": "k", "old": 5, "new": 3},
        {"key": "systems[1].args.k", "old": 1, "new": 2},
    ]
    assert config_changes(old, old) == []
    assert config_changes({"systems": ["a"]}, {"systems": ["a", "b"]}) == [
        {"key": "systems", "old": ["a"], "new": ["a", "b"]}
    ]


# -- killed for real ------------------------------------------------------------------------------------

#: Seconds slept after each line of a unit file (MEMSUITE_TEST_WRITE_DELAY) so kills can land inside writes.
DELAY = 0.03
EPISODES = 8
#: Where each session is killed; the session after the last runs to the end.
KILL_POINTS = (
    "startup",  # imports, config, before the header
    "in_write",  # a unit's temp file is part-written
    "after_unit",  # a unit file was just renamed into place
    "random",  # anywhere after the header: a unit's work, a write, a rename
    "in_write",
    "startup",
    "in_write",
    "after_unit",
    "random",
    "at_end",  # every unit is done: rows.jsonl, summary and the final header are being written
)


def _start(config: Path, out: Path, env: dict[str, str]) -> subprocess.Popen:
    command = [sys.executable, "-m", "memsuite", "run", str(config), "--out", str(out), "--quiet"]
    command.append("--no-cache")
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not condition() and proc.poll() is None and time.monotonic() < end:
        time.sleep(0.002)


def _comparable(row: Row) -> tuple:
    # Everything but timing: usage holds latencies and token counts measured per call.
    return (row.system, row.unit_id, row.question_id, row.question, json.dumps(row.gold, sort_keys=True),
            row.context, row.answer, json.dumps(row.verdicts, sort_keys=True),
            json.dumps(row.metadata, sort_keys=True))  # fmt: skip


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns if path.exists() else 0


def _part_written(units_dir: Path) -> set[Path]:
    """Temp files, and unit files whose last line is not their record: units being written."""
    temps = set(units_dir.glob("*/.*.tmp"))
    files = units_dir.glob("*/*.jsonl")
    return temps | {p for p in files if not p.read_bytes().rstrip().split(b"\n")[-1].startswith(b'{"unit"')}


def _kill_point(point: str, proc: subprocess.Popen, out: Path, rng: random.Random) -> None:
    """Return when ``proc`` (just started on ``out``) reaches ``point``."""
    units_dir, header = out / "units", out / "run.json"
    leftovers = _part_written(units_dir)  # a killed session's, removed or redone by the next one
    finished = len(list(units_dir.glob("*/*.jsonl")))
    header_time = _mtime(header)
    if point == "startup":
        time.sleep(rng.uniform(0.0, 1.5))
    elif point == "in_write":
        _wait_for(lambda: bool(_part_written(units_dir) - leftovers), proc)
        time.sleep(rng.uniform(0.0, 8 * DELAY))
    elif point == "after_unit":
        _wait_for(lambda: len(list(units_dir.glob("*/*.jsonl"))) > finished, proc)
    elif point == "random":
        _wait_for(lambda: _mtime(header) != header_time, proc)
        time.sleep(rng.uniform(0.0, 0.6))
    else:
        _wait_for(lambda: len(list(units_dir.glob("*/*.jsonl"))) == EPISODES, proc)


def test_a_run_killed_at_many_points_resumes_to_the_uninterrupted_rows(tmp_path):
    config = bm25_meme_config(tmp_path, "kill", episodes=EPISODES, seed=3)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    reference = _start(config, tmp_path / "reference", env)
    assert reference.wait(timeout=120) == 0, reference.stderr.read().decode()

    out = tmp_path / "killed"
    units_dir = out / "units"
    slow = {**env, WRITE_DELAY_ENV: str(DELAY)}
    rng = random.Random(15)
    kills: dict[str, int] = {}
    landed_in_write = sessions = 0
    for point in (*KILL_POINTS, None):
        proc = _start(config, out, slow)
        sessions += 1
        if point is None:
            assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
            break
        _kill_point(point, proc, out, rng)
        if proc.poll() is not None:  # finished before the kill point: the run is complete
            break
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills[point] = kills.get(point, 0) + 1
        landed_in_write += bool(_part_written(units_dir))

    folder, expected = load_run(out), load_run(tmp_path / "reference").rows()
    rows = folder.rows()
    header = folder.header()
    # Rows on disk, before the reader's de-duplication: the files alone must hold each row once.
    lines = [line for path in units_dir.glob("*/*.jsonl") for line in path.read_text().splitlines()]
    on_disk = [json.loads(line) for line in lines]
    raw = [(d["system"], d["unit_id"], d["question_id"]) for d in on_disk if "unit" not in d]
    duplicates = len(raw) - len(set(raw))
    lost = {_comparable(r) for r in expected} - {_comparable(r) for r in rows}
    print(
        f"\nkill points tried: {sum(kills.values())} {kills}, {landed_in_write} inside a unit write, "
        f"{sessions} sessions; rows compared {len(expected)}; duplicates {duplicates}, lost {len(lost)}"
    )
    assert sum(kills.values()) == len(KILL_POINTS) and landed_in_write >= 3
    assert header["status"] == "complete" and len(header.get("resumes", [])) >= 1
    assert len(expected) > 20 and duplicates == 0 and not lost
    assert sorted(map(_comparable, rows)) == sorted(map(_comparable, expected))
    assert _exported(out) == rows
    with pytest.raises(StopIteration):  # nothing left half-written
        next(units_dir.glob("*/.*.tmp"))
