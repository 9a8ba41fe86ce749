"""LLM cost of ingestion per memory paradigm on one generated MEME episode.

Every LLM-based system ingests the same episode (no filler by default) session by session as the
MEME protocol does, its internal LLM being the embedded SmolLM2-135M server, with no response cache
so every call is real; the figures are the LLM client's accounts of the ingest phase alone. Per
system: LLM calls, prompt and completion tokens per ingested session, failed calls, and ingest wall
time; then the ratios of the third-party libraries to our re-implementations (mem0ai vs
llm_extraction, graphiti vs temporal_kg). A 135M model proves the wiring: its extractions are poor,
so the counts describe each algorithm's call pattern, not its quality.

    .venv/bin/python perf/bench_paradigms.py
    .venv/bin/python perf/bench_paradigms.py --systems llm_extraction,mem0ai --repeats 1
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.llm import open_llm
from memsuite.memory_systems.registry import get_system

SYSTEMS = ("llm_extraction", "mem0ai", "temporal_kg", "graphiti", "md_flat", "karpathy_wiki")
PAIRS = (("mem0ai", "llm_extraction"), ("graphiti", "temporal_kg"))


def ingest_costs(episode, systems: list[str]) -> dict[str, dict]:
    """Ingest the episode into each system with one fresh local server; the ingest phase's accounts."""
    embedder = Embedder()
    figures = {}
    # No response cache: every call is real. An 8K window: mem0's and graphiti's prompts alone exceed
    # the 2K default (they would fail fast as context_length failures and measure nothing).
    with open_llm({"model": "local", "n_ctx": 8192}, cache_dir=None) as client:
        for name in systems:
            llm = client.for_system(name)
            system = get_system(name, resources={"embedder": embedder, "llm": llm})
            started = time.perf_counter()
            failures = 0
            for phase in ("before", "after"):
                for session in episode.phase_sessions(phase):
                    failures += system.ingest_session(session.to_session(), namespace="bench").failures
                system.finalize(namespace="bench")
            wall = time.perf_counter() - started
            usage = client.usage(system_name=name, phase="ingest")
            figures[name] = {
                "llm_calls": usage.llm_calls,
                "prompt_tokens": usage.prompt_tokens,
                "completion_tokens": usage.completion_tokens,
                "llm_failures": usage.llm_failures,
                "reported_failures": failures,
                "ingest_s": wall,
            }
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--filler", default="none")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="runs (median of wall time reported)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    episode = generate_episodes(1, seed=args.seed, filler=args.filler)[0]
    sessions = len(episode.sessions)
    systems = args.systems.split(",")
    runs = [ingest_costs(episode, systems) for _ in range(args.repeats)]
    figures: dict[str, dict] = {}
    print(f"episode {episode.episode_id}: {sessions} sessions, filler {args.filler}, internal LLM local 135M")
    # failed calls: LLM calls the client counted as failed; failed sess.: sessions the system reported
    # as not (fully) ingested (a library raising on a reply that misses its schema, say).
    header = ("calls/sess", "prompt/sess", "compl/sess", "failed calls", "failed sess.", "ingest s")
    widths = (11, 11, 11, 12, 12, 11)
    print(f"{'system':15s} " + " ".join(f"{h:>{w}s}" for h, w in zip(header, widths, strict=True)))
    for name in systems:
        usage = runs[0][name]
        row = usage | {"sessions": sessions, "ingest_s": statistics.median(r[name]["ingest_s"] for r in runs)}
        figures[name] = row
        print(
            f"{name:15s} {row['llm_calls'] / sessions:11.2f} {row['prompt_tokens'] / sessions:11.0f} "
            f"{row['completion_tokens'] / sessions:11.0f} {row['llm_failures']:12d} "
            f"{row['reported_failures']:12d} {row['ingest_s']:11.1f}"
        )
    for theirs, ours in PAIRS:
        if theirs in figures and ours in figures:
            a, b = figures[theirs], figures[ours]
            calls = a["llm_calls"] / max(b["llm_calls"], 1)
            tokens = (a["prompt_tokens"] + a["completion_tokens"]) / max(
                b["prompt_tokens"] + b["completion_tokens"], 1
            )
            wall = a["ingest_s"] / max(b["ingest_s"], 1e-9)
            print(f"{theirs} / {ours}: calls x{calls:.2f}, tokens x{tokens:.2f}, ingest time x{wall:.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
