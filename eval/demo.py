"""``memsuite demo``: run the shipped demo config (MEME on the embedded defaults) and print its table."""

from __future__ import annotations

from pathlib import Path

from eval.benchmarks.meme.scoring import TASKS
from eval.config import configs_dir, load_config
from eval.runner import run

#: configs/demo.yaml, shipped as package data: the demo runs the same from a wheel as from a checkout.
DEMO_CONFIG = configs_dir() / "demo.yaml"


def _cell(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def run_demo(*, out_dir: Path, cache_dir: Path | None, config_path: Path = DEMO_CONFIG) -> Path:
    """Run the demo config (resuming a finished run instantly) and print per-task rates per system.

    Args:
        out_dir: Run folder.
        cache_dir: Embedding/LLM cache root (a rerun is served from it), or None.
        config_path: The config to run.

    Returns:
        The run folder.
    """
    config = load_config(config_path)
    folder = run(config, out_dir=out_dir, cache_dir=cache_dir)
    header, summary = folder.header(), folder.summary()
    llm = header.get("answer_llm") or {}
    print(f"\nMEME demo: {config.benchmark_options} | answer LLM {llm.get('model', 'none')} | run {out_dir}")
    if header.get("wiring_only"):
        print("note: answers come from a 135M local model -- they prove the wiring, not quality")
    width = max(len("system"), *map(len, summary))
    print(f"\n{'system':{width}s} {'judge':9s} " + " ".join(f"{t:>5s}" for t in (*TASKS, "Overall")))
    for system, entry in summary.items():
        for judge, scores in entry["scores"]["by_judge"].items():
            cells = [_cell(scores["tasks"][t]) for t in TASKS] + [_cell(scores["Overall"])]
            print(f"{system:{width}s} {judge:9s} " + " ".join(cells))
        usage = entry["usage"]
        print(
            f"{'':{width}s} usage: {usage['llm_calls']} LLM calls ({usage['cache_hits']} cached), "
            f"{usage['prompt_tokens'] + usage['completion_tokens']} tokens, wall {entry['wall_s']:.1f} s"
        )
    print(
        "\nevidence = the retrieved context holds what the question needs (no LLM involved); "
        "rule = the deterministic judge of the answer.\nRows: " + str(folder.path / "rows.jsonl")
    )
    return folder.path
