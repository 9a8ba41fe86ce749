"""LLM-layer figures on this machine: embedded server start-up, prompt and generation
throughput of SmolLM2-135M (llama_cpp.server), and the latency of an on-disk cache hit.

Every figure is the median over ``--repeats`` runs. llama.cpp's threads compete badly for CPU with
other work, so the script prints how busy the CPU was when it started; run it on an idle machine.

    .venv/bin/python perf/bench_llm.py
    .venv/bin/python perf/bench_llm.py --repeats 5 --json results/bench_llm.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from memsuite.memory_systems.llm import LLMClient, local_config
from memsuite.memory_systems.llm_server import LOCAL_MODEL, serve_local

_FILLER = (
    "The quarterly report lists the ferry schedule, the bakery's opening hours, the names of the "
    "volunteers at the library and the parking rules near the harbour. "
)


def _unique(i: int, text: str) -> str:
    # A distinct first line per request: llama-cpp-python reuses the KV cache of a shared prompt
    # prefix, which would make a repeated prompt look faster than a fresh one.
    return f"Request {i} ({time.time_ns()}).\n{text}"


def busy_cores(sample_s: float = 1.0) -> float | None:
    """Cores' worth of CPU in use over the next ``sample_s`` (Linux /proc/stat), or None elsewhere."""

    def snapshot() -> tuple[int, int]:
        values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        return sum(values), values[3] + values[4]  # total, idle + iowait

    try:
        total0, idle0 = snapshot()
        time.sleep(sample_s)
        total1, idle1 = snapshot()
    except (OSError, ValueError, IndexError):
        return None
    cores = os.cpu_count() or 1
    return cores * (1 - (idle1 - idle0) / max(1, total1 - total0))


def bench_startup(repeats: int, n_ctx: int) -> list[float]:
    """Seconds from process start until ``/v1/models`` answers, one value per start."""
    times = []
    for _ in range(repeats):
        with serve_local(n_ctx=n_ctx) as server:
            times.append(server.startup_s)
    return times


def _stream(sdk, content: str, max_tokens: int) -> tuple[float, float, int]:
    """(seconds to the first token, seconds from first to last token, tokens streamed)."""
    started = time.perf_counter()
    first = last = None
    n = 0
    stream = sdk.chat.completions.create(
        model=LOCAL_MODEL,
        messages=[{"role": "user", "content": content}],
        max_tokens=max_tokens,
        temperature=0.0,
        stream=True,
    )
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            last = time.perf_counter()
            first = first or last
            n += 1  # llama-cpp-python streams one token per chunk
    assert first is not None and last is not None, "no tokens streamed"
    return first - started, last - first, n


def bench_throughput(base_url: str, repeats: int) -> tuple[list[float], list[float]]:
    """(prompt tokens/s, generated tokens/s) per repeat, from streamed replies.

    Prompt rate: prompt tokens of a ~1,000-token prompt over the time to its first streamed token.
    Generation rate: tokens after the first over the time from the first to the last token.
    This benchmark talks to the SDK directly (no cache, no accounting) to see token timings.
    """
    import openai

    sdk = openai.OpenAI(base_url=base_url, api_key="not-needed", max_retries=0, timeout=600)
    probe = LLMClient(local_config(base_url), environ={})  # to count the prompt's tokens
    long_prompt = _FILLER * 30 + "\nSummarise the report in one word."
    story = "Write a long, detailed story about a lighthouse keeper and a storm."
    prompt_rates, gen_rates = [], []
    for i in range(repeats):
        content = _unique(2 * i, long_prompt)
        prompt_tokens = probe.chat([{"role": "user", "content": content}], phase="answer", max_tokens=1)
        assert prompt_tokens.ok, prompt_tokens.failure
        # Same length, fresh prefix (the probe just filled the KV cache with `content`).
        to_first, _, _ = _stream(sdk, _unique(2 * i + 1, long_prompt), max_tokens=1)
        prompt_rates.append(prompt_tokens.prompt_tokens / to_first)
        _, decode_s, n = _stream(sdk, _unique(2 * i + 1, story), max_tokens=128)
        gen_rates.append((n - 1) / decode_s)
    probe.close()
    sdk.close()
    return prompt_rates, gen_rates


def bench_cache_hit(base_url: str, hits: int) -> tuple[float, float]:
    """(median ms of a ``chat`` served from the cache, ms to build a client and serve its first hit)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "responses.sqlite"
        config = local_config(base_url, max_tokens=8)
        messages = [{"role": "user", "content": "Say hi."}]
        client = LLMClient(config, cache_path=path, environ={})
        assert not client.chat(messages, phase="answer").cached
        times = []
        for _ in range(hits):
            started = time.perf_counter()
            result = client.chat(messages, phase="answer")
            times.append((time.perf_counter() - started) * 1000)
            assert result.cached
        client.close()
        started = time.perf_counter()
        fresh = LLMClient(config, cache_path=path, environ={})  # opens the SQLite file
        first = fresh.chat(messages, phase="answer")
        first_ms = (time.perf_counter() - started) * 1000
        assert first.cached
        fresh.close()
        return statistics.median(times), first_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per figure (median reported)")
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--hits", type=int, default=200, help="cache hits timed")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    cores = os.cpu_count() or 1
    busy = busy_cores()
    print(
        f"model {LOCAL_MODEL}, {cores} cores, "
        + (f"{busy:.2f} cores busy at start" if busy is not None else "")
    )
    if busy is not None and busy > 0.25:
        print("warning: the machine is busy; llama.cpp figures will be low and noisy")

    startup = bench_startup(args.repeats, args.n_ctx)
    with serve_local(n_ctx=args.n_ctx) as server:
        prompt_rates, gen_rates = bench_throughput(server.base_url, args.repeats)
        hit_ms, first_hit_ms = bench_cache_hit(server.base_url, args.hits)

    figures = {
        "server_startup_s": statistics.median(startup),
        "prompt_tokens_per_s": statistics.median(prompt_rates),
        "generated_tokens_per_s": statistics.median(gen_rates),
        "cache_hit_ms": hit_ms,
        "cache_new_client_first_hit_ms": first_hit_ms,
    }
    print(f"{'figure':32s} {'median':>10s}   runs")
    runs = {
        "server_startup_s": startup,
        "prompt_tokens_per_s": prompt_rates,
        "generated_tokens_per_s": gen_rates,
    }
    for key, value in figures.items():
        detail = " ".join(f"{v:.1f}" for v in runs.get(key, [])) or (
            f"median of {args.hits} hits" if key == "cache_hit_ms" else "one cold open"
        )
        print(f"{key:32s} {value:10.3f}   {detail}")
    if args.json:
        meta = {"model": LOCAL_MODEL, "n_ctx": args.n_ctx, "cores": cores, "busy_cores_at_start": busy}
        args.json.write_text(json.dumps({**meta, **figures}, indent=2))


if __name__ == "__main__":
    main()
