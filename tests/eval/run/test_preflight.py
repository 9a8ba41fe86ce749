"""Endpoints checked before any unit, and an endpoint that dies during a run stops it: real loopback
servers (one that accepts and never replies, one scripted to fail), through ``memsuite run``."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest
import yaml
from fake_endpoint import FakeEndpoint

from memsuite.eval.cli.main import main
from memsuite.eval.run.folder import load_run


@pytest.fixture
def hanging_url() -> Iterator[str]:
    """A server that accepts every connection and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()


@pytest.fixture
def episodes(tmp_path):
    from memsuite.eval.benchmarks.meme.generator import generate_episodes
    from memsuite.eval.benchmarks.meme.loader import save_episodes

    path = tmp_path / "episodes.json"
    save_episodes(generate_episodes(3, seed=2, filler="none"), path)
    return path


def _run(tmp_path, episodes, capsys, **config) -> tuple[int, str, str]:
    data = {"benchmark": "meme", "systems": ["bm25"], "k": 2, "judges": ["rule"],
            "benchmark_options": {"data": str(episodes)}, **config}  # fmt: skip
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(data))
    code = main(["run", str(path), "--out", str(tmp_path / "run"), "--quiet", "--no-cache"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_hanging_endpoint_is_refused_before_any_unit(tmp_path, episodes, capsys, hanging_url):
    spec = {"model": "hang-model", "base_url": hanging_url, "api_key_env": None, "preflight_timeout_s": 1}
    code, out, err = _run(tmp_path, episodes, capsys, answer_llm=spec)
    assert code == 2 and out == ""
    assert err.startswith(f"memsuite: error: answer_llm at {hanging_url} (model hang-model) failed a one")
    assert "timeout" in err and "answer_llm.preflight_timeout_s" in err and err.count("\n") == 1
    assert not (tmp_path / "run").exists()  # nothing created, no unit started


def test_each_distinct_endpoint_is_checked_and_named_by_its_roles(tmp_path, episodes, capsys, hanging_url):
    working = FakeEndpoint()
    try:
        answer = {"model": "ok-model", "base_url": working.base_url, "api_key_env": None}
        judge = {"model": "judge-model", "base_url": hanging_url, "api_key_env": None}
        judge["preflight_timeout_s"] = 1
        code, _, err = _run(tmp_path, episodes, capsys, answer_llm=answer, judge_llm=judge, judges=["llm"])
        assert code == 2 and "error: judge_llm at " in err and "(model judge-model)" in err
        assert len(working.requests) == 1  # the answer endpoint got its one check, and nothing else
    finally:
        working.close()


def test_an_endpoint_that_dies_mid_run_stops_it_and_a_rerun_resumes(tmp_path, episodes, capsys):
    endpoint = FakeEndpoint()
    try:
        # The preflight request is answered; then every call fails (503, no retry).
        endpoint.script = [("text", "ok"), ("status", 503, "overloaded")]
        spec = {"model": "flaky", "base_url": endpoint.base_url, "api_key_env": None, "max_retries": 0}
        code, out, _ = _run(tmp_path, episodes, capsys, answer_llm=spec)
        assert code == 1
        first, second = out.splitlines()[:2]
        assert first.startswith(f"run stopped: {tmp_path / 'run'}")
        assert second.startswith(
            f"stopped: answer_llm is down: 3 calls in a row to {endpoint.base_url} (model flaky) failed,"
            " the last with http_error: overloaded"
        )
        assert "rerun the same command to resume" in second
        folder = load_run(tmp_path / "run")
        header = folder.header()
        assert header["status"] == "stopped" and folder.units() == []  # the unit then running was dropped
        # Only the breaker's three calls reached the endpoint, not one per question of every unit.
        assert len(endpoint.requests) == 1 + 3

        endpoint.script = [("text", "a reply")]
        code, out, err = _run(tmp_path, episodes, capsys, answer_llm=spec)
        assert code == 0, out + err
        assert "resuming" in err
        assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "complete"
        assert len(load_run(tmp_path / "run").units()) == 3
    finally:
        endpoint.close()
