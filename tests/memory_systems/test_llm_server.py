"""Real round trips through the embedded SmolLM2-135M server (llama_cpp.server), and its lifecycle.

The model is tiny: these tests check the wiring (a reply, token counts, JSON mode, forced tool calls,
counted failures, start and stop), never the quality of what it says.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from child_signals import gone, restore_default_sigint

from memsuite.memory_systems.errors import ConfigError
from memsuite.memory_systems.llm import LLMClient, local_config, open_llm
from memsuite.memory_systems.llm_server import LOCAL_MODEL, local_model_path, serve_local

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def client_for(server, tmp_path: Path | None = None, **overrides) -> LLMClient:
    cache_path = tmp_path / "llm.sqlite" if tmp_path is not None else None
    return LLMClient(local_config(server.base_url, **overrides), cache_path=cache_path, environ={})


def is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def answers(base_url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_model_file_ships_inside_the_package():
    path = local_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 50_000_000


def test_chat_round_trip(local_llm, tmp_path):
    client = client_for(local_llm, tmp_path)

    result = client.chat(
        [{"role": "user", "content": "What is the capital of France? Answer with one word."}],
        phase="answer",
        max_tokens=16,
    )

    assert result.ok, result.failure
    assert result.text.strip() and result.prompt_tokens > 0 and 0 < result.completion_tokens <= 16
    usage = client.usage()
    assert usage.llm_calls == 1 and usage.llm_failures == 0
    assert client.cost_usd() == 0.0
    ident = client.identity()
    assert ident["model"] == LOCAL_MODEL and ident["wiring_only"] is True


def test_json_object_round_trip(local_llm):
    client = client_for(local_llm)

    result = client.chat_json(
        [
            {"role": "system", "content": "You reply with a JSON object only."},
            {"role": "user", "content": 'Is Paris in France? Reply as {"answer": "yes" or "no"}.'},
        ],
        phase="judge",
        max_tokens=40,
    )

    assert result.ok, result.failure
    assert isinstance(result.data, dict) and result.data


def test_forced_tool_call_round_trip(local_llm):
    client = client_for(local_llm)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "add_fact",
                "description": "Store one fact about the user.",
                "parameters": {
                    "type": "object",
                    "properties": {"fact": {"type": "string"}},
                    "required": ["fact"],
                },
            },
        }
    ]

    result = client.chat(
        [{"role": "user", "content": "Remember that my dog is called Rex."}],
        phase="ingest",
        tools=tools,
        tool_choice={"type": "function", "function": {"name": "add_fact"}},
        max_tokens=60,
    )

    assert result.ok, result.failure
    assert [call.name for call in result.tool_calls] == ["add_fact"]
    assert isinstance(result.tool_calls[0].arguments, dict)


def test_cache_serves_a_repeat_without_calling_the_server(local_llm, tmp_path):
    client = client_for(local_llm, tmp_path)
    messages = [{"role": "user", "content": "Say hi."}]
    first = client.chat(messages, phase="answer", max_tokens=8)
    second = client.chat(messages, phase="answer", max_tokens=8)
    assert first.ok and second.cached and second.text == first.text
    assert client.usage().llm_calls == 1 and client.usage().cache_hits == 1


def test_prompt_longer_than_the_context_window_is_a_counted_failure(local_llm):
    client = client_for(local_llm)
    result = client.chat([{"role": "user", "content": "word " * 3000}], phase="answer")
    assert result.failure is not None and result.failure.kind == "context_length"
    assert client.usage().llm_failures == 1 and client.usage().llm_calls == 1  # not retried


def test_open_llm_local_starts_a_server_and_stops_it(tmp_path):
    spec = {"model": "local", "n_ctx": 4096, "max_tokens": 32}
    with open_llm(spec, cache_dir=tmp_path) as client:
        ident = client.identity()
        assert ident["wiring_only"] is True and ident["n_ctx"] == 4096 and ident["max_tokens"] == 32
        assert client.chat([{"role": "user", "content": "Hi"}], phase="answer").ok
        base_url = ident["base_url"]
        assert answers(base_url)
    assert not answers(base_url)
    assert (tmp_path / "llm" / "responses.sqlite").exists()
    with (
        pytest.raises(ConfigError, match="base_url"),
        open_llm({"model": "local", "base_url": "http://x/v1"}),
    ):
        pass


def test_server_is_stopped_when_the_block_raises():
    with pytest.raises(RuntimeError, match="boom"), serve_local() as server:
        pid, base_url = server.pid, server.base_url
        assert is_alive(pid) and answers(base_url)
        raise RuntimeError("boom")
    assert not is_alive(pid) and not answers(base_url)


def test_n_ctx_out_of_range_is_a_config_error():
    with pytest.raises(ConfigError, match="8192"), serve_local(n_ctx=100_000):
        pass


def test_cli_llm_serve_prints_the_endpoint_and_stops_on_ctrl_c():
    proc = subprocess.Popen(
        [sys.executable, "-m", "memsuite", "llm", "serve"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore_default_sigint,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(2)]  # "" if it exits early: no hang
        assert lines[0].startswith("base_url: http://127.0.0.1:"), (lines, proc.stderr.read())
        assert lines[1].strip() == f"model: {LOCAL_MODEL}"
        base_url = lines[0].split()[1]
        assert answers(base_url)
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"alive 60 s after SIGINT; server answers: {answers(base_url)}; stderr:\n{err}")
        assert code == 0, proc.stderr.read()
        assert not answers(base_url)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("thread", ["main", "pool"])
def test_a_killed_parent_leaves_no_orphan_server(tmp_path, thread):
    """Started from the main thread or from a pool thread (as a run's unit would), the server dies
    with its SIGKILLed parent."""
    script = (
        "import sys, time\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from contextlib import ExitStack\n"
        "from pathlib import Path\n"
        "from memsuite.memory_systems.llm_server import serve_local\n"
        "stack = ExitStack()\n"
        "start = lambda: stack.enter_context(serve_local(log_path=Path(sys.argv[1])))\n"
        "if sys.argv[2] == 'pool':\n"
        "    with ThreadPoolExecutor(1) as pool:\n"
        "        server = pool.submit(start).result()\n"
        "else:\n"
        "    server = start()\n"
        "print(server.pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    # The log goes to tmp_path: a SIGKILLed parent cannot remove a temporary log of its own.
    parent = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "server.log"), thread],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = parent.stdout.readline()
    assert line.strip().isdigit(), line
    server_pid = int(line)
    assert not gone(server_pid)
    parent.kill()  # SIGKILL: no cleanup code runs in the parent
    parent.wait()
    for _ in range(300):  # the server notices within a second; poll, bounded
        if gone(server_pid):
            break
        time.sleep(0.1)
    else:
        os.kill(server_pid, signal.SIGKILL)
        pytest.fail("the embedded server outlived its killed parent")


def test_the_default_thread_count_comes_from_the_environment(monkeypatch):
    from memsuite.memory_systems.llm_server import THREADS_ENV, default_threads

    monkeypatch.delenv(THREADS_ENV, raising=False)
    assert default_threads() == 2
    monkeypatch.setenv(THREADS_ENV, "3")
    assert default_threads() == 3
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(THREADS_ENV, bad)
        with pytest.raises(ConfigError, match=THREADS_ENV):
            default_threads()
