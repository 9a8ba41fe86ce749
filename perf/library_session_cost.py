"""What one session costs a memory library with a perfect LLM: its LLM calls and tokens, and its own
time with the LLM's time taken out, per session (median and total over generated MEME episodes).

Every call the library makes goes to the gold-backed oracle endpoint (eval/oracle/), in this process,
through the run's LLM client, which times each call: a library's own time is the adapter's ingest time
less the time spent inside the client. Peers are measured in the same run, on the same sessions.

    .venv/bin/python perf/library_session_cost.py --systems langmem llamaindex_memory
    .venv/bin/python perf/library_session_cost.py --systems mem0ai graphiti --episodes 2 --filler 32k
"""

from __future__ import annotations

import argparse
import statistics
import time

from memsuite.eval.benchmarks.meme.generator import generate_episodes
from memsuite.eval.oracle.run import bind_gold, open_oracle
from memsuite.memory_systems.embedder import Embedder
from memsuite.memory_systems.registry import get_system


class _Built:
    """The part of a built MEME benchmark its gold reader uses."""

    def __init__(self, episodes) -> None:
        self.episodes = {e.episode_id: e for e in episodes}

    def units(self) -> list[str]:
        return list(self.episodes)


def measure(system_name: str, episodes, oracle, embedder) -> list[dict[str, float]]:
    """One record per session of every episode: calls, tokens, ingest and LLM seconds, own seconds."""
    records = []
    for episode in episodes:
        view = oracle.for_system(f"{system_name}@{episode.episode_id}")
        system = get_system(system_name, resources={"embedder": embedder, "llm": view})
        for phase in ("before", "after"):
            for source in episode.phase_sessions(phase):
                before = view.usage(phase="ingest")
                started = time.perf_counter()
                report = system.ingest_session(source.to_session(), namespace="u")
                wall = time.perf_counter() - started
                spent = view.usage(phase="ingest") - before
                llm_s = spent.wall_s.get("ingest", 0.0)
                records.append(
                    {
                        "calls": spent.llm_calls,
                        "prompt_tokens": spent.prompt_tokens,
                        "completion_tokens": spent.completion_tokens,
                        "failures": report.failures,
                        "ingest_s": wall,
                        "llm_s": llm_s,
                        "own_s": wall - llm_s,
                    }
                )
        getattr(system, "close", lambda: None)()
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", nargs="+", default=["langmem", "llamaindex_memory"])
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--filler", default="none")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    episodes = generate_episodes(args.episodes, filler=args.filler, seed=args.seed)
    embedder = Embedder()
    print(f"{args.episodes} MEME episodes (filler {args.filler}, seed {args.seed}); per session:\n")
    print(
        "| system | sessions | LLM calls (median / total) | prompt tokens (median / total) "
        "| completion tokens (total) | failures | own s (median) | LLM s (median) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    with open_oracle("oracle") as oracle:
        bind_gold({"internal": oracle}, "meme", _Built(episodes))
        for name in args.systems:
            rows = measure(name, episodes, oracle, embedder)

            def col(key: str, rows=rows) -> list[float]:
                return [r[key] for r in rows]

            print(
                f"| {name} | {len(rows)} | {statistics.median(col('calls')):g} / {sum(col('calls')):g} "
                f"| {statistics.median(col('prompt_tokens')):g} / {sum(col('prompt_tokens')):g} "
                f"| {sum(col('completion_tokens')):g} | {sum(col('failures')):g} "
                f"| {statistics.median(col('own_s')):.3f} | {statistics.median(col('llm_s')):.3f} |"
            )


if __name__ == "__main__":
    main()
