"""``memsuite demo`` on a small retrieval-only config: what it prints is what the run holds."""

from __future__ import annotations

import json

from memsuite.eval.benchmarks.meme import demo
from memsuite.eval.run.folder import load_run

CONFIG = """\
benchmark: meme
name: demo_small
systems:
  - bm25
  - {name: temporal_kg, label: temporal_kg_oracle, args: {oracle: true}}
k: 2
benchmark_options: {episodes: 1, filler: none, seed: 0}
"""


def test_demo_prints_the_runs_evidence_and_stages_and_writes_the_report(tmp_path, capsys):
    config = tmp_path / "demo_small.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    report = demo.run_demo(
        out_dir=tmp_path / "demo", cache_dir=None, config_path=config, wiring_path=None, show_progress=False
    )
    out = capsys.readouterr().out
    folder = load_run(tmp_path / "demo" / "demo_small")
    summary = folder.summary()
    assert set(summary) == {"bm25", "temporal_kg_oracle"}

    # The evidence table: one line per system with the summary's own rates.
    for system, entry in summary.items():
        scores = entry["scores"]["by_judge"]["evidence"]
        line = next(x for x in out.splitlines() if x.startswith(system + " "))
        expected = [demo._cell(scores["tasks"][t]).strip() for t in demo.TASKS] + [f"{scores['Overall']:.2f}"]
        assert line.split()[1:] == expected
        # Under it: each cell's 95% interval (resampling episodes) and n.
        lines = out.splitlines()
        bounds, counts = lines[lines.index(line) + 1], lines[lines.index(line) + 2]
        assert bounds.startswith("  95% interval") and counts.startswith("  n ")
        # One episode: every cell is too small to read, and marked so.
        assert counts.split()[-1] == f"{sum(scores['n'].values())}*"
        for bound in bounds.split()[2:]:
            lo, hi = map(float, bound.split("-"))
            assert 0.0 <= lo <= hi <= 1.0
    assert "95% interval: bootstrap resampling episodes" in out
    # Without filler an episode's five sessions are five chunks: the size line says so.
    assert demo.memory_chunks(folder) == [5]
    assert "bm25's memory holds 5 chunks per episode, k = 2" in out

    # The stage table pools the after-questions: n per system, shares summing to one.
    stages = demo.stage_lines(folder, width=demo._width(summary))
    assert stages[0].split() == ["system", "n", "encoded", "maintained", "retrieved", "passed"]
    after = sum(1 for r in folder.rows() if r.system == "bm25" and r.metadata["phase"] == "after")
    for line in stages[1:]:
        system, n, *shares = line.split()
        assert int(n) == after and abs(sum(map(float, shares)) - 1) < 0.02
    assert "\n".join(stages) in out
    assert "Wiring only" not in out  # no wiring config given

    assert report == tmp_path / "demo" / "report" / "report.md"
    assert f"Report (tables and plots): {report}" in out
    text = report.read_text(encoding="utf-8")
    assert "MEME failure stages" in text and "temporal_kg_oracle" in text
    assert (report.parent / "meme_failure_stages.png").exists()


def test_a_second_demo_resumes_and_one_after_a_code_change_recomputes(tmp_path, capsys):
    config = tmp_path / "demo_small.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    out = tmp_path / "demo"

    def demo_run() -> str:
        demo.run_demo(out_dir=out, cache_dir=None, config_path=config, wiring_path=None, show_progress=False)
        return capsys.readouterr().out

    demo_run()
    folder = out / "demo_small"
    units = (folder / "units.jsonl").read_text()
    rows = len(load_run(folder).rows())
    assert "recomputing" not in demo_run()
    assert (folder / "units.jsonl").read_text() == units  # resumed: nothing ran again
    assert "resumes" in load_run(folder).header()

    # Rows another version of memsuite made: the demo recomputes them (a run refuses, see test_ablation).
    header = json.loads((folder / "run.json").read_text())
    header["code"]["memsuite_sha256"] = "0" * 64
    (folder / "run.json").write_text(json.dumps(header))
    printed = demo_run()
    assert f"{folder}: rows from another config or code (memsuite's own code changed); recomputing" in printed
    recomputed = load_run(folder).header()
    assert recomputed["code"]["memsuite_sha256"] != "0" * 64 and "resumes" not in recomputed
    assert len(load_run(folder).rows()) == rows  # each row once: the old ones are gone
